import { Hono } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { recordExecutedVolume } from './gateway.js';
import { executeBodyError, ultraExecuteBody, ultraOrderQuery } from './requests/ultra.js';

/** Ultra order and execute (the data endpoints of /ultra/v1 live in their own module). */
export function ultraTradeRoutes(ctx: SimContext): Hono<{ Bindings: HttpBindings }> {
  const app = new Hono<{ Bindings: HttpBindings }>();
  app.get('/order', (c) => {
    const parsed = parseInput(ultraOrderQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const hostile = ctx.faults.take('hostile-order', c.req.path) !== undefined;
    const reply = ctx.state.ultra.order(parsed.value, hostile);
    return sendJson(c, reply.body, reply.status);
  });
  app.post('/execute', async (c) => {
    const body = await jsonBody(c);
    const parsed = parseInput(ultraExecuteBody, body ?? {});
    if (!parsed.ok) return sendJson(c, executeBodyError(body), 400);
    const { reply, executedUsd } = ctx.state.ultra.execute(parsed.value);
    // A swap that landed now counts toward the key's executed volume (the ultra tier's dynamic rate limit).
    recordExecutedVolume(c, executedUsd);
    return sendJson(c, reply.body, reply.status);
  });
  return app;
}
