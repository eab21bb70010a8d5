import type { z } from 'zod';
import { deepFreeze, intentSchema, type EventView, type MarketView, type PendingIntentView, type PredictionPositionView, type StrategyDefinition } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { strategyContext, type ContextSetup, type Decided } from './strategyContext.js';

/** USDC's mint: what prediction deposits are paid in by default. */
export const USDC = KNOWN_SYMBOLS.USDC!.mint;
/** The decision time of these tests, unix ms. */
export const NOW = Date.UTC(2026, 0, 1, 12);

/** The prediction markets and positions a test hands a strategy, on top of strategyContext's wallet and state. */
export interface PredictionSetup<S> extends ContextSetup<S> {
  events?: EventView[];
  positions?: PredictionPositionView[];
}

/** A tradable market; prices are cents (42 = $0.42), closing `closesInMin` after NOW. */
export function market(marketId: string, eventId: string, q: { buyYes: number | null; sellYes: number | null; buyNo?: number | null; sellNo?: number | null; closesInMin?: number }): MarketView {
  const c = (cents: number | null | undefined) => (cents === null || cents === undefined ? null : BigInt(cents) * 10_000n);
  return {
    marketId,
    eventId,
    title: marketId,
    status: 'open',
    result: null,
    isTradable: true,
    closeTime: Math.floor(NOW / 1000) + (q.closesInMin ?? 24 * 60) * 60,
    buyYesMicroUsd: c(q.buyYes),
    sellYesMicroUsd: c(q.sellYes),
    // A one-book market: NO is bought at 1 - the YES bid and sold at 1 - the YES ask, unless told otherwise.
    buyNoMicroUsd: q.buyNo !== undefined ? c(q.buyNo) : q.sellYes === null ? null : c(100 - q.sellYes),
    sellNoMicroUsd: q.sellNo !== undefined ? c(q.sellNo) : q.buyYes === null ? null : c(100 - q.buyYes),
  };
}

/** An event holding `markets`. */
export function event(eventId: string, markets: MarketView[], category: string | null = 'sports'): EventView {
  return { eventId, title: eventId, category, markets };
}

/** A position of `contracts` whole contracts bought at `avgCents`. */
export function position(positionPubkey: string, marketId: string, isYes: boolean, contracts: number, avgCents: number | null): PredictionPositionView {
  return { positionPubkey, marketId, isYes, contractsMicro: BigInt(Math.round(contracts * 100)) * 10_000n, avgPriceMicroUsd: avgCents === null ? null : BigInt(avgCents) * 10_000n, claimable: false, claimed: false };
}

/** A pending intent of the instance, as the engine shows it. */
export function pendingOf(intent: PendingIntentView['intent'], state: PendingIntentView['state'] = 'submitted'): PendingIntentView {
  return { id: `pending.${intent.kind}.${state}`, kind: intent.kind, state, intent, createdAt: NOW - 1_000 };
}

/** A wallet holding `usd` dollars of USDC. */
export function usdcWallet(usd: number): Pick<ContextSetup<never>, 'tokens' | 'lamports'> {
  return { lamports: 1_000_000_000n, tokens: { [USDC]: { amount: BigInt(Math.round(usd * 1e6)), decimals: 6 } } };
}

/**
 * Parses `rawParams` with the strategy's schema, builds the frozen context with the prediction events and
 * positions, runs decide() once and parses the intents as the engine does.
 */
export function decidePrediction<PSchema extends z.ZodType, S extends Record<string, unknown>>(
  strategy: Readonly<StrategyDefinition<PSchema, S>>,
  rawParams: unknown,
  setup: PredictionSetup<S> = {},
): Decided<S> {
  const params: z.output<PSchema> = strategy.params.parse(rawParams);
  const { ctx: base, logs } = strategyContext<z.output<PSchema>, S>(params, { now: NOW, ...setup });
  const events = setup.events ?? [];
  const markets = new Map(events.flatMap((e) => e.markets.map((m) => [m.marketId, m] as const)));
  const ctx = deepFreeze({
    ...base,
    events,
    market: (id: string) => markets.get(id),
    positions: { lend: base.positions.lend, prediction: setup.positions ?? [] },
  });
  const out = strategy.decide(ctx);
  const decision = 'intents' in out ? out : { intents: out, state: undefined };
  return { intents: decision.intents.map((i) => intentSchema.parse(i)), state: decision.state, logs };
}
