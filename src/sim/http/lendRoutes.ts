import { Hono, type Context } from 'hono';
import type { HttpBindings } from '@hono/node-server';
import { z } from 'zod';
import type { LendOp } from '../products/lendTx.js';
import { earningJson, positionJson, tokenInfoJson } from '../products/lendViews.js';
import { jsonBody, parseInput, queryOf, sendJson, type SimContext } from './context.js';
import { amountBody, earningsQuery, positionsQuery, sharesBody } from './requests/lend.js';

type Env = { Bindings: HttpBindings };

/** POST /__sim/lend/rate: a market's rates from now on, bps a year (1e4 scale, as the listing reports them). */
const rateBody = z.object({ asset: z.string().min(1), supplyRate: z.number().int().min(0).max(100_000).optional(), rewardsRate: z.number().int().min(0).max(100_000).optional() }).strict();

/**
 * Lend Earn (jupiter-api.md §7): deposit, withdraw, mint, redeem and their -instructions variants, tokens,
 * positions, earnings. Errors are `{error}` with 400 for bad input.
 */
export function lendRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  const operation = (op: LendOp, form: 'transaction' | 'instructions') => async (c: Context<Env>) => {
    const body = await jsonBody(c);
    const byAmount = op === 'deposit' || op === 'withdraw';
    const parsed = byAmount ? parseInput(amountBody, body) : parseInput(sharesBody, body);
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const v = parsed.value;
    const value = 'amount' in v ? v.amount : v.shares;
    const reply = await ctx.state.lend.operation(op, { asset: v.asset, signer: v.signer, value }, form);
    return sendJson(c, reply.body, reply.status);
  };
  for (const op of ['deposit', 'withdraw', 'mint', 'redeem'] as const) {
    app.post(`/earn/${op}`, operation(op, 'transaction'));
    app.post(`/earn/${op}-instructions`, operation(op, 'instructions'));
  }

  app.get('/earn/tokens', (c) => {
    const { venue, lend } = ctx.state;
    lend.accrueAll();
    const now = venue.clock.now();
    return sendJson(c, lend.list().map((m) => tokenInfoJson(venue, m, now)));
  });

  app.get('/earn/positions', (c) => {
    const parsed = parseInput(positionsQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const { venue, lend } = ctx.state;
    lend.accrueAll();
    const now = venue.clock.now();
    const tokens = lend.list().map((m) => ({ market: m, token: tokenInfoJson(venue, m, now) }));
    // One entry per jlToken and wallet, even at zero (as observed).
    return sendJson(c, parsed.value.users.flatMap((user) => tokens.map(({ market, token }) => positionJson(venue, market, user, now, token))));
  });

  app.get('/earn/earnings', (c) => {
    const parsed = parseInput(earningsQuery, queryOf(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const { venue, lend } = ctx.state;
    lend.accrueAll();
    const now = venue.clock.now();
    const slot = venue.clock.slot();
    // A position that is not a jlToken of the venue has no earnings to report: it is left out.
    const markets = parsed.value.positions.flatMap((p) => lend.marketOfJlToken(p) ?? []);
    return sendJson(c, markets.map((m) => earningJson(m, parsed.value.user, now, slot)));
  });
  return app;
}

/** Control of the Earn markets under /__sim/lend: `POST /rate {asset, supplyRate?, rewardsRate?}` (bps a year). */
export function lendControlRoutes(ctx: SimContext): Hono<Env> {
  const app = new Hono<Env>();
  app.post('/rate', async (c) => {
    const parsed = parseInput(rateBody, await jsonBody(c));
    if (!parsed.ok) return sendJson(c, { error: parsed.message }, 400);
    const { venue, lend } = ctx.state;
    const token = venue.resolveToken(parsed.value.asset);
    const market = token ? lend.market(token.mint) : undefined;
    if (!market) return sendJson(c, { error: `asset ${parsed.value.asset} has no Earn market` }, 400);
    lend.setRates(market, { supplyRateBps: parsed.value.supplyRate, rewardsRateBps: parsed.value.rewardsRate });
    return sendJson(c, { asset: market.asset.mint, jlToken: market.jlMint, supplyRate: market.supplyRateBps, rewardsRate: market.rewardsRateBps, totalRate: market.totalRateBps });
  });
  return app;
}
