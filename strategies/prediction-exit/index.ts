// prediction-exit: manages the exits of the wallet's prediction positions in the markets it watches. It sells a
// whole position (prediction.closePosition) when its side's bid reaches a take-profit or a stop-loss (a price, or a
// change from the position's average entry price), and closes every position a configured time before its market
// closes, so that none is left open at the cut-off. Settled markets are the keeper's: it claims what won.
import { z } from 'zod';
import { defineStrategy, type IntentInput, type MarketView, type PredictionPositionView } from '../../src/sdk/index.js';
import { bidOf, dollars, exitPending, isTrading, micro, priceParam, recentTimes, sellFloor, sideOf, slippageParam, timesSchema } from '../prediction-common/index.js';

/** Params of prediction-exit, as written in the config. */
export const predictionExitParams = z
  .strictObject({
    /** Markets whose positions it manages (they are watched). */
    markets: z.array(z.string().min(1).max(128)).max(500).default([]),
    /** Categories whose events' markets it manages too (crypto, sports, ...). */
    categories: z.array(z.enum(['crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech'])).default([]),
    /** Sell when the held side's bid is at or above this price (0.85 = 85 cents). */
    takeProfitPrice: priceParam.optional(),
    /** Sell when the held side's bid is at or below this price. */
    stopLossPrice: priceParam.optional(),
    /** Sell when the bid is this many percent above the position's average entry price. */
    takeProfitPct: z.number().positive().max(10_000).optional(),
    /** Sell when the bid is this many percent below the position's average entry price. */
    stopLossPct: z.number().positive().max(100).optional(),
    /** Close every position this many minutes before its market closes. */
    closeBeforeMinutes: z.number().min(0).max(43_200).optional(),
    /** A sale accepts down to the bid less this, bps. */
    slippageBps: slippageParam,
    /** After asking to close a position, wait this long before asking again (a sale takes a moment to fill and show). */
    retrySeconds: z.number().int().min(1).max(86_400).default(60),
  })
  .refine((p) => p.markets.length > 0 || p.categories.length > 0, { message: 'name markets or categories to manage', path: ['markets'] })
  .refine((p) => [p.takeProfitPrice, p.stopLossPrice, p.takeProfitPct, p.stopLossPct, p.closeBeforeMinutes].some((v) => v !== undefined), {
    message: 'set at least one of takeProfitPrice, stopLossPrice, takeProfitPct, stopLossPct, closeBeforeMinutes',
    path: ['closeBeforeMinutes'],
  })
  .refine((p) => p.takeProfitPrice === undefined || p.stopLossPrice === undefined || p.stopLossPrice < p.takeProfitPrice, {
    message: 'stopLossPrice must be below takeProfitPrice',
    path: ['stopLossPrice'],
  });

/** Parsed params of prediction-exit. */
export type PredictionExitParams = z.output<typeof predictionExitParams>;

/** What prediction-exit remembers: when it last asked to close each position. */
export type PredictionExitState = { closedAt: Record<string, number> };

const stateSchema = z.object({ closedAt: timesSchema.default({}) });

/** Why a position should be sold now, or undefined. */
export function exitReason(p: PredictionExitParams, m: MarketView, pos: PredictionPositionView, now: number): string | undefined {
  const bid = bidOf(m, sideOf(pos));
  const side = sideOf(pos).toUpperCase();
  if (p.closeBeforeMinutes !== undefined && m.closeTime !== null) {
    const cutoff = m.closeTime * 1000 - p.closeBeforeMinutes * 60_000;
    if (now >= cutoff) return `cut-off: the market closes in ${Math.max(0, Math.round((m.closeTime * 1000 - now) / 60_000))} min (closing ${p.closeBeforeMinutes} min before)`;
  }
  if (bid === null) return undefined;
  const avg = pos.avgPriceMicroUsd;
  if (p.takeProfitPrice !== undefined && bid >= micro(p.takeProfitPrice)) return `take-profit: ${side} bid ${dollars(bid)} at or above ${dollars(micro(p.takeProfitPrice))}`;
  if (p.stopLossPrice !== undefined && bid <= micro(p.stopLossPrice)) return `stop-loss: ${side} bid ${dollars(bid)} at or below ${dollars(micro(p.stopLossPrice))}`;
  if (avg !== null && avg > 0n) {
    // Percent moves in basis points of the entry price, integer arithmetic.
    const moveBps = ((bid - avg) * 10_000n) / avg;
    if (p.takeProfitPct !== undefined && moveBps >= BigInt(Math.round(p.takeProfitPct * 100))) return `take-profit: ${side} bid ${dollars(bid)} is ${pct(moveBps)} over the entry ${dollars(avg)}`;
    if (p.stopLossPct !== undefined && -moveBps >= BigInt(Math.round(p.stopLossPct * 100))) return `stop-loss: ${side} bid ${dollars(bid)} is ${pct(-moveBps)} under the entry ${dollars(avg)}`;
  }
  return undefined;
}

/** Sells positions at a take-profit or stop-loss, and everything a set time before its market closes. */
export const predictionExit = defineStrategy<typeof predictionExitParams, PredictionExitState>({
  name: 'prediction-exit',
  version: '1.0.0',
  description: 'sell prediction positions at a take-profit or stop-loss, and close them all a set time before their market closes',
  params: predictionExitParams,
  // Exits must follow a moving bid: decide on every new snapshot, not only on the schedule.
  reactive: true,
  watches: (p) => ({ predictionMarkets: p.markets, predictionCategories: p.categories }),
  emits: () => [{ kind: 'prediction.closePosition' }],
  decide: (ctx) => {
    const p = ctx.params;
    const closedAt = recentTimes(stateSchema.parse(ctx.state).closedAt, ctx.now, p.retrySeconds * 1000);
    const managed = new Set(p.markets);
    const categories = new Set<string>(p.categories);
    for (const e of ctx.events) if (e.category !== null && categories.has(e.category)) for (const m of e.markets) managed.add(m.marketId);

    const intents: IntentInput[] = [];
    for (const pos of ctx.positions.prediction) {
      if (pos.contractsMicro <= 0n || pos.claimed || !managed.has(pos.marketId)) continue;
      const m = ctx.market(pos.marketId);
      if (!m || !isTrading(m)) continue;
      if (exitPending(ctx.pendingIntents, pos.positionPubkey) || closedAt[pos.positionPubkey] !== undefined) continue;
      const reason = exitReason(p, m, pos, ctx.now);
      if (reason === undefined) continue;
      const bid = bidOf(m, sideOf(pos));
      if (bid === null) {
        ctx.log.warn('cannot close: nobody bids for the side held', { marketId: pos.marketId, positionPubkey: pos.positionPubkey, reason });
        continue;
      }
      intents.push({ kind: 'prediction.closePosition', positionPubkey: pos.positionPubkey, minPriceMicroUsd: sellFloor(bid, p.slippageBps), reason });
      closedAt[pos.positionPubkey] = ctx.now;
    }
    return { intents, state: { closedAt } };
  },
});

function pct(bps: bigint): string {
  return `${(Number(bps) / 100).toFixed(1)}%`;
}
