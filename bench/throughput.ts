// End-to-end throughput with the rate limit off: dca-swap instances asking for more swaps than can be executed, in
// one `jup-keeper run`, against a simulator process of its own; executed intents per second counted on the
// simulator's ledger (swaps settled for the keeper's wallet). The baseline is the venue's own order+execute round
// trips per second (bench/simUltra.ts) on the same simulator process in the same run.
import type { Redis } from 'ioredis';
import { IntentStore } from '../src/store/intents.js';
import { benchPrefix, deploy } from './lib/keepers.js';
import { redisCpuMs } from './lib/redis.js';
import { cpuMs, sleep, waitFor } from './lib/procs.js';
import { dcaSwappers, fundedWallet, keeperConfig, settledCount, type Venue } from './lib/venue.js';
import { benchSimUltra, type SimUltraResult } from './simUltra.js';

/** What the throughput run measured. */
export interface ThroughputResult {
  /** The venue's own round trips per second at each client count, and the simulator's CPU per round trip (ms). */
  baseline: Array<SimUltraResult & { concurrency: number; venueCpuMsPerRoundTrip: number; clientCpuMsPerRoundTrip: number }>;
  /** Swaps of the keeper settled per second in the measured window. */
  keeperPerSecond: number;
  keeperSettled: number;
  windowSeconds: number;
  concurrency: number;
  /** Worker processes besides one scheduler (0: one process of role all). */
  workers: number;
  /** CPU the keeper's process tree and the simulator used in the window, in cores (CPU seconds per second). */
  keeperCores: number;
  venueCores: number;
  redisCores: number;
  /** Intents that ended failed, expired or rejected during the run. */
  unlanded: number;
  peakRssBytes: number;
  errors: string[];
}

/** Runs the baseline then the keeper on `venue` (a simulator process used by nothing else). */
export async function benchThroughput(o: { seconds: number; baselineSeconds: number; warmupSeconds: number; baselineClients: number[]; concurrency: number; workers: number }, env: { redis: Redis; redisUrl: string; venue: Venue; dir: string }): Promise<ThroughputResult> {
  const baseline: ThroughputResult['baseline'] = [];
  for (const concurrency of o.baselineClients) {
    const cpu0 = cpuMs(env.venue.process.pid);
    // The clients run in this process: its CPU is theirs (signing, HTTP, parsing).
    const client0 = process.cpuUsage();
    const r = await benchSimUltra({ seconds: o.baselineSeconds, concurrency, url: env.venue.url });
    const client = process.cpuUsage(client0);
    const per = (ms: number) => ms / Math.max(1, r.roundTrips);
    baseline.push({ concurrency, ...r, venueCpuMsPerRoundTrip: per(cpuMs(env.venue.process.pid) - cpu0), clientCpuMsPerRoundTrip: per((client.user + client.system) / 1000) });
  }

  const prefix = benchPrefix('e2e');
  const wallet = await fundedWallet(env.venue.url, env.dir, prefix, { sol: 1_000_000_000_000n, usdc: 0n });
  // 200 instances each asking a swap a second: far more than the venue settles, so the executors never wait for work.
  const config = keeperConfig({
    venueUrl: env.venue.url,
    walletPath: wallet.path,
    prefix,
    strategies: dcaSwappers(200, '1s', 10_000_000n),
    execution: { concurrency: o.concurrency },
    feeds: { prices: '2s', wallet: '2s' },
  });
  const d = deploy({ redis: env.redis, redisUrl: env.redisUrl, dir: env.dir, prefix, config, workers: o.workers });
  try {
    await waitFor('the keeper\'s first settled swap', async () => (await settledCount(env.venue.url, wallet.address)) > 0, 90_000, 250);
    await sleep(o.warmupSeconds * 1000);
    const n0 = await settledCount(env.venue.url, wallet.address);
    const t0 = performance.now();
    const cpu0 = [d.sampler.cpuMs(), cpuMs(env.venue.process.pid), await redisCpuMs(env.redis)];
    await sleep(o.seconds * 1000);
    const n1 = await settledCount(env.venue.url, wallet.address);
    const windowSeconds = (performance.now() - t0) / 1000;
    const cpu1 = [d.sampler.cpuMs(), cpuMs(env.venue.process.pid), await redisCpuMs(env.redis)];
    const all = (await new IntentStore(env.redis, prefix).all()).filter((r) => ['failed', 'expired', 'rejected'].includes(r.state));
    return {
      baseline,
      keeperPerSecond: (n1 - n0) / windowSeconds,
      keeperSettled: n1 - n0,
      windowSeconds,
      concurrency: o.concurrency,
      workers: o.workers,
      unlanded: all.length,
      keeperCores: (cpu1[0]! - cpu0[0]!) / 1000 / windowSeconds,
      venueCores: (cpu1[1]! - cpu0[1]!) / 1000 / windowSeconds,
      redisCores: (cpu1[2]! - cpu0[2]!) / 1000 / windowSeconds,
      peakRssBytes: d.sampler.peakRss,
      errors: d.processes.flatMap((p) => p.errors()),
    };
  } finally {
    await d.stop();
  }
}
