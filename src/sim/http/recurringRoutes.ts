import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import type { z } from 'zod';
import { PRICE_DEPRECATED } from '../products/recurring.js';
import { recurringError } from '../products/recurringRules.js';
import { recurringOrdersPage } from '../products/recurringView.js';
import type { Reply } from '../products/common.js';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { recurringCancelBody, recurringCreateBody, recurringExecuteBody, recurringOrdersQuery, RECURRING_REQUIRED_QUERY } from './requests/recurring.js';

type Env = { Bindings: HttpBindings };

/**
 * The Recurring API V1 under /recurring/v1: createOrder, cancelOrder, execute, getRecurringOrders, and the
 * deprecated price-based priceDeposit and priceWithdraw, which answer that they are deprecated. Every refusal has
 * the service's `{code, error, status}` shape.
 */
export function recurringRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  const reply = (c: Context<Env>, r: Reply) => sendJson(c, r.body, r.status);
  const withBody =
    <S extends z.ZodType>(schema: S, handle: (body: z.output<S>) => Reply) =>
    async (c: Context<Env>) => {
      const parsed = parseInput(schema, await jsonBody(c));
      if (!parsed.ok) return reply(c, recurringError(`Failed to deserialize the JSON body into the target type: ${parsed.message}`));
      return reply(c, handle(parsed.value));
    };

  app.post('/createOrder', withBody(recurringCreateBody, (b) => ctx.state.recurring.create(b)));
  app.post('/cancelOrder', withBody(recurringCancelBody, (b) => ctx.state.recurring.cancel(b)));
  app.post('/execute', withBody(recurringExecuteBody, (b) => ctx.state.recurring.execute(b)));
  app.get('/getRecurringOrders', (c) => {
    const query = queryOf(c);
    const missing = RECURRING_REQUIRED_QUERY.find((k) => query[k] === undefined);
    if (missing) return reply(c, recurringError(`Failed to deserialize query string: missing field \`${missing}\``));
    const parsed = parseInput(recurringOrdersQuery, query);
    if (!parsed.ok) return reply(c, recurringError(`Failed to deserialize query string: ${parsed.message}`));
    return reply(c, recurringOrdersPage(ctx.state.recurring.book, parsed.value, ctx.state.venue.keeper.publicKey.toBase58()));
  });
  // Price-based orders are deprecated: the service no longer supports them through the API (DOCS recurring/*-price-order.mdx).
  app.post('/priceDeposit', (c) => reply(c, recurringError(PRICE_DEPRECATED)));
  app.post('/priceWithdraw', (c) => reply(c, recurringError(PRICE_DEPRECATED)));
  return app;
}
