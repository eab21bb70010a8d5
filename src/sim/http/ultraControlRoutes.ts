import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { z } from 'zod';
import { SIM_ROUTERS } from '../products/ultra.js';
import { jsonBody, parseInput, sendJson, type SimContext } from './context.js';

const routingBody = z
  .object({
    /** The routes orders take, best first: the first one `excludeRouters` and the order's parameters allow wins. */
    routers: z.array(z.enum(SIM_ROUTERS)).min(1).max(SIM_ROUTERS.length).optional(),
    /** Ms an RFQ quote stays landable (its fill's `expire_at`; the real service's is 55 s). */
    rfqExpiryMs: z.number().int().min(1_000).max(3_600_000).optional(),
  })
  .strict();

/**
 * Control of Ultra's routes (/__sim/ultra): `GET route` says which routes orders take, best first, and how long an
 * RFQ quote stays landable; `POST route {routers?, rfqExpiryMs?}` changes it. The default offers Metis only; with
 * `jupiterz` first, every order that may go through JupiterZ does (its market maker pays the fee and signs after
 * the taker), unless the request excludes it.
 */
export function ultraControlRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  const state = () => ({ ...ctx.state.ultra.routing(), maker: ctx.state.ultra.rfqMaker().toBase58(), gasWallet: ctx.state.ultra.gasWallet().toBase58() });
  app.get('/route', (c) => sendJson(c, state()));
  app.post('/route', async (c) => {
    const parsed = parseInput(routingBody, (await jsonBody(c)) ?? {});
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    ctx.state.ultra.setRouting(parsed.value);
    return sendJson(c, state());
  });
  return app;
}
