import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { z } from 'zod';
import type { Reply } from '../products/common.js';
import { predictionError } from '../products/prediction.js';
import { PredictionQueries } from '../products/predictionQueries.js';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { closeAllBody, closeOrderBody, createOrderBody, eventQuery, eventsQuery, executeBody, ownerBody, ownerListQuery, searchQuery } from './requests/prediction.js';

type Env = { Bindings: HttpBindings };

const resolveBody = z.object({ marketId: z.string().min(1).max(128), result: z.enum(['yes', 'no']) }).strict();

function answer(c: Context<Env>, reply: Reply): Response {
  return sendJson(c, reply.body, reply.status);
}

/** Parses input with `schema`, answering the service's ErrorResponse 400 naming the field when it does not fit. */
function withInput<S extends z.ZodType>(c: Context<Env>, schema: S, input: unknown, handle: (value: z.output<S>) => Reply): Response {
  const parsed = parseInput(schema, input ?? {});
  if (!parsed.ok) return answer(c, predictionError(400, parsed.message, 'parameter_invalid'));
  return answer(c, handle(parsed.value));
}

/**
 * The Prediction Market API under /prediction/v1 (jupiter-api.md §8, openapi/prediction.yaml): discovery (events,
 * search, markets, order book, trading status), trading (orders, execute, closes), positions, claims and history.
 */
export function predictionRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  const desk = () => ctx.state.prediction;
  const queries = () => new PredictionQueries(desk());

  app.get('/events', (c) => withInput(c, eventsQuery, queryOf(c), (q) => queries().events(q)));
  app.get('/events/search', (c) => withInput(c, searchQuery, queryOf(c), (q) => queries().search(q.query, q.limit, q.provider)));
  app.get('/events/:eventId', (c) => withInput(c, eventQuery, queryOf(c), (q) => queries().event(c.req.param('eventId'), q.includeMarkets !== false)));
  app.get('/events/:eventId/markets', (c) => withInput(c, ownerListQuery, queryOf(c), (q) => queries().eventMarkets(c.req.param('eventId'), q.start, q.end)));
  app.get('/events/:eventId/markets/:marketId', (c) => answer(c, queries().market(c.req.param('marketId'), c.req.param('eventId'))));
  app.get('/markets/:marketId', (c) => answer(c, queries().market(c.req.param('marketId'))));
  app.get('/orderbook/:marketId', (c) => answer(c, queries().orderbook(c.req.param('marketId'))));
  app.get('/trading-status', (c) => sendJson(c, { trading_active: true }));

  app.post('/orders', async (c) => withInput(c, createOrderBody, await jsonBody(c), (b) => desk().create(b)));
  app.delete('/orders', async (c) => withInput(c, closeOrderBody, await jsonBody(c), (b) => desk().closeOrder(b.ownerPubkey, b.orderPubkey)));
  app.get('/orders', (c) => withInput(c, ownerListQuery, queryOf(c), (q) => queries().orders(q)));
  app.post('/orders/execute', async (c) => withInput(c, executeBody, await jsonBody(c), (b) => desk().execute(b, true)));
  app.get('/orders/status/:orderPubkey', (c) => answer(c, queries().orderStatus(c.req.param('orderPubkey'))));
  app.get('/orders/:orderPubkey', (c) => answer(c, queries().order(c.req.param('orderPubkey'))));
  app.post('/execute', async (c) => withInput(c, executeBody, await jsonBody(c), (b) => desk().execute(b, false)));

  app.get('/positions', (c) => withInput(c, ownerListQuery, queryOf(c), (q) => queries().positions(q)));
  app.delete('/positions', async (c) => withInput(c, closeAllBody, await jsonBody(c), (b) => desk().closeAll(b.ownerPubkey, b.minSellPriceSlippageBps)));
  app.get('/positions/:positionPubkey', (c) => answer(c, queries().position(c.req.param('positionPubkey'))));
  app.delete('/positions/:positionPubkey', async (c) => withInput(c, ownerBody, await jsonBody(c), (b) => desk().closePosition(c.req.param('positionPubkey'), b.ownerPubkey)));
  app.post('/positions/:positionPubkey/claim', async (c) => withInput(c, ownerBody, await jsonBody(c), (b) => desk().claim(c.req.param('positionPubkey'), b.ownerPubkey)));

  app.get('/history', (c) => withInput(c, ownerListQuery, queryOf(c), (q) => queries().history(q)));
  return app;
}

/**
 * Prediction controls under /__sim/prediction: POST /resolve `{marketId, result}` settles a market (and its twin on
 * the other provider) at once. Filling and expiring orders go through /__sim/orders/fill and /__sim/orders/expire.
 */
export function predictionControlRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  app.post('/resolve', async (c) => {
    const parsed = parseInput(resolveBody, (await jsonBody(c)) ?? {});
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const desk = ctx.state.prediction;
    desk.refresh();
    const m = desk.markets.market(parsed.value.marketId);
    if (!m) return sendJson(c, { error: `unknown market ${parsed.value.marketId}` }, 404);
    if (m.status !== 'open') return sendJson(c, { error: `market ${m.marketId} is already ${m.status} (result ${m.latent.result ?? 'none'})` }, 409);
    const resolved = desk.markets.resolve(m.marketId, parsed.value.result);
    desk.keeper.resolve(resolved);
    return sendJson(c, { marketId: m.marketId, result: parsed.value.result, resolved: resolved.map((x) => x.marketId), keeperError: ctx.state.venue.lastKeeperError });
  });
  return app;
}
