import { parseConfig, readConfigText, userStrategyEntries, type KeeperConfig } from '../config/index.js';
import { loadUserStrategies } from '../engine/isolation/load.js';
import type { StrategyHost } from '../engine/isolation/host.js';
import { builtinStrategies } from '../../strategies/index.js';

/** A config with its strategies of the user's own loaded: each module in its thread, keyed by its path. */
export interface LoadedConfig {
  config: KeeperConfig;
  threads: ReadonlyMap<string, StrategyHost>;
  /** Stops the threads. */
  close: () => Promise<void>;
}

/**
 * Reads and validates a config file as `run` needs it: the built-in strategies, and every `strategy: ./file.ts`
 * loaded in a thread of its own and its instances' params checked there. Throws ConfigError listing every problem
 * (a module that does not load, or params its schema refuses, among the others); no thread is left running then.
 */
export async function loadConfigWithStrategies(file: string, env: NodeJS.ProcessEnv): Promise<LoadedConfig> {
  const text = readConfigText(file);
  const { entries, isolation } = userStrategyEntries(text, file);
  if (entries.length === 0) return { config: parseConfig(text, file, builtinStrategies, env), threads: new Map(), close: () => Promise.resolve() };
  const { checks, hosts } = await loadUserStrategies(entries, {
    decisionTimeoutMs: isolation.decisionTimeout,
    memoryLimitMb: isolation.memoryLimitMb,
    loadTimeoutMs: isolation.loadTimeout,
    suspendMs: isolation.suspend,
  });
  const close = async (): Promise<void> => {
    await Promise.all([...hosts.values()].map((h) => h.close()));
  };
  try {
    return { config: parseConfig(text, file, builtinStrategies, env, checks), threads: hosts, close };
  } catch (err) {
    await close();
    throw err;
  }
}
