/** What a strategy sees: a frozen, read-only view of the market and the wallet at one instant. No I/O. */

import type { Intent, IntentKind } from './intents.js';

/** A token's USD price and facts. */
export interface PriceView {
  /** USD per whole token (a float: prices may be numbers, amounts may not). */
  usd: number;
  decimals: number;
  /** Percent change over 24 h (1.5 = +1.5 %), when known. */
  change24h: number | null;
}

/** A shield warning on a token. */
export interface ShieldWarningView {
  type: string;
  /** `info`, `warning` or `critical` (kept a string: the service may add levels). */
  severity: string;
  message: string;
}

/** One sample of a token's price history: its USD price at a time. */
export interface PricePoint {
  /** When the price was sampled (the market snapshot's time), unix ms. */
  readonly at: number;
  /** USD per whole token. */
  readonly usd: number;
}

/** Facts about a token. */
export interface TokenView {
  mint: string;
  symbol: string;
  decimals: number;
  verified: boolean | null;
  warnings: readonly ShieldWarningView[];
}

/** A binary prediction market. Prices are micro-USD (1,000,000 = $1). */
export interface MarketView {
  marketId: string;
  eventId: string | null;
  title: string;
  status: string;
  result: 'yes' | 'no' | null;
  isTradable: boolean;
  /** Unix seconds. */
  closeTime: number | null;
  buyYesMicroUsd: bigint | null;
  buyNoMicroUsd: bigint | null;
  sellYesMicroUsd: bigint | null;
  sellNoMicroUsd: bigint | null;
}

/** A prediction event with its markets. */
export interface EventView {
  eventId: string;
  title: string;
  category: string | null;
  markets: readonly MarketView[];
}

/** One token holding of the wallet. */
export interface HoldingView {
  mint: string;
  amount: bigint;
  decimals: number;
}

/** An open limit order. */
export interface TriggerOrderView {
  order: string;
  inputMint: string;
  outputMint: string;
  makingAmount: bigint;
  takingAmount: bigint;
  remainingMakingAmount: bigint;
}

/** An active recurring order. */
export interface RecurringOrderView {
  order: string;
  inputMint: string;
  outputMint: string;
  inDeposited: bigint;
  inUsed: bigint;
  outReceived: bigint;
}

/** A Lend Earn position. */
export interface LendPositionView {
  asset: string;
  shares: bigint;
  underlyingAssets: bigint;
}

/** A prediction position. */
export interface PredictionPositionView {
  positionPubkey: string;
  marketId: string;
  isYes: boolean;
  contractsMicro: bigint;
  avgPriceMicroUsd: bigint | null;
  claimable: boolean;
  claimed: boolean;
}

/** The wallet as the last feed saw it. */
export interface WalletView {
  address: string;
  /** Native SOL in lamports. */
  lamports: bigint;
  holdings: readonly HoldingView[];
  /** Balance of a mint in base units (lamports for wSOL's mint); 0 when not held. */
  balance(mint: string): bigint;
}

/** Where a pending intent is: planned or in flight, or `landed` after the wallet snapshot was taken. */
export type PendingIntentState = 'planned' | 'built' | 'guarded' | 'signed' | 'submitted' | 'landed';

/**
 * One of the instance's own intents whose effect the wallet view does not show yet: it is planned, being built,
 * signed or sent, or it landed after the wallet snapshot was taken. Intents that failed, expired or were rejected
 * are not pending (nothing happened), nor are landings the wallet view already includes.
 */
export interface PendingIntentView {
  /** The intent id (also its ledger key and job id). */
  id: string;
  kind: IntentKind;
  state: PendingIntentState;
  /** What was asked for, exactly as decide() returned it (defaults applied). */
  intent: Intent;
  /** When it was decided, unix ms. */
  createdAt: number;
}

/** A structured logger bound to the strategy instance. */
export interface StrategyLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}

/** The frozen context of one decide() call. */
export interface StrategyContext<P = unknown, S = Record<string, unknown>> {
  /** The strategy instance id from the config. */
  readonly instanceId: string;
  readonly params: Readonly<P>;
  /** The decision time, unix ms. Strategies read time from here, never from the clock. */
  readonly now: number;
  /** Price of a watched mint, or undefined when the feed has none. */
  price(mint: string): PriceView | undefined;
  /** Facts and shield warnings of a watched mint. */
  token(mint: string): TokenView | undefined;
  /**
   * The price history the engine keeps of a watched mint: USD prices sampled from the market feed, at most one per
   * `feeds.priceHistoryResolution` (default 1 minute), for the last `feeds.priceHistory` (default 24 h), oldest first
   * and frozen. It is shared by every instance and survives restarts; it has gaps while no keeper ran the feed, is
   * empty before the first sample, and only the mints the strategy watches are read (others may be empty). Its
   * newest point may be up to one resolution older than `price(mint)`.
   */
  priceHistory(mint: string): readonly PricePoint[];
  readonly wallet: WalletView;
  readonly events: readonly EventView[];
  /** A watched market by id. */
  market(marketId: string): MarketView | undefined;
  readonly openOrders: { readonly trigger: readonly TriggerOrderView[]; readonly recurring: readonly RecurringOrderView[] };
  readonly positions: { readonly lend: readonly LendPositionView[]; readonly prediction: readonly PredictionPositionView[] };
  /**
   * This instance's own intents that are planned or in flight, or that landed after the wallet snapshot was taken
   * (their effect is not in `wallet` yet), oldest first. A strategy that reacts to the wallet should count these as
   * already asked for, so that it does not ask again while the wallet feed catches up: e.g. a rebalancer subtracts
   * a pending swap's input from its balance. Empty when nothing is pending. An instance is not decided on a wallet
   * snapshot read while one of its own intents was being sent (it may or may not be in `wallet`): it decides again
   * on the next snapshot, so each intent here is either in flight or known not to be in `wallet` yet.
   */
  readonly pendingIntents: readonly PendingIntentView[];
  /** The strategy's own state, as its last decide() that recorded its window returned it. */
  readonly state: Readonly<S>;
  readonly log: StrategyLogger;
}

/** Deep-freezes a value (objects, arrays); bigints, strings and functions pass through. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as Record<string, unknown>)) deepFreeze(v);
  }
  return value;
}
