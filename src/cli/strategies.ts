import { ConfigError, configSections, parseConfig, readConfigText, userStrategyEntries, type KeeperConfig, type UserStrategyCheck, type UserStrategyEntry } from '../config/index.js';
import { loadUserStrategies } from '../engine/isolation/load.js';
import type { IsolationLimits, StrategyHost } from '../engine/isolation/host.js';
import type { SymbolLookups } from '../sdk/symbols.js';
import { builtinStrategies } from '../../strategies/index.js';
import { lookUpSymbols, openSymbolVenue, type LookedUpSymbol } from './symbols.js';

/** A config with its strategies of the user's own loaded: each module in its thread, keyed by its path. */
export interface LoadedConfig {
  config: KeeperConfig;
  threads: ReadonlyMap<string, StrategyHost>;
  /** Stops the threads. */
  close: () => Promise<void>;
  /** Symbols outside the known table that the params name, as the venue's token list resolved them (for the user to see). */
  symbols: readonly LookedUpSymbol[];
}

/** How loadConfigWithStrategies reaches the venue for symbols outside the known table. */
export interface LoadOptions {
  /** Look such symbols up in the venue's token list (the config's venue, or `venueUrl`); otherwise they are refused. */
  lookUpSymbols?: boolean;
  /** An already running venue to ask instead of the config's (run's --venue-url). */
  venueUrl?: string | undefined;
}

interface Threads {
  checks: Map<number, UserStrategyCheck>;
  hosts: Map<string, StrategyHost>;
}

async function closeThreads(threads: Threads): Promise<void> {
  await Promise.all([...threads.hosts.values()].map((h) => h.close()));
}

async function startThreads(entries: readonly UserStrategyEntry[], limits: IsolationLimits): Promise<Threads> {
  if (entries.length === 0) return { checks: new Map(), hosts: new Map() };
  return loadUserStrategies(entries, limits);
}

/**
 * Reads and validates a config file as `run` needs it: the built-in strategies, and every `strategy: ./file.ts`
 * loaded in a thread of its own and its instances' params checked there. Throws ConfigError listing every problem
 * (a module that does not load, or params its schema refuses, among the others); no thread is left running then.
 *
 * With `lookUpSymbols`, a symbol outside the known table (`base: POPCAT`) is looked up in the venue's token list
 * once the first parse has named them all, one request per distinct symbol, and the params are parsed again with
 * the answers (the threads of the user's modules get them too, since their copy of the SDK parses there).
 */
export async function loadConfigWithStrategies(file: string, env: NodeJS.ProcessEnv, options: LoadOptions = {}): Promise<LoadedConfig> {
  const text = readConfigText(file);
  const { entries, isolation } = userStrategyEntries(text, file);
  const limits: IsolationLimits = {
    decisionTimeoutMs: isolation.decisionTimeout,
    memoryLimitMb: isolation.memoryLimitMb,
    loadTimeoutMs: isolation.loadTimeout,
    suspendMs: isolation.suspend,
  };
  const parse = (threads: Threads, symbols?: SymbolLookups): KeeperConfig =>
    parseConfig(text, file, builtinStrategies, env, { userChecks: entries.length === 0 ? undefined : threads.checks, symbols });
  let threads = await startThreads(entries, limits);
  try {
    try {
      return { config: parse(threads), threads: threads.hosts, close: () => closeThreads(threads), symbols: [] };
    } catch (err) {
      if (!(err instanceof ConfigError) || err.unknownSymbols.length === 0 || options.lookUpSymbols !== true) throw err;
      // A venue section that does not parse is among the first parse's problems: those are reported as they are.
      const venue = await openSymbolVenue(configSections(text, file), env, options.venueUrl).catch(() => undefined);
      if (venue === undefined) throw err;
      let found;
      try {
        found = await lookUpSymbols(venue, err.unknownSymbols);
      } finally {
        await venue.close();
      }
      // A user module's params are parsed in its thread: those with an unknown symbol are checked again there.
      if ([...threads.checks.values()].some((c) => !c.ok && c.issues.some((i) => i.symbol !== undefined))) {
        await closeThreads(threads);
        threads = await startThreads(entries, { ...limits, symbols: found.lookups });
      }
      const final = threads;
      return { config: parse(final, found.lookups), threads: final.hosts, close: () => closeThreads(final), symbols: found.resolved };
    }
  } catch (err) {
    await closeThreads(threads);
    throw err;
  }
}
