// prediction-edge: buys the side of a binary market that costs less than the user's fair probability says it is
// worth, by more than a margin once the venue's fee is paid; caps what it puts into one event; holds to settlement
// (the keeper claims winnings) or sells once the market's bid, after the fee, pays the fair value.
//
// Fair probabilities are params (YES probability by market id), so decide() stays pure: a file the user edits
// while the bot runs would need the engine to read it and hand it in through the context, which it does not yet.
import { z } from 'zod';
import { defineStrategy, type IntentInput, type MarketView, type StrategyContext } from '../../src/sdk/index.js';
import { mintParam } from '../../src/sdk/symbols.js';
import {
  askOf, bidOf, contractsFor, costPerContract, exitPending, floorCent, heldCost, isTrading, micro, MICRO, MIN_DEPOSIT, pendingBuys,
  predictionFee, proceedsPerContract, dollars as usd, recentTimes, sellFloor, sideOf, slippageParam, timesSchema, CENT, MIN_PRICE, type Side,
} from '../prediction-common/index.js';

/** Params of prediction-edge, as written in the config. */
export const predictionEdgeParams = z
  .strictObject({
    /** Fair probability of YES by market id (0.62 = 62 %); the markets it trades. */
    fair: z.record(z.string().min(1).max(128), z.number().gt(0).lt(1)).refine((f) => Object.keys(f).length > 0, { message: 'name at least one market' }),
    /** Least edge per contract, USD, after the fee: fair - (ask + fee) must exceed it (0.03 = 3 cents). */
    minEdge: z.number().min(0).max(0.5).default(0.02),
    /** Deposit of one buy, USD (the service's minimum is $5). */
    orderUsd: z.number().min(5).max(1_000_000),
    /** Most USD at stake in the markets of one event (contracts held at cost plus pending buys). */
    maxEventUsd: z.number().min(5).max(100_000_000),
    /** The stable coin paid in: USDC or JupUSD. */
    depositMint: mintParam.prefault('USDC'),
    /** `hold`: keep positions to settlement (the keeper claims). `atFair`: sell once the bid, after the fee, pays the fair value. */
    exit: z.enum(['hold', 'atFair']).default('hold'),
    /** A sale accepts down to the bid less this, bps. */
    slippageBps: slippageParam,
    /** No new buy of a market this close to its close, minutes. */
    entryCutoffMinutes: z.number().min(0).max(10_080).default(10),
    /** After asking to buy a side (or to sell a position), wait this long before asking again: fills take a moment to show. */
    cooldownSeconds: z.number().int().min(0).max(86_400).default(60),
  })
  .refine((p) => p.orderUsd <= p.maxEventUsd, { message: 'orderUsd must not exceed maxEventUsd', path: ['orderUsd'] });

/** Parsed params of prediction-edge. */
export type PredictionEdgeParams = z.output<typeof predictionEdgeParams>;

/** What prediction-edge remembers between runs: when it last asked to buy a market's side or to sell a position. */
export type PredictionEdgeState = { boughtAt: Record<string, number>; soldAt: Record<string, number> };

// Parsed, never trusted: a corrupt map is dropped (at worst one buy comes a cooldown early; the caps still hold).
const stateSchema = z.object({ boughtAt: timesSchema.default({}), soldAt: timesSchema.default({}) });

type Ctx = StrategyContext<PredictionEdgeParams, PredictionEdgeState>;

/** The side worth buying in a market now, with its edge per contract (micro-USD), or undefined. */
export function bestSide(m: MarketView, fairYes: bigint, depositMicro: bigint, minEdgeMicro: bigint): { side: Side; ask: bigint; fair: bigint; edge: bigint } | undefined {
  let best: { side: Side; ask: bigint; fair: bigint; edge: bigint } | undefined;
  for (const side of ['yes', 'no'] as const) {
    const ask = askOf(m, side);
    if (ask === null) continue;
    const fair = side === 'yes' ? fairYes : MICRO - fairYes;
    const n = contractsFor(depositMicro, ask);
    if (n === 0n) continue;
    const edge = fair - ask - (predictionFee(n, ask) * MICRO) / n;
    if (edge > minEdgeMicro && (!best || edge > best.edge)) best = { side, ask, fair, edge };
  }
  return best;
}

/** The highest price (to the cent) at which a contract still has the margin over `fair`, fee included. */
export function limitPrice(fair: bigint, minEdgeMicro: bigint): bigint | undefined {
  for (let q = floorCent(fair - minEdgeMicro); q >= MIN_PRICE; q -= CENT) {
    if (fair - costPerContract(q) >= minEdgeMicro) return q;
  }
  return undefined;
}

/**
 * Whether a buy of the market is still being filled: the venue lists a position with no contracts yet while its
 * order works (the context shows no prediction orders, and the intent stops being pending once the wallet
 * snapshot is newer than its landing, before the keeper network fills it).
 */
function orderWorking(ctx: Ctx, marketId: string): boolean {
  return ctx.positions.prediction.some((p) => p.marketId === marketId && p.contractsMicro === 0n && !p.claimed);
}

/**
 * USD at stake in an event: positions in its markets at cost, plus the instance's pending buys there. A position
 * whose order still works (no contracts yet) counts as one order of `orderMicro`: its deposit is not in the context.
 */
function eventExposure(ctx: Ctx, eventId: string, orderMicro: bigint): bigint {
  const inEvent = (marketId: string) => (ctx.market(marketId)?.eventId ?? marketId) === eventId;
  let sum = 0n;
  for (const p of ctx.positions.prediction) if (!p.claimed && inEvent(p.marketId)) sum += p.contractsMicro === 0n ? orderMicro : heldCost(p);
  for (const { intent } of ctx.pendingIntents) if (intent.kind === 'prediction.buy' && inEvent(intent.marketId)) sum += intent.depositAmount;
  return sum;
}

/** Buys underpriced sides of the markets it has fair probabilities for, within per-event caps. */
export const predictionEdge = defineStrategy<typeof predictionEdgeParams, PredictionEdgeState>({
  name: 'prediction-edge',
  version: '1.0.0',
  description: 'buy YES or NO when it costs less than a fair probability by more than a margin after fees; cap per event; hold or sell at fair',
  params: predictionEdgeParams,
  // The deposit mint's price too: the risk gate values a buy's deposit in USD.
  watches: (p) => ({ mints: [p.depositMint], predictionMarkets: Object.keys(p.fair) }),
  emits: () => [{ kind: 'prediction.buy' }, { kind: 'prediction.closePosition' }],
  decide: (ctx) => {
    const p = ctx.params;
    const parsed = stateSchema.parse(ctx.state);
    const cooldownMs = p.cooldownSeconds * 1000;
    const boughtAt = recentTimes(parsed.boughtAt, ctx.now, cooldownMs);
    const soldAt = recentTimes(parsed.soldAt, ctx.now, cooldownMs);
    const intents: IntentInput[] = [];
    const minEdge = micro(p.minEdge);
    const order = micro(p.orderUsd);
    // What the wallet can still pay: its balance less the deposits of buys not yet shown in it.
    let available = ctx.wallet.balance(p.depositMint);
    for (const { intent } of ctx.pendingIntents) if (intent.kind === 'prediction.buy') available -= intent.depositAmount;
    const addedToEvent = new Map<string, bigint>();

    for (const marketId of Object.keys(p.fair).sort()) {
      const m = ctx.market(marketId);
      if (!m) {
        ctx.log.debug('skipping: market not in the prediction feed', { marketId });
        continue;
      }
      if (!isTrading(m)) continue;
      const fairYes = micro(p.fair[marketId]!);

      if (p.exit === 'atFair') {
        for (const pos of ctx.positions.prediction) {
          if (pos.marketId !== marketId || pos.contractsMicro <= 0n || pos.claimed) continue;
          if (exitPending(ctx.pendingIntents, pos.positionPubkey) || soldAt[pos.positionPubkey] !== undefined) continue;
          const side = sideOf(pos);
          const bid = bidOf(m, side);
          const fair = side === 'yes' ? fairYes : MICRO - fairYes;
          if (bid === null || proceedsPerContract(bid) < fair) continue;
          intents.push({ kind: 'prediction.closePosition', positionPubkey: pos.positionPubkey, minPriceMicroUsd: sellFloor(bid, p.slippageBps), reason: `${side.toUpperCase()} bid ${usd(bid)} pays fair ${usd(fair)} after the fee: sell` });
          soldAt[pos.positionPubkey] = ctx.now;
        }
      }

      if (m.closeTime !== null && ctx.now >= m.closeTime * 1000 - p.entryCutoffMinutes * 60_000) continue;
      if (pendingBuys(ctx.pendingIntents, marketId) > 0n || orderWorking(ctx, marketId)) continue;
      const pick = bestSide(m, fairYes, order, minEdge);
      if (!pick) continue;
      const key = `${marketId}:${pick.side}`;
      if (boughtAt[key] !== undefined) continue;
      const eventId = m.eventId ?? marketId;
      const room = micro(p.maxEventUsd) - eventExposure(ctx, eventId, order) - (addedToEvent.get(eventId) ?? 0n);
      const deposit = room < order ? room : order;
      if (deposit < MIN_DEPOSIT) {
        ctx.log.debug('skipping: the event cap is reached', { marketId, eventId, roomMicroUsd: room.toString() });
        continue;
      }
      if (available < deposit) {
        ctx.log.info('skipping: not enough to pay the deposit', { marketId, availableMicro: available.toString(), deposit: deposit.toString() });
        continue;
      }
      const limit = limitPrice(pick.fair, minEdge);
      if (limit === undefined || limit < pick.ask) continue;
      intents.push({
        kind: 'prediction.buy',
        marketId,
        side: pick.side,
        depositAmount: deposit,
        depositMint: p.depositMint,
        maxPriceMicroUsd: limit,
        reason: `${pick.side.toUpperCase()} at ${usd(pick.ask)} vs fair ${usd(pick.fair)}: edge ${usd(pick.edge)} a contract after fees`,
      });
      boughtAt[key] = ctx.now;
      available -= deposit;
      addedToEvent.set(eventId, (addedToEvent.get(eventId) ?? 0n) + deposit);
    }
    return { intents, state: { boughtAt, soldAt } };
  },
});
