import type { z } from 'zod';
import {
  deepFreeze,
  intentSchema,
  type Intent,
  type LendPositionView,
  type PendingIntentView,
  type PricePoint,
  type PriceView,
  type RecurringOrderView,
  type StrategyContext,
  type StrategyDefinition,
} from '../../src/sdk/index.js';
import { SOL_MINT } from '../../src/sdk/symbols.js';

/** One line a strategy logged. */
export interface LoggedLine {
  level: 'debug' | 'info' | 'warn';
  message: string;
  fields: Record<string, unknown> | undefined;
}

/** The market and wallet a test hands a strategy. Everything not given is empty. */
export interface ContextSetup<S> {
  instanceId?: string;
  /** Decision time, unix ms. */
  now?: number;
  /** USD price and decimals by mint. */
  prices?: Record<string, { usd: number; decimals: number; change24h?: number | null }>;
  /** The kept price history by mint (oldest first); empty for a mint not named. */
  history?: Record<string, PricePoint[]>;
  /** Native SOL, lamports: what `wallet.balance(SOL_MINT)` returns. */
  lamports?: bigint;
  /** Token balances by mint, base units. */
  tokens?: Record<string, { amount: bigint; decimals: number }>;
  /** The wallet's open recurring orders. */
  recurring?: RecurringOrderView[];
  /** The wallet's Lend Earn positions. */
  lend?: LendPositionView[];
  /** The instance's pending intents (planned, in flight, or landed after the wallet snapshot). */
  pending?: PendingIntentView[];
  /** The strategy's state as its previous decide() returned it. */
  state?: S;
}

/**
 * Builds the frozen context of one decide() call, as the engine would: params parsed by the strategy's own schema
 * (so tests write them as a config would), a wallet, prices, and a logger that records into `logs`.
 */
export function strategyContext<P, S extends Record<string, unknown>>(
  params: P,
  setup: ContextSetup<S> = {},
): { ctx: StrategyContext<P, S>; logs: LoggedLine[] } {
  const logs: LoggedLine[] = [];
  const record = (level: LoggedLine['level']) => (message: string, fields?: Record<string, unknown>) => void logs.push({ level, message, fields });
  const prices = new Map<string, PriceView>(Object.entries(setup.prices ?? {}).map(([mint, p]) => [mint, { usd: p.usd, decimals: p.decimals, change24h: p.change24h ?? null }]));
  const tokens = setup.tokens ?? {};
  const lamports = setup.lamports ?? 0n;
  const ctx: StrategyContext<P, S> = {
    instanceId: setup.instanceId ?? 'test-instance',
    params,
    now: setup.now ?? Date.UTC(2026, 0, 1),
    price: (mint) => prices.get(mint),
    token: () => undefined,
    priceHistory: (mint) => setup.history?.[mint] ?? [],
    wallet: {
      address: 'TestWa11et1111111111111111111111111111111111',
      lamports,
      holdings: Object.entries(tokens).map(([mint, t]) => ({ mint, amount: t.amount, decimals: t.decimals })),
      balance: (mint) => (mint === SOL_MINT ? lamports : (tokens[mint]?.amount ?? 0n)),
    },
    events: [],
    market: () => undefined,
    openOrders: { trigger: [], recurring: setup.recurring ?? [] },
    positions: { lend: setup.lend ?? [], prediction: [] },
    pendingIntents: setup.pending ?? [],
    state: setup.state ?? ({} as S),
    log: { debug: record('debug'), info: record('info'), warn: record('warn') },
  };
  return { ctx: deepFreeze(ctx), logs };
}

/** What one decide() call returned, with its intents parsed as the engine parses them. */
export interface Decided<S> {
  intents: Intent[];
  state: S | undefined;
  logs: LoggedLine[];
}

/**
 * Parses `rawParams` with the strategy's schema (throws like the config loader would refuse them), builds the
 * context and runs decide() once.
 */
export function decide<PSchema extends z.ZodType, S extends Record<string, unknown>>(
  strategy: Readonly<StrategyDefinition<PSchema, S>>,
  rawParams: unknown,
  setup: ContextSetup<S> = {},
): Decided<S> {
  const params: z.output<PSchema> = strategy.params.parse(rawParams);
  const { ctx, logs } = strategyContext<z.output<PSchema>, S>(params, setup);
  const out = strategy.decide(ctx);
  const decision = 'intents' in out ? out : { intents: out, state: undefined };
  return { intents: decision.intents.map((i) => intentSchema.parse(i)), state: decision.state, logs };
}
