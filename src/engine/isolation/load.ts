// Loads the config's strategies of the user's own: one thread per module (host.ts), which imports it, says what
// the strategy is, and parses each instance's params with the strategy's own schema. The engine's thread never
// runs the module's code, and a module that imports anything but the SDK is refused before it runs (imports.ts).
import { z } from 'zod';
import { SDK_VERSION, type AnyStrategy, type Watches } from '../../sdk/strategy.js';
import { StrategyHost, type IsolationLimits } from './host.js';
import { importProblem } from './imports.js';
import type { StrategyInfo } from './protocol.js';

/** One instance to check: its index in the config, its module and its params as written. */
export interface UserStrategyInstance {
  index: number;
  file: string;
  params: unknown;
}

/** What was found for one instance (the shape config/load.ts's parseConfig takes). */
export type UserStrategyResult =
  | { ok: true; definition: AnyStrategy; params: unknown; watches: Watches }
  | { ok: false; issues: Array<{ path: Array<string | number>; message: string }> };

/**
 * Starts a thread for each module the instances name and checks every instance. Returns the results by instance
 * index and the threads by module path (the caller closes them; those of modules that failed are closed here).
 */
export async function loadUserStrategies(instances: readonly UserStrategyInstance[], limits: IsolationLimits): Promise<{ checks: Map<number, UserStrategyResult>; hosts: Map<string, StrategyHost> }> {
  const byFile = new Map<string, UserStrategyInstance[]>();
  for (const inst of instances) byFile.set(inst.file, [...(byFile.get(inst.file) ?? []), inst]);
  const checks = new Map<number, UserStrategyResult>();
  const hosts = new Map<string, StrategyHost>();
  await Promise.all(
    [...byFile].map(async ([file, mine]) => {
      // The SDK-only rule, before any of the module's code runs. A file that cannot be read is left to the thread,
      // whose import says why.
      const foreign = await importProblem(file).catch(() => undefined);
      if (foreign !== undefined) {
        for (const m of mine) checks.set(m.index, { ok: false, issues: [{ path: ['strategy'], message: `the strategy module ${file} ${foreign}` }] });
        return;
      }
      const host = new StrategyHost(file, limits);
      const failAll = async (message: string): Promise<void> => {
        for (const m of mine) checks.set(m.index, { ok: false, issues: [{ path: ['strategy'], message }] });
        await host.close();
      };
      let info: StrategyInfo;
      try {
        info = await host.describe();
      } catch (err) {
        await failAll(`the strategy module ${file} does not load: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      const wrong = wrongInfo(info);
      if (wrong) {
        await failAll(`the strategy module ${file}: ${wrong}`);
        return;
      }
      let results;
      try {
        results = await host.check(mine.map((m) => ({ index: m.index, params: m.params })));
      } catch (err) {
        await failAll(`the strategy module ${file} failed while checking params: ${err instanceof Error ? err.message : String(err)}`);
        return;
      }
      for (const r of results) {
        checks.set(r.index, r.ok ? { ok: true, definition: describedStrategy(info, r.watches), params: r.params, watches: r.watches } : { ok: false, issues: r.issues });
      }
      hosts.set(file, host);
    }),
  );
  return { checks, hosts };
}

/** What is wrong with what a module says of its strategy, if anything (its SDK version, its name and version). */
function wrongInfo(info: StrategyInfo): string | undefined {
  if (info.sdk !== undefined && info.sdk !== SDK_VERSION) return `written for SDK ${String(info.sdk)}; this keeper's SDK is ${SDK_VERSION}`;
  if (!/^[a-z][a-z0-9-]{0,63}$/.test(info.name)) return `the strategy's name must be lowercase letters, digits and dashes, got ${JSON.stringify(info.name)}`;
  if (!/^\d+\.\d+\.\d+/.test(info.version)) return `the strategy's version must be semver, got ${JSON.stringify(info.version)}`;
  return undefined;
}

/**
 * The engine's stand-in for a strategy that decides in its thread: its name, version and flags as the module says,
 * its params already parsed there. Its decide() is never called (the evaluation asks the thread).
 */
function describedStrategy(info: StrategyInfo, watches: Watches): AnyStrategy {
  return Object.freeze({
    name: info.name,
    version: info.version,
    sdk: info.sdk,
    description: info.description,
    reactive: info.reactive,
    exactWallet: info.exactWallet,
    params: z.unknown(),
    watches: () => watches,
    decide: () => {
      throw new Error(`strategy ${info.name} decides in its own thread`);
    },
  });
}
