import { VersionedTransaction } from '@solana/web3.js';
import { Hono, type MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { sleep } from '../../lib/time.js';
import { breakSchema } from './faults.js';
import { gateway, GatewayCounters, type SimTier } from './gateway.js';
import type { RequestRecorder } from './recorder.js';
import { sendJson, type SimContext } from './context.js';
import { controlRoutes } from './control.js';
import { swapRoutes } from './swapRoutes.js';
import { ultraTradeRoutes } from './ultraRoutes.js';

type Env = { Bindings: HttpBindings };

/** Settings of the simulator's HTTP surface. */
export interface SimAppOptions {
  /** Accepted API keys, `KEY` or `KEY:TIER` (see gateway.ts). */
  apiKeys: readonly string[];
  tier: SimTier;
  /** Resets the simulator's state (POST /__sim/reset). */
  reset: () => void;
  /** Route modules mounted on the Jupiter surface, by path prefix (products added by later parts). */
  products?: Array<[string, Hono<Env>]>;
  /** Routes mounted outside the gateway, by path (the JSON-RPC endpoint). */
  rpc?: Hono<Env>;
  /** When given, every request (any path) is recorded before anything else sees it. */
  recorder?: RequestRecorder;
}

/**
 * The simulator's HTTP app: the Jupiter paths behind the gateway (key, rate tier) and the fault layer, the
 * JSON-RPC endpoint at /rpc, and the control API at /__sim. Bad input never reaches a crash: every handler
 * validates, and anything unexpected becomes a 500 with the service's error shape.
 */
export function createSimApp(ctx: SimContext, options: SimAppOptions): Hono<Env> {
  const app = new Hono<Env>();
  if (options.recorder) app.use('*', options.recorder.middleware());
  const jupiter = new Hono<Env>();
  jupiter.use('*', faultLayer(ctx));
  const counters = new GatewayCounters();
  jupiter.use('*', gateway({ apiKeys: options.apiKeys, tier: options.tier, simNow: () => ctx.state.venue.clock.now(), counters }));
  jupiter.route('/ultra/v1', ultraTradeRoutes(ctx));
  jupiter.route('/swap/v1', swapRoutes(ctx));
  for (const [prefix, routes] of options.products ?? []) jupiter.route(prefix, routes);

  // What the gateway's rate limit let through and refused (429), by tier and window; DELETE zeroes the counts.
  app.get('/__sim/gateway', (c) => sendJson(c, counters.snapshot()));
  app.delete('/__sim/gateway', (c) => {
    counters.clear();
    return sendJson(c, counters.snapshot());
  });
  app.route('/__sim', controlRoutes(ctx, options.reset));
  if (options.rpc) app.route('/rpc', options.rpc);
  app.route('/', jupiter);
  app.notFound((c) => sendJson(c, { error: `Route not found: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((err, c) => {
    ctx.logger.error({ err, path: c.req.path }, 'simulator handler failed');
    return sendJson(c, { error: 'Internal server error' }, 500);
  });
  return app;
}

/** Injects the faults configured through /__sim/faults into Jupiter responses. */
function faultLayer(ctx: SimContext): MiddlewareHandler<Env> {
  return async (c, next) => {
    const path = c.req.path;
    const latency = ctx.faults.take('latency', path);
    if (latency?.latencyMs) await sleep(latency.latencyMs);
    const storm = ctx.faults.take('rate-limit', path);
    if (storm) {
      const wait = storm.retryAfterSeconds ?? 1;
      c.header('x-ratelimit-remaining', '0');
      c.header('x-ratelimit-current', '0');
      c.header('x-ratelimit-reset', String(Math.ceil(Date.now() / 1000 + wait)));
      return c.json({ code: 429, message: '[API Gateway] Too many requests' }, 429);
    }
    const outage = ctx.faults.take('server-error', path);
    if (outage) return c.json({ error: 'Service Unavailable' }, (outage.status ?? 503) as 503);

    await next();

    if (path.endsWith('/execute') && c.res.status === 200 && ctx.faults.active('lose-execute-response') && ctx.faults.take('lose-execute-response', path, await executePayer(c.req.text()))) {
      // The transaction has settled; the caller never hears about it.
      c.env.incoming.socket.destroy();
      return;
    }
    if (ctx.faults.take('malformed-json', path)) {
      const text = await c.res.text();
      c.res = new Response(text.slice(0, Math.max(1, Math.floor(text.length / 2))), { status: c.res.status, headers: c.res.headers });
      return;
    }
    if (c.res.status === 200 && ctx.faults.take('schema-break', path)) {
      const body: unknown = await c.res.json();
      c.res = new Response(JSON.stringify(breakSchema(body)), { status: 200, headers: c.res.headers });
    }
  };
}

/** The fee payer of the transaction an execute request carries (`signedTransaction`, base64), if it has one. */
async function executePayer(body: Promise<string>): Promise<string | undefined> {
  try {
    const parsed: unknown = JSON.parse(await body);
    const signed = parsed && typeof parsed === 'object' && 'signedTransaction' in parsed ? parsed.signedTransaction : undefined;
    if (typeof signed !== 'string') return undefined;
    return VersionedTransaction.deserialize(Buffer.from(signed, 'base64')).message.staticAccountKeys[0]?.toBase58();
  } catch {
    return undefined;
  }
}
