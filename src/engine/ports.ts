import type { EventView, HoldingView, LendPositionView, PredictionPositionView, PricePoint, PriceView, RecurringOrderView, TokenView, TriggerOrderView } from '../sdk/context.js';
import type { Intent, IntentKind } from '../sdk/intents.js';
import type { KillSwitchState } from './killSwitch.js';
import type { IntentState } from './states.js';

/** The ports through which the engine reaches the world; store/ and execution/ implement them, main.ts wires them. */

/** The latest market data the feeds gathered. */
export interface MarketData {
  at: number;
  prices: Record<string, PriceView>;
  tokens: Record<string, Omit<TokenView, 'warnings'> & { warnings: TokenView['warnings'] }>;
}

/** The latest prediction events and markets. */
export interface PredictionData {
  at: number;
  events: EventView[];
}

/** The latest view of the wallet. */
export interface WalletData {
  /** When its first read began (unix ms). */
  at: number;
  /** When its last read ended (unix ms); `at` when unknown. */
  readAt?: number | undefined;
  /** The intents sent while it was read, by id: their transaction in the reads, not in them, or unsure. */
  sent?: Readonly<Record<string, 'in' | 'out' | 'unsure'>> | undefined;
  address: string;
  lamports: bigint;
  holdings: HoldingView[];
  trigger: TriggerOrderView[];
  recurring: RecurringOrderView[];
  lend: LendPositionView[];
  prediction: PredictionPositionView[];
  /**
   * The products' share tokens among `holdings` (Lend Earn's jlTokens), each valued from the chain; absent in
   * snapshots of earlier versions. A holding listed here is worth its underlying, not a price of its own.
   */
  shareTokens?: readonly ShareTokenData[] | undefined;
}

/**
 * A product's share token the wallet holds, named and valued from the chain: a Lend Earn jlToken is worth its shares
 * times the exchange price its market's `lending` account holds, in the underlying asset.
 */
export interface ShareTokenData {
  /** The share token's mint. */
  mint: string;
  /** Its name, e.g. "jlUSDC". */
  symbol: string;
  /** The product that issued it. */
  product: 'lend';
  /** The underlying asset's mint. */
  asset: string;
  /** The account the exchange price was read from (the market's `lending` account). */
  account: string;
  /** Base units of the share token held. */
  shares: bigint;
  /** Base units of the asset one share is worth, scaled by 1e12 (the `lending` account's tokenExchangePrice). */
  exchangePrice: bigint;
  /** What the shares are worth, base units of the asset: shares × exchangePrice / 1e12, rounded down. */
  underlyingAssets: bigint;
}

/** Reads the snapshots. */
export interface SnapshotSource {
  market(): Promise<MarketData | undefined>;
  prediction(): Promise<PredictionData | undefined>;
  wallet(): Promise<WalletData | undefined>;
  /**
   * The kept price history of each of `mints` (USD, oldest first, within the retention at `now`), with every sample
   * up to the market snapshot of time `asOf` (the one the caller decides on, read before): all of them in one round
   * trip, or none when this process read them since that snapshot. Without it strategies see empty histories.
   */
  priceHistory?(mints: readonly string[], now: number, asOf: number): Promise<ReadonlyMap<string, readonly PricePoint[]>>;
}

/**
 * A strategy instance's persisted state, the last decision window applied to it, and its last decision. The state
 * advances only together with the window's intents, in one atomic commit fenced by the window read before deciding:
 * a replay of an applied window (or an older one arriving late) cannot write, and two evaluations of one instance
 * at once cannot both write (the second is refused and decides again on the first one's state).
 */
export interface StrategyStatePort {
  /** A shard's applied window and its instances' states, in one round trip. */
  loadShard(shard: string, instances: readonly string[]): Promise<LoadedShard>;
  /**
   * If the shard's applied window is still `expectedWindow`: writes every changed instance's intents (never
   * overwriting one that exists), state, window and decision, and moves the shard's window, all at once. An instance
   * whose own window is already at or past the new one is left alone (`stale`). Otherwise changes nothing.
   */
  commitShard(shard: string, commit: ShardCommit): Promise<ShardOutcome>;
  /** Records decisions that change no state, in one round trip. */
  recordDecisions(decisions: ReadonlyMap<string, DecisionSummary>): Promise<void>;
  /**
   * Records that a shard was evaluated (what status shows as each instance's last evaluation) and its instances'
   * last log lines, in one round trip whatever the shard's size: one write per shard, plus one per instance whose
   * last line changed since the last one recorded.
   */
  recordEvaluation?(shard: string, evaluation: ShardEvaluation): Promise<void>;
}

/** One evaluation of a shard, as status shows it (see `StrategyStatePort.recordEvaluation`). */
export interface ShardEvaluation {
  /** When it was evaluated, unix ms. */
  at: number;
  /** Start of the window it decided, unix ms. */
  window: number;
  /** The shard's instances. */
  instances: readonly string[];
  /** The last line each instance logged in this evaluation (instances that logged nothing are absent). */
  messages: ReadonlyMap<string, InstanceMessage>;
}

/** A line a strategy instance logged. */
export interface InstanceMessage {
  level: 'debug' | 'info' | 'warn';
  text: string;
}

/** What `StrategyStatePort.loadShard` returns. */
export interface LoadedShard {
  /** Start (unix ms) of the last window this shard committed; null before its first. */
  appliedWindow: number | null;
  states: Map<string, LoadedStrategyState>;
}

/** One shard evaluation's writes (see `StrategyStatePort.commitShard`). */
export interface ShardCommit {
  expectedWindow: number | null;
  window: number;
  /** Instances with something to write: intents, a new state, or a decision that changed. */
  instances: Array<{ instance: string; intents: NewIntentRecord[]; state: Record<string, unknown> | undefined; decision: DecisionSummary | undefined }>;
}

/** Whether a shard commit was applied, with each instance's intents and their states. */
export type ShardOutcome =
  | { ok: true; instances: Array<{ instance: string; stale: boolean; intents: Array<{ id: string; created: boolean; state: IntentState }> }> }
  | { ok: false; appliedWindow: number | null };

/** What `StrategyStatePort.load` returns. */
export interface LoadedStrategyState {
  state: Record<string, unknown>;
  /** Start (unix ms) of the last decision window whose evaluation was committed; null before the first. */
  appliedWindow: number | null;
}

/** A new intent record, as the evaluation commits it. */
export interface NewIntentRecord {
  id: string;
  instance: string;
  /** Strategy name@version. */
  strategy: string;
  intent: Intent;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms after which no new attempt is made. */
  deadline: number;
  /** Set when the risk gate refused it: recorded directly in `rejected` with this reason. */
  rejection?: { code: string; rule: string; message: string } | undefined;
  /** Start of the window that decided it, unix ms. */
  windowStart: number;
}

/** What status shows about a strategy's last evaluation. */
export interface DecisionSummary {
  at: number;
  window: string;
  outcome: 'intents' | 'nothing' | 'skipped' | 'error';
  intents: Array<{ id: string; kind: string; state: IntentState; reason?: string }>;
  message?: string;
}

/** One of an instance's own intents that may not show in the wallet view yet. */
export interface PendingIntentData {
  id: string;
  kind: IntentKind;
  state: IntentState;
  intent: Intent;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms of its last move (for a landed intent, when the landing was recorded). */
  updatedAt: number;
  /** Start of the window that decided it (unix ms); null for records that predate it. */
  windowStart: number | null;
}

/** The intent ledger as the engine reads it (evaluations write through `StrategyStatePort.commit`). */
export interface IntentLedger {
  /**
   * The instance's intents in a non-terminal state, and those that landed at or after `keepLandedSince` (unix ms),
   * oldest first, in one or two round trips. Records that do not parse are named in `corrupt`, not thrown.
   */
  pending(instance: string, keepLandedSince: number): Promise<{ intents: PendingIntentData[]; corrupt: Array<{ id: string; problem: string }> }>;
  /** `pending` for many instances, in two round trips whatever their number. */
  pendingMany(instances: readonly string[], keepLandedSince: number): Promise<Map<string, { intents: PendingIntentData[]; corrupt: Array<{ id: string; problem: string }> }>>;
}

/** Hands an intent to the execute queue (idempotent: the intent id is the job id). */
export type Enqueue = (intentId: string) => Promise<void>;
/** Hands intents to the execute queue in one round trip. */
export type EnqueueMany = (intentIds: readonly string[]) => Promise<void>;

/** Running totals the risk gate keeps (per UTC day), and the kill switch. */
export interface RiskCounters {
  /**
   * Reserves intents' USD, in order, against today's total (`dailyLimit`, one for all) and each one's instance budget,
   * if it has one, in one round trip. Idempotent by intent id: a replay of the same intent (after a crash between
   * reserving and recording, or an evaluation decided again) is found reserved and adds nothing.
   */
  reserveNotionalMany(rs: readonly NotionalReservation[], now: number): Promise<Array<'ok' | 'daily' | 'budget'>>;
  /** Lamports spent on transaction fees today (recorded when intents land). */
  dailyFeeLamports(now: number): Promise<bigint>;
  /** Records the wallet's value; returns its peak and its first reading of the UTC day (this one if it is the first). */
  observeValue(usd: number, now: number): Promise<{ peakUsd: number; dayStartUsd: number }>;
  /** The kill switch, when engaged (halt, or reduce-only). */
  killSwitch(): Promise<KillSwitchState | null>;
  /** Counts refusals of the gate: how many under each rule (today's tallies, shown by status). */
  countRefusals(byRule: ReadonlyMap<string, number>, now: number): Promise<void>;
  /** Engages the kill switch in halt mode unless it is engaged already; returns the switch as it is now. */
  trip(reason: string, by: string, now: number): Promise<KillSwitchState>;
}

/** One intent's claim on the daily notional. */
export interface NotionalReservation {
  intentId: string;
  usd: number;
  dailyLimit: number;
  instance: string;
  /** The instance's own daily budget, if it has one. */
  instanceLimit: number | undefined;
}
