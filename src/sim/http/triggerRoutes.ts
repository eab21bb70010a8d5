import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { z } from 'zod';
import type { Reply } from '../products/common.js';
import type { TriggerDesk } from '../products/trigger.js';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { cancelOrderBody, cancelOrdersBody, createOrderBody, getTriggerOrdersQuery, triggerExecuteBody } from './requests/trigger.js';

type Env = { Bindings: HttpBindings };

/**
 * Trigger API V1 (limit orders) under /trigger/v1: createOrder, cancelOrder, cancelOrders, execute and
 * getTriggerOrders. Bad input gets the service's error shape `{error, code, cause?}` with status 400.
 */
export function triggerRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  const desk = (): TriggerDesk => ctx.state.trigger;
  /** Parses a JSON body and hands it to the desk, or answers 400 with `error` and the parse failure as `cause`. */
  const post =
    <S extends z.ZodType>(schema: S, error: string, act: (value: z.output<S>) => Reply) =>
    async (c: Context<Env>) => {
      const parsed = parseInput(schema, await jsonBody(c));
      if (!parsed.ok) return sendJson(c, { error, cause: parsed.message, code: 400 }, 400);
      const reply = act(parsed.value);
      return sendJson(c, reply.body, reply.status);
    };
  app.post('/createOrder', post(createOrderBody, 'invalid create order request', (b) => desk().createOrder(b)));
  app.post('/cancelOrder', post(cancelOrderBody, 'invalid cancel order request', (b) => desk().cancelOrder(b)));
  app.post('/cancelOrders', post(cancelOrdersBody, 'invalid cancel orders request', (b) => desk().cancelOrders(b)));
  app.post('/execute', post(triggerExecuteBody, 'invalid execute request', (b) => desk().execute(b)));
  app.get('/getTriggerOrders', (c) => {
    const parsed = parseInput(getTriggerOrdersQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: 'invalid get trigger orders request', cause: parsed.message, code: 400 }, 400);
    const reply = desk().getOrders(parsed.value);
    return sendJson(c, reply.body, reply.status);
  });
  return app;
}
