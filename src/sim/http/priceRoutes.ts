import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { prices } from '../products/price.js';
import { parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { priceQuery } from './requests/price.js';

/** Price V3, mounted at /price/v3 itself: GET /price/v3?ids=. */
export function priceRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/', (c) => {
    const parsed = parseInput(priceQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const reply = prices(ctx.state.venue, parsed.value.ids);
    return sendJson(c, reply.body, reply.status);
  });
  return app;
}
