import type { EventView, HoldingView, LendPositionView, PredictionPositionView, PriceView, RecurringOrderView, TokenView, TriggerOrderView } from '../sdk/context.js';
import type { Intent } from '../sdk/intents.js';
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
  at: number;
  address: string;
  lamports: bigint;
  holdings: HoldingView[];
  trigger: TriggerOrderView[];
  recurring: RecurringOrderView[];
  lend: LendPositionView[];
  prediction: PredictionPositionView[];
}

/** Reads the snapshots. */
export interface SnapshotSource {
  market(): Promise<MarketData | undefined>;
  prediction(): Promise<PredictionData | undefined>;
  wallet(): Promise<WalletData | undefined>;
}

/** A strategy instance's persisted state and last decision. */
export interface StrategyStatePort {
  getState(instance: string): Promise<Record<string, unknown>>;
  setState(instance: string, state: Record<string, unknown>): Promise<void>;
  recordDecision(instance: string, decision: DecisionSummary): Promise<void>;
}

/** What status shows about a strategy's last evaluation. */
export interface DecisionSummary {
  at: number;
  window: string;
  outcome: 'intents' | 'nothing' | 'skipped' | 'error';
  intents: Array<{ id: string; kind: string; state: IntentState; reason?: string }>;
  message?: string;
}

/** The intent ledger as the engine uses it. */
export interface IntentLedger {
  exists(id: string): Promise<boolean>;
  /** Records an intent in `planned`, or directly in `rejected` when the risk gate refused it. Never overwrites. */
  create(rec: {
    id: string;
    instance: string;
    strategy: string;
    intent: Intent;
    createdAt: number;
    deadline: number;
    rejection?: { code: string; message: string };
  }): Promise<{ created: boolean; state: IntentState }>;
}

/** Hands an intent to the execute queue (idempotent: the intent id is the job id). */
export type Enqueue = (intentId: string) => Promise<void>;

/** Running totals the risk gate keeps (per UTC day). */
export interface RiskCounters {
  /** Adds `usd` to today's notional if the total stays within `limit`; returns whether it did. */
  reserveNotional(usd: number, limit: number, now: number): Promise<boolean>;
  /** The kill switch, when engaged (halt, or reduce-only). */
  killSwitch(): Promise<KillSwitchState | null>;
}
