// prediction-arb: the same question listed by both providers (a Polymarket POLY-... market and a Kalshi KX...
// market) settles the same way on both, so YES on one and NO on the other pays exactly $1 a pair. When the two asks
// and the venue's fees come to less than $1 (by at least minEdge), it buys both legs in one decision, the same
// number of contracts each, sized by the shallower side: the context carries no order book depth, so that is
// maxContracts (and what the pair's cap leaves). The two buys are separate intents: if one leg does not fill (its
// price moved past its limit, a refusal), the next decisions complete it while that still pays, or else sell the
// unmatched contracts, so that no naked leg is kept.
import { z } from 'zod';
import { defineStrategy, type IntentInput, type MarketView, type PredictionPositionView, type StrategyContext } from '../../src/sdk/index.js';
import { mintParam } from '../../src/sdk/symbols.js';
import {
  askOf, bidOf, CENT, costPerContract, dollars, heldCost, isTrading, micro, MICRO, MIN_DEPOSIT, pendingBuys, exitPending, recentTimes,
  sellFloor, slippageParam, timesSchema,
} from '../prediction-common/index.js';
import { legCost, legLimit, legsOf, planEntry, withSlippage, type Leg, type Orientation } from './plan.js';

const marketId = z.string().min(1).max(128);

/** Params of prediction-arb, as written in the config. */
export const predictionArbParams = z
  .strictObject({
    /** The same question on the two providers: the Polymarket market id and the Kalshi one. */
    pairs: z.array(z.strictObject({ polymarket: marketId, kalshi: marketId }).refine((p) => p.polymarket !== p.kalshi, { message: 'the two markets must differ' })).min(1).max(100),
    /** Least profit per pair of contracts after fees, USD ($1 less both asks and fees must reach it). */
    minEdge: z.number().min(0).max(0.5).default(0.01),
    /** Most contracts bought on each leg in one entry (the depth the shallower side is trusted for). */
    maxContracts: z.number().min(1).max(1_000_000),
    /** Most USD at stake in one pair (both legs at cost, plus pending buys). */
    maxPairUsd: z.number().min(10).max(100_000_000),
    /** The stable coin paid in: USDC or JupUSD. */
    depositMint: mintParam.prefault('USDC'),
    /** No new entry into a pair whose markets close this soon, minutes. */
    entryCutoffMinutes: z.number().min(0).max(10_080).default(10),
    /**
     * How long after an entry the legs may stay unequal before it completes or unwinds them (fills take a moment);
     * also the least time between two entries into the same pair and orientation.
     */
    legGraceSeconds: z.number().int().min(1).max(86_400).default(120),
    /** An unwinding sale accepts down to the bid less this, bps. */
    slippageBps: slippageParam,
    /**
     * Each leg's price limit is at least its ask plus this, bps (0: the limits keep the pair under $1 less minEdge
     * even if both fill at them). A venue whose market orders carry a slippage allowance (2 % in the simulator)
     * refuses a limit under it; raising it gives up that worst-case guarantee, not the edge of fills at the asks.
     */
    legSlippageBps: z.number().int().min(0).max(1_000).default(0),
  });

/** Parsed params of prediction-arb. */
export type PredictionArbParams = z.output<typeof predictionArbParams>;

/** What prediction-arb remembers: when it last acted on each pair and orientation. */
export type PredictionArbState = { actedAt: Record<string, number> };

const stateSchema = z.object({ actedAt: timesSchema.default({}) });

type Ctx = StrategyContext<PredictionArbParams, PredictionArbState>;

/** Unequal legs smaller than this (micro-contracts) are left alone: a fill floors to 0.01 contract per level. */
const TOLERANCE_MICRO = 1_000_000n;

function positionOf(ctx: Ctx, leg: Leg): PredictionPositionView | undefined {
  return ctx.positions.prediction.find((p) => p.marketId === leg.marketId && p.isYes === (leg.side === 'yes') && !p.claimed && p.contractsMicro > 0n);
}

/**
 * The unequal legs of an orientation held: buys the missing contracts of the short leg while the pair still pays
 * (its ask with the fee plus what the long leg cost, under $1 by minEdge) and the buy reaches the $5 minimum; else
 * sells the long leg's unmatched contracts.
 */
function balance(ctx: Ctx, legs: [Leg, Leg], markets: [MarketView, MarketView], held: [PredictionPositionView | undefined, PredictionPositionView | undefined], available: bigint): IntentInput[] {
  const p = ctx.params;
  const [c0, c1] = [held[0]?.contractsMicro ?? 0n, held[1]?.contractsMicro ?? 0n];
  const longIx = c0 > c1 ? 0 : 1;
  const shortIx = longIx === 0 ? 1 : 0;
  const long = held[longIx];
  if (!long) return [];
  const missing = ((long.contractsMicro - (held[shortIx]?.contractsMicro ?? 0n)) / CENT) * CENT;
  if (missing <= 0n) return [];
  const shortLeg = legs[shortIx];
  const longLeg = legs[longIx];
  const ask = askOf(markets[shortIx], shortLeg.side);
  let why = 'completing them no longer pays';
  if (ask !== null && long.avgPriceMicroUsd !== null && costPerContract(ask) + costPerContract(long.avgPriceMicroUsd) + micro(p.minEdge) <= MICRO) {
    const deposit = legCost(missing, ask);
    why = deposit < MIN_DEPOSIT ? 'buying the rest would be under the $5 minimum' : 'the wallet cannot pay for the rest';
    if (deposit >= MIN_DEPOSIT && deposit <= available) {
      const slack = MICRO - micro(p.minEdge) - costPerContract(long.avgPriceMicroUsd) - costPerContract(ask);
      const limit = withSlippage(legLimit(ask, slack), ask, p.legSlippageBps);
      return [{ kind: 'prediction.buy', marketId: shortLeg.marketId, side: shortLeg.side, depositAmount: deposit, depositMint: p.depositMint, maxPriceMicroUsd: limit, reason: `complete the pair: ${shortLeg.side.toUpperCase()} at ${dollars(ask)} against ${dollars(long.avgPriceMicroUsd)} paid` }];
    }
  }
  const bid = bidOf(markets[longIx], longLeg.side);
  if (bid === null || exitPending(ctx.pendingIntents, long.positionPubkey)) return [];
  return [{ kind: 'prediction.sell', positionPubkey: long.positionPubkey, contractsMicro: missing, minPriceMicroUsd: sellFloor(bid, p.slippageBps), reason: `unwind ${(Number(missing) / 1e6).toFixed(2)} unmatched contracts: ${why}` }];
}

/** Buys YES on one provider and NO on the other when both together cost under $1 after fees. */
export const predictionArb = defineStrategy<typeof predictionArbParams, PredictionArbState>({
  name: 'prediction-arb',
  version: '1.0.0',
  description: 'buy YES on one provider and NO on the other for the same question when together they cost under $1 after fees',
  params: predictionArbParams,
  // A gap between the providers closes within minutes: decide on every new snapshot, not only on the schedule.
  reactive: true,
  // The deposit mint's price too: the risk gate values a buy's deposit in USD.
  watches: (p) => ({ mints: [p.depositMint], predictionMarkets: p.pairs.flatMap((x) => [x.polymarket, x.kalshi]) }),
  emits: () => [{ kind: 'prediction.buy' }, { kind: 'prediction.sell' }],
  decide: (ctx) => {
    const p = ctx.params;
    const actedAt = recentTimes(stateSchema.parse(ctx.state).actedAt, ctx.now, p.legGraceSeconds * 1000);
    const intents: IntentInput[] = [];
    let available = ctx.wallet.balance(p.depositMint);
    for (const { intent } of ctx.pendingIntents) if (intent.kind === 'prediction.buy') available -= intent.depositAmount;

    for (const pair of p.pairs) {
      const first = ctx.market(pair.polymarket);
      const second = ctx.market(pair.kalshi);
      if (!first || !second) {
        ctx.log.debug('skipping: a market of the pair is not in the prediction feed', pair);
        continue;
      }
      if (!isTrading(first) || !isTrading(second)) continue;
      // Anything of the pair still on its way (a buy pending, or an order the venue still fills: a position listed
      // with no contracts yet): wait until it shows.
      if (pendingBuys(ctx.pendingIntents, first.marketId) + pendingBuys(ctx.pendingIntents, second.marketId) > 0n) continue;
      if (ctx.positions.prediction.some((x) => (x.marketId === first.marketId || x.marketId === second.marketId) && x.contractsMicro === 0n && !x.claimed)) continue;

      let exposure = 0n;
      let unbalanced = false;
      for (const orientation of ['yesFirst', 'noFirst'] as const) {
        const legs = legsOf(first.marketId, second.marketId, orientation);
        const held: [PredictionPositionView | undefined, PredictionPositionView | undefined] = [positionOf(ctx, legs[0]), positionOf(ctx, legs[1])];
        exposure += (held[0] ? heldCost(held[0]) : 0n) + (held[1] ? heldCost(held[1]) : 0n);
        const diff = (held[0]?.contractsMicro ?? 0n) - (held[1]?.contractsMicro ?? 0n);
        if (diff <= TOLERANCE_MICRO && -diff <= TOLERANCE_MICRO) continue;
        unbalanced = true;
        const key = stateKey(pair.polymarket, pair.kalshi, orientation);
        if (actedAt[key] !== undefined) continue;
        const fix = balance(ctx, legs, [first, second], held, available);
        if (fix.length > 0) actedAt[key] = ctx.now;
        for (const i of fix) if (i.kind === 'prediction.buy') available -= i.depositAmount;
        intents.push(...fix);
      }
      if (unbalanced) continue;

      const closes = Math.min(first.closeTime ?? Infinity, second.closeTime ?? Infinity) * 1000;
      if (ctx.now >= closes - p.entryCutoffMinutes * 60_000) continue;
      const room = micro(p.maxPairUsd) - exposure;
      const entry = planEntry(first, second, micro(p.minEdge), (micro(p.maxContracts) / CENT) * CENT, room < available ? room : available, p.legSlippageBps);
      if (!entry) continue;
      const key = stateKey(pair.polymarket, pair.kalshi, entry.orientation);
      if (actedAt[key] !== undefined) continue;
      const legs = legsOf(first.marketId, second.marketId, entry.orientation);
      const reason = `pair ${entry.orientation === 'yesFirst' ? 'YES+NO' : 'NO+YES'} costs ${dollars(entry.deposits[0] + entry.deposits[1])} for ${dollars(entry.contractsMicro)} payout`;
      legs.forEach((leg, i) => {
        intents.push({ kind: 'prediction.buy', marketId: leg.marketId, side: leg.side, depositAmount: entry.deposits[i]!, depositMint: p.depositMint, maxPriceMicroUsd: entry.limits[i]!, reason });
      });
      available -= entry.deposits[0] + entry.deposits[1];
      actedAt[key] = ctx.now;
    }
    return { intents, state: { actedAt } };
  },
});

function stateKey(first: string, second: string, o: Orientation): string {
  return `${first}|${second}|${o}`;
}
