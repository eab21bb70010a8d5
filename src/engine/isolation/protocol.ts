// The messages between the engine and a strategy thread (see host.ts). Everything crosses by structured clone.
import type { PricePoint } from '../../sdk/context.js';
import type { Watches } from '../../sdk/strategy.js';
import type { SymbolLookups } from '../../sdk/symbols.js';
import type { MarketData, PendingIntentData, PredictionData, WalletData } from '../ports.js';

/** What a thread is started with. */
export interface ThreadData {
  /** file: URL of the strategy's module. */
  moduleUrl: string;
  /** Shared with the host: [index + 1 of the decision running, or 0; when it started, unix ms]. */
  watch: SharedArrayBuffer;
}

/** What the module's strategy says of itself. */
export interface StrategyInfo {
  name: string;
  version: string;
  sdk: number | undefined;
  description: string | undefined;
  reactive: boolean;
  /** StrategyDefinition.exactWallet (true unless the module says false). */
  exactWallet: boolean;
}

/** One problem with one instance's params, as zod found it. */
export interface ParamIssue {
  path: Array<string | number>;
  message: string;
  /** mintParam's issue: the symbol outside the known table that resolved to nothing (one to look up at the venue). */
  symbol?: string | undefined;
}

export type CheckResult = { index: number; ok: true; params: unknown; watches: Watches } | { index: number; ok: false; issues: ParamIssue[] };

/** One instance's decision to make. */
export interface DecideItem {
  id: string;
  params: unknown;
  state: Record<string, unknown>;
  pending: readonly PendingIntentData[];
}

/** What the instance logged through ctx.log during its decision. */
export interface LogLine {
  level: 'debug' | 'info' | 'warn';
  message: string;
  fields?: Record<string, unknown> | undefined;
}

/** One decision's outcome: what decide() returned (checked by the engine, not here), or why it failed. */
export type DecideResult = { ok: true; out: unknown; logs: LogLine[] } | { ok: false; error: string; logs: LogLine[] };

export type Request =
  | { type: 'describe'; seq: number }
  /** `symbols`: the symbols looked up in the venue's token list, in force while the params are parsed. */
  | { type: 'check'; seq: number; entries: Array<{ index: number; params: unknown }>; symbols?: SymbolLookups | undefined }
  | { type: 'decide'; seq: number; now: number; market: MarketData; prediction: PredictionData | undefined; wallet: WalletData; history: ReadonlyMap<string, readonly PricePoint[]> | undefined; items: DecideItem[]; from: number };

export type Reply =
  | { type: 'describe'; seq: number; ok: true; info: StrategyInfo }
  | { type: 'describe'; seq: number; ok: false; error: string }
  | { type: 'check'; seq: number; results: CheckResult[] }
  /** Results of items [from, from + results.length) of the request; sent in chunks as they are made. */
  | { type: 'decided'; seq: number; from: number; results: DecideResult[]; done: boolean };
