import type { z } from 'zod';
import type { StrategyContext } from './context.js';
import type { IntentInput, IntentKind } from './intents.js';

/** What a strategy watches, given its params: the feeds gather exactly this for it. */
export interface Watches {
  /** Mints whose prices and token facts the strategy reads. */
  mints?: readonly string[];
  /** Prediction categories (crypto, sports, ...) whose events and markets it reads. */
  predictionCategories?: readonly string[];
  /** Specific prediction markets it reads. */
  predictionMarkets?: readonly string[];
}

/** What decide() returns: intents, and optionally the state to persist for the next call. */
export interface Decision<S> {
  intents: readonly IntentInput[];
  state?: S;
}

/**
 * The SDK's major version. A strategy may say which major it was written for (`sdk: 1`); the loader refuses one
 * written for another, whose context or intents would not mean what it expects.
 */
export const SDK_VERSION = 1;

/** A strategy definition. */
export interface StrategyDefinition<PSchema extends z.ZodType = z.ZodType, S extends Record<string, unknown> = Record<string, unknown>> {
  /** Unique name used in config files (`strategy: <name>`). */
  name: string;
  /** Semantic version; recorded with every intent. */
  version: string;
  /** The SDK major version the strategy was written for (SDK_VERSION when omitted). */
  sdk?: number;
  description?: string;
  /** Schema of the params in the config; they are validated before the bot starts. */
  params: PSchema;
  watches: (params: z.output<PSchema>) => Watches;
  /**
   * Decide also whenever a new price snapshot arrives, not only on the schedule (stops, ladders, arbitrage: what
   * must act on a move at once). An instance's config may say otherwise (`reactive:`).
   */
  reactive?: boolean;
  /**
   * Whether its decisions need the wallet view to be exact about its own intents (default true). The engine does not
   * decide such a strategy on a wallet snapshot read while one of its transactions settled (the snapshot may or may
   * not hold it: counted twice, a rebalancer trades it back), but on the next snapshot, which costs it a window. A
   * strategy whose intents do not depend on balances (a fixed amount on a schedule) says false and keeps its cadence;
   * such an intent then shows in `pendingIntents` as not in `wallet` yet.
   */
  exactWallet?: boolean;
  /** Pure: reads the context, returns intents (and state). No I/O, no clock, no randomness outside params. */
  decide: (ctx: StrategyContext<z.output<PSchema>, S>) => Decision<S> | readonly IntentInput[];
  /**
   * The kinds of intent an instance with these params may return (and, for swaps, through which API): what `config
   * check` tells an operator going live about the routes the instance will take. A declaration, not a limit.
   */
  emits?: (params: z.output<PSchema>) => readonly EmittedIntent[];
}

/** A kind of intent a strategy may return (StrategyDefinition.emits); `via` for swaps. */
export interface EmittedIntent {
  kind: IntentKind;
  via?: 'ultra' | 'metis';
}

/** Defines a strategy. The returned object is frozen. */
export function defineStrategy<PSchema extends z.ZodType, S extends Record<string, unknown> = Record<string, unknown>>(
  definition: StrategyDefinition<PSchema, S>,
): Readonly<StrategyDefinition<PSchema, S>> {
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(definition.name)) {
    throw new TypeError(`strategy name must be lowercase letters, digits and dashes, got ${JSON.stringify(definition.name)}`);
  }
  if (typeof definition.version !== 'string' || !/^\d+\.\d+\.\d+/.test(definition.version)) throw new TypeError(`strategy ${definition.name}: version must be semver, got ${String(definition.version)}`);
  if (definition.sdk !== undefined && definition.sdk !== SDK_VERSION) {
    throw new TypeError(`strategy ${definition.name} was written for SDK ${String(definition.sdk)}; this keeper's SDK is ${SDK_VERSION}`);
  }
  if (typeof definition.params?.safeParse !== 'function') throw new TypeError(`strategy ${definition.name}: params must be a zod schema`);
  if (typeof definition.watches !== 'function' || typeof definition.decide !== 'function') throw new TypeError(`strategy ${definition.name}: watches and decide must be functions`);
  return Object.freeze({ ...definition });
}

/** Any defined strategy. */
export type AnyStrategy = Readonly<StrategyDefinition<z.ZodType, Record<string, unknown>>>;

/**
 * Strategies looked up by name: what a package of strategies hands the config loader (the built-ins are one,
 * `builtinStrategies` in strategies/index.ts). Declared in the SDK, which is all a strategy package imports.
 */
export interface StrategyRegistry {
  get(name: string): AnyStrategy | undefined;
  names(): readonly string[];
}
