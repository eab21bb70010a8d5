// What the e2e files behind the hostile venue share: a keeper config of dca-swap instances pointed at the venue,
// and a wait that gives up as soon as the keeper process is gone.
import { dcaSwapsConfig, type KeeperProcess } from './keeper.js';

/** One dca-swap instance of a hostile-venue run. */
export interface HostileInstance {
  id: string;
  via: 'ultra' | 'metis';
  inputMint: string;
  outputMint: string;
  amount: bigint;
  everySeconds?: number;
  maxRuns?: number;
}

/**
 * A keeper config against `venueUrl` (the hostile venue): the given dca-swap instances, two executions at a time, a
 * job lock long enough for a loaded machine (a starved worker must not lose its job), fast feeds and reconciler.
 */
export function hostileConfig(o: { venueUrl: string; prefix: string; instances: HostileInstance[]; concurrency?: number }): string {
  return dcaSwapsConfig({ venueUrl: o.venueUrl, prefix: o.prefix, concurrency: o.concurrency, jobLock: '30s', instances: o.instances.map((i) => ({ ...i, maxRuns: i.maxRuns ?? 1 })) });
}

/**
 * Polls `check` until it returns a value (not undefined/false); throws after `timeoutMs`, or at once when the keeper
 * has exited (its stderr tail in the message).
 */
export async function waitWhileRunning<T>(k: KeeperProcess, what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 250): Promise<T> {
  const until = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined && v !== false) return v;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    if (k.proc.exitCode !== null || k.proc.signalCode !== null) {
      throw new Error(`the keeper exited (${k.proc.exitCode ?? k.proc.signalCode}) while waiting for ${what}; stderr tail:\n${k.stderr.join('').slice(-2000)}`);
    }
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${last})` : ''}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
