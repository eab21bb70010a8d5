import { Hono } from 'hono';
import { z } from 'zod';
import type { HttpBindings } from '@hono/node-server';
import { dispatchJsonRpc, rpcMethods, type RpcEnv } from '../rpc/index.js';
import { decodeTransaction } from '../rpc/wire.js';
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
    if (ctx.faults.active('lose-send-response') && settledSends(text, answer).some((payer) => ctx.faults.take('lose-send-response', '/rpc', payer))) {
      // The transaction has settled; the caller never hears about it.
      c.env.incoming.socket.destroy();
    }
    return c.body(answer, 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  app.all('/', (c) => c.text('Used HTTP Method is not allowed. POST or OPTIONS is required', 405));
  return app;
}

/**
 * The fee payers of the sendTransaction calls of a request (one call or a batch) that the answer reports sent (a
 * signature, not an error): what the `lose-send-response` fault may drop the answer of.
 */
function settledSends(request: string, answer: string): string[] {
  let calls: unknown;
  let replies: unknown;
  try {
    calls = JSON.parse(request);
    replies = JSON.parse(answer);
  } catch {
    return [];
  }
  const callList: unknown[] = Array.isArray(calls) ? calls : [calls];
  const sentIds = (Array.isArray(replies) ? (replies as unknown[]) : [replies]).flatMap((r) => {
    const sent = sentReply.safeParse(r);
    return sent.success ? [sent.data.id] : [];
  });
  const payers: string[] = [];
  for (const call of callList) {
    const send = sendCall.safeParse(call);
    if (!send.success) continue;
    if (!sentIds.includes(send.data.id)) continue;
    try {
      const tx = decodeTransaction(send.data.params[0], send.data.params[1]?.encoding ?? 'base58');
      const payer = tx.message.staticAccountKeys[0];
      if (payer) payers.push(payer.toBase58());
    } catch {
      // not a transaction the node would have sent
    }
  }
  return payers;
}

const sendCall = z.object({
  id: z.union([z.string(), z.number(), z.null()]),
  method: z.literal('sendTransaction'),
  params: z.tuple([z.string()]).rest(z.looseObject({ encoding: z.enum(['base58', 'base64']).optional() }).nullish()),
});
const sentReply = z.object({ id: z.unknown(), result: z.string() });
