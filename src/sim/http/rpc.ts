import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { dispatchJsonRpc, rpcMethods, type RpcEnv } from '../rpc/index.js';
import type { SimContext } from './context.js';

/** Largest request body a node accepts (Agave's 50 KiB). */
const MAX_REQUEST_BYTES = 50 * 1024;

/**
 * The Solana JSON-RPC endpoint (mounted at /rpc): JSON-RPC 2.0 with batches, answered from the current venue's
 * chain, so that `@solana/web3.js` Connection works against it as against a local validator. Every answer, error
 * objects included, is HTTP 200, as a node sends it.
 */
export function rpcRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.post('/', async (c) => {
    const text = await c.req.text();
    if (Buffer.byteLength(text) > MAX_REQUEST_BYTES) return c.text('Payload Too Large', 413);
    const env: RpcEnv = { venue: ctx.state.venue, logger: ctx.logger };
    const answer = await dispatchJsonRpc(text, rpcMethods, env, {
      onInternalError: (err, method) => ctx.logger.error({ err, method }, 'rpc method failed'),
    });
    if (answer === undefined) return c.body(null, 200);
    return c.body(answer, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  app.all('/', (c) => c.text('Used HTTP Method is not allowed. POST or OPTIONS is required', 405));
  return app;
}
