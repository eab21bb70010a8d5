// Evaluation at scale: N threshold-rebalance instances (in band: they decide every tick and never trade) in
// `jup-keeper run` processes against the simulator. Per tick: the wall time from the first shard's start to the last
// shard's end, the lag of each shard's end after its tick, the CPU of the keepers' process trees and of Redis;
// over the run: the peak resident memory of the process trees; and the start-up to the first evaluation.
import type { Redis } from 'ioredis';
import { allShardsDecided, allShardsEvaluated, benchPrefix, deploy, evaluateRuns, shardKeys, shardWindows, type EvaluateRun } from './lib/keepers.js';
import { sleep } from './lib/procs.js';
import { redisCpuMs } from './lib/redis.js';
import { percentile } from './lib/stats.js';
import { fundedWallet, idleRebalancers, keeperConfig, type Venue } from './lib/venue.js';

/** One evaluation run. */
export interface EvaluationRun {
  instances: number;
  /** Worker processes besides one scheduler; 0: one process of role `all`. */
  workers: number;
  everyMs: number;
  /** Ticks measured after the first decisions and `warmupTicks`. */
  ticks: number;
  warmupTicks: number;
}

/** What one run measured. */
export interface EvaluationResult extends EvaluationRun {
  shards: number;
  /** Per measured tick: the time some shard of the tick was being evaluated, ms. */
  tickMs: number[];
  /** Per measured tick: first shard started to last shard finished, ms (the schedulers' offsets spread it). */
  tickSpanMs: number[];
  /** Per shard evaluation: finished minus started, ms. */
  shardRunMs: number[];
  /** Per shard evaluation: finished minus its tick's scheduled time, ms. */
  lagMs: number[];
  /** CPU of the keepers' process trees per tick, ms. */
  keeperCpuMsPerTick: number;
  /** CPU of the Redis server per tick, ms (server-wide: other clients of the server count too). */
  redisCpuMsPerTick: number;
  peakRssBytes: number;
  /** Resident memory of the process trees at the end of the measured ticks. */
  steadyRssBytes: number;
  /** Spawn to every shard's first evaluation finished, ms. */
  startupMs: number;
  /** Spawn to every shard's first decision on snapshots committed, ms. */
  firstDecisionMs: number;
  /** Evaluate jobs that failed during the run. */
  failed: number;
  /** Shards whose applied window did not reach the last measured tick (they skipped instead of deciding). */
  undecided: number;
  /** Error log lines of the keepers. */
  errors: string[];
}

/** Runs N instances for a few ticks and measures them; everything it started is stopped and removed at the end. */
export async function benchEvaluation(run: EvaluationRun, env: { redis: Redis; redisUrl: string; venue: Venue; dir: string }): Promise<EvaluationResult> {
  const prefix = benchPrefix(`eval${run.instances}`);
  const ids = Array.from({ length: run.instances }, (_, i) => `r-${i}`);
  const shards = shardKeys(ids, run.everyMs);
  const wallet = await fundedWallet(env.venue.url, env.dir, prefix, { sol: 10_000_000_000n, usdc: 2_000_000_000n });
  const every = `${run.everyMs / 1000}s`;
  const config = keeperConfig({ venueUrl: env.venue.url, walletPath: wallet.path, prefix, strategies: idleRebalancers(run.instances, every), feeds: { prices: every, wallet: every } });
  const d = deploy({ redis: env.redis, redisUrl: env.redisUrl, dir: env.dir, prefix, config, workers: run.workers });
  try {
    const spawnedAt = Math.min(...d.processes.map((p) => p.spawnedAt));
    // Loading a large config takes a while (see the report); the first tick can be far from the spawn.
    const loadAllowanceMs = 60_000 + run.instances;
    const evaluatedAt = await allShardsEvaluated(d, shards, 0, loadAllowanceMs);
    const decidedAt = await allShardsDecided(env.redis, prefix, shards, 3 * run.everyMs + 30_000);
    await sleep(run.warmupTicks * run.everyMs);
    const poller = setInterval(() => void d.evaluate.poll().catch(() => undefined), 500);
    const t0 = Date.now();
    const cpu0 = d.sampler.cpuMs();
    const redis0 = await redisCpuMs(env.redis);
    await sleep(run.ticks * run.everyMs);
    const t1 = Date.now();
    const cpu1 = d.sampler.cpuMs();
    const steadyRssBytes = d.sampler.rssNow();
    const redis1 = await redisCpuMs(env.redis);
    clearInterval(poller);
    // Every tick of the window finished: each shard has `ticks` runs scheduled in [t0, t1).
    const measured = await completedRuns(d, shards, t0, t1, run.everyMs * 3);
    const windows = await shardWindows(env.redis, prefix, shards);
    const lastTick = Math.max(...measured.map((r) => r.scheduledAt));
    const undecided = windows.filter((w) => w === null || w + run.everyMs < lastTick).length;
    const ticks = (t1 - t0) / run.everyMs;
    const { failed } = evaluateRuns(d.evaluate.all);
    return {
      ...run,
      shards: shards.length,
      ...tickTimes(measured, shards.length, run.everyMs),
      shardRunMs: measured.map((r) => r.completedAt - r.activeAt),
      lagMs: measured.map((r) => r.completedAt - r.scheduledAt),
      keeperCpuMsPerTick: (cpu1 - cpu0) / ticks,
      redisCpuMsPerTick: (redis1 - redis0) / ticks,
      peakRssBytes: d.sampler.peakRss,
      steadyRssBytes,
      startupMs: evaluatedAt - spawnedAt,
      firstDecisionMs: decidedAt - spawnedAt,
      failed,
      undecided,
      errors: d.processes.flatMap((p) => p.errors()),
    };
  } finally {
    await d.stop();
  }
}

/** The runs of ticks scheduled in [t0, t1), once each shard has them all (waits up to `timeoutMs`). */
async function completedRuns(d: ReturnType<typeof deploy>, shards: readonly string[], t0: number, t1: number, timeoutMs: number): Promise<EvaluateRun[]> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await d.evaluate.poll();
    const runs = evaluateRuns(d.evaluate.all).runs.filter((r) => r.scheduledAt >= t0 && r.scheduledAt < t1);
    // A tick scheduled just before t1 may still be running: wait for it, or for the timeout.
    const pending = Date.now() < t1 + 2_000 || runs.length < shards.length;
    if (!pending || Date.now() > until) return runs;
    const byShard = new Map<string, number>();
    for (const r of runs) byShard.set(r.shard, (byShard.get(r.shard) ?? 0) + 1);
    const least = Math.min(...shards.map((s) => byShard.get(s) ?? 0));
    const most = Math.max(...shards.map((s) => byShard.get(s) ?? 0));
    if (least === most && Date.now() > t1 + 500) return runs;
    await sleep(100);
  }
}

/**
 * Per tick: the time some shard of the tick was being evaluated (the union of the runs' intervals: the evaluation
 * time) and the span from the first start to the last end, ms; only ticks every shard ran in. A tick's runs are
 * those scheduled within half a cadence of each other (each shard's scheduler has its own offset: the schedulers
 * were upserted one after another, so their ticks are spread over the time the upserts took).
 */
function tickTimes(runs: readonly EvaluateRun[], shardCount: number, everyMs: number): { tickMs: number[]; tickSpanMs: number[] } {
  const out = { tickMs: [] as number[], tickSpanMs: [] as number[] };
  if (runs.length === 0) return out;
  const first = Math.min(...runs.map((r) => r.scheduledAt));
  const byTick = new Map<number, EvaluateRun[]>();
  for (const r of runs) {
    const k = Math.round((r.scheduledAt - first) / everyMs);
    byTick.set(k, [...(byTick.get(k) ?? []), r]);
  }
  for (const [, tick] of [...byTick.entries()].sort(([a], [b]) => a - b)) {
    if (new Set(tick.map((r) => r.shard)).size !== shardCount) continue;
    const sorted = [...tick].sort((a, b) => a.activeAt - b.activeAt);
    let busy = 0;
    let end = -Infinity;
    for (const r of sorted) {
      if (r.completedAt <= end) continue;
      busy += r.completedAt - Math.max(r.activeAt, end);
      end = r.completedAt;
    }
    out.tickMs.push(busy);
    out.tickSpanMs.push(Math.max(...tick.map((r) => r.completedAt)) - sorted[0]!.activeAt);
  }
  return out;
}

/** p50 and p99 of a run's tick times and lags, for the report. */
export function summarize(r: EvaluationResult): { tickP50: number; tickMax: number; lagP99: number } {
  return { tickP50: percentile(r.tickMs, 0.5), tickMax: Math.max(...r.tickMs), lagP99: percentile(r.lagMs, 0.99) };
}
