// Tick to submit: 100 dca-swap instances due every tick in one `jup-keeper run` against the simulator. For each
// intent, from its tick (the scheduled time in its evaluate job's id) to its arrival in the execute queue (the
// server's time of BullMQ's `added` event): the keeper's whole path from the timer to the executor's queue (the
// scheduler's wake, the job taken, snapshots, states and pending intents read, 100 decisions, the risk gate, the
// commit, the enqueue). The floor is the Redis round trips that path makes one after another, counted by tracing one
// evaluation of the same shard in this process on the same Redis, times the PING round trip measured in the run.
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { loadConfig } from '../src/config/index.js';
import { evaluateShard } from '../src/engine/evaluate.js';
import type { DecisionSummary, NotionalReservation, ShardCommit } from '../src/engine/ports.js';
import { windowOf } from '../src/engine/ids.js';
import { silentLogger } from '../src/lib/logger.js';
import { KeeperQueues } from '../src/scheduler/queues.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../src/store/engineStore.js';
import { IntentStore } from '../src/store/intents.js';
import { intentKeys } from '../src/store/intentLayout.js';
import { SnapshotStore, type MarketSnapshot, type WalletSnapshot } from '../src/store/snapshots.js';
import { builtinStrategies } from '../strategies/index.js';
import { allShardsDecided, benchPrefix, deploy, evaluateRuns, shardKeys } from './lib/keepers.js';
import { sleep } from './lib/procs.js';
import { benchRedis, EventStream, eventsKey, removeKeys } from './lib/redis.js';
import { traceRoundTrips } from './lib/roundTrips.js';
import { percentile } from './lib/stats.js';
import { dcaSwappers, fundedWallet, keeperConfig, type Venue } from './lib/venue.js';

/** What the tick-to-submit run measured. */
export interface TickToSubmitResult {
  instances: number;
  ticks: number;
  /** Tick to execute-queue arrival of each intent, ms. */
  samples: number[];
  /** Tick to the evaluate job taken (the queue's part of it), ms, per tick. */
  pickupMs: number[];
  /** Sequential Redis round trips of the path (traced evaluation + the worker taking the job). */
  roundTrips: number;
  /** Intents the traced evaluation planned. */
  tracedIntents: number;
  /** The traced evaluation's own time in this otherwise idle process, from the call to the intents queued, ms. */
  inProcessMs: number;
  /** Of which, waiting on each port (the risk gate's reservations, the commit, the enqueue, the reads), ms. */
  inProcessParts: Record<string, number>;
  /** Redis's own time executing the traced evaluation's commands and scripts (INFO commandstats), ms. */
  redisMs: number;
  /** Of which, adding the planned intents to the execute queue (BullMQ's job scripts), ms. */
  redisEnqueueMs: number;
  errors: string[];
}

const INSTANCES = 100;

/** Runs 100 due instances for `ticks` ticks of `everyMs`. */
export async function benchTickToSubmit(o: { ticks: number; everyMs: number; warmupTicks: number }, env: { redis: Redis; redisUrl: string; venue: Venue; dir: string }): Promise<TickToSubmitResult> {
  const prefix = benchPrefix('t2s');
  const tracePrefix = benchPrefix('t2s-trace');
  const ids = Array.from({ length: INSTANCES }, (_, i) => `d-${i}`);
  const [shard] = shardKeys(ids, o.everyMs);
  const wallet = await fundedWallet(env.venue.url, env.dir, prefix, { sol: 1_000_000_000_000n, usdc: 0n });
  const every = `${o.everyMs / 1000}s`;
  // maxBacklog above a tick's intents: the figure is the latency of due decisions, not the backpressure's.
  const config = keeperConfig({
    venueUrl: env.venue.url,
    walletPath: wallet.path,
    prefix,
    strategies: dcaSwappers(INSTANCES, every, 10_000_000n),
    execution: { concurrency: 8, maxBacklog: 100_000 },
    feeds: { prices: '1s', wallet: '1s' },
  });
  const d = deploy({ redis: env.redis, redisUrl: env.redisUrl, dir: env.dir, prefix, config });
  const added = new EventStream(env.redis, eventsKey(prefix, 'execute'));
  try {
    await allShardsDecided(env.redis, prefix, [shard!], 60_000 + 3 * o.everyMs);
    await sleep(o.warmupTicks * o.everyMs);
    const poller = setInterval(() => void Promise.all([d.evaluate.poll(), added.poll()]).catch(() => undefined), 250);
    const t0 = Date.now();
    await sleep(o.ticks * o.everyMs);
    const t1 = Date.now();
    await sleep(1_500);
    clearInterval(poller);
    await Promise.all([d.evaluate.poll(), added.poll()]);
    const runs = evaluateRuns(d.evaluate.all).runs.filter((r) => r.scheduledAt >= t0 && r.scheduledAt < t1);
    const byWindow = new Map(runs.map((r) => [windowOf(r.scheduledAt, o.everyMs).start, r]));
    const samples: number[] = [];
    const firstAdded = new Map<string, number>();
    for (const e of added.all) if (e.event === 'added' && !firstAdded.has(e.jobId)) firstAdded.set(e.jobId, e.at);
    // The window an intent was decided in is in its record (the stored field; the parsed record leaves it out).
    const pipe = env.redis.pipeline();
    const keys = intentKeys(prefix);
    for (const id of firstAdded.keys()) pipe.hget(keys.record(id), 'windowStart');
    const windows = (await pipe.exec()) ?? [];
    [...firstAdded.entries()].forEach(([, at], i) => {
      const run = byWindow.get(Number(windows[i]?.[1]));
      if (run) samples.push(at - run.scheduledAt);
    });
    // Traced with the keeper stopped (on its latest snapshots, read first: a stopping keeper clears its paper
    // session): the process and Redis do nothing else, so Redis's own time is the path's.
    const source = new SnapshotStore(env.redis, prefix);
    const [market, wallet] = await Promise.all([source.read('market'), source.read('wallet')]);
    if (!market || !wallet) throw new Error('the keeper wrote no snapshots');
    await d.stop();
    const trace = await traceEvaluation(join(env.dir, `${prefix}.yaml`), shard!, { market, wallet }, tracePrefix, env.redisUrl, o.everyMs);
    return {
      instances: INSTANCES,
      ticks: runs.length,
      samples,
      pickupMs: runs.map((r) => r.activeAt - r.scheduledAt),
      roundTrips: trace.roundTrips + 1,
      tracedIntents: trace.intents,
      inProcessMs: trace.ms,
      inProcessParts: trace.parts,
      redisMs: trace.redisMs,
      redisEnqueueMs: trace.redisEnqueueMs,
      errors: d.processes.flatMap((p) => p.errors()),
    };
  } finally {
    await d.stop();
    await removeKeys(env.redis, [tracePrefix]);
  }
}

/**
 * The Redis round trips of one evaluation of the shard, one after another, traced in this process: the keeper's
 * config and latest snapshots, the stores and the execute queue as `jup-keeper run` wires them, on a prefix of its
 * own. The first window warms the scripts and the decision cache; the second is counted. The worker taking the job
 * (BullMQ's moveToActive) is one more round trip, added by the caller.
 */
async function traceEvaluation(configFile: string, shard: string, from: { market: MarketSnapshot; wallet: WalletSnapshot }, prefix: string, redisUrl: string, everyMs: number): Promise<{ roundTrips: number; intents: number; ms: number; parts: Record<string, number>; redisMs: number; redisEnqueueMs: number }> {
  const config = loadConfig(configFile, builtinStrategies);
  const redis = benchRedis(redisUrl);
  const queues = new KeeperQueues(redis, prefix);
  try {
    const snapshots = new SnapshotStore(redis, prefix);
    const { market, wallet } = from;
    const intents = new IntentStore(redis, prefix);
    const instances = config.strategies.map((s) => ({ id: s.id, definition: s.definition, params: s.params }));
    // Time spent waiting in each port the evaluation calls (a call's whole time, awaited by the evaluation or not).
    const parts: Record<string, number> = {};
    const timed = <A extends unknown[], R>(name: string, f: (...a: A) => Promise<R>) => async (...a: A): Promise<R> => {
      const t0 = performance.now();
      try {
        return await f(...a);
      } finally {
        parts[name] = (parts[name] ?? 0) + performance.now() - t0;
      }
    };
    const states = new StrategyStateStore(redis, prefix);
    const counters = new RiskStore(redis, prefix);
    const ledger = intentLedger(intents);
    const deps = {
      snapshots: snapshotSource(snapshots),
      ledger: { ...ledger, pendingMany: timed('pending intents read', (ids: readonly string[], since: number) => ledger.pendingMany(ids, since)) },
      states: { loadShard: timed('states read', (shard: string, ids: readonly string[]) => states.loadShard(shard, ids)), commitShard: timed('commit', (shard: string, c: ShardCommit) => states.commitShard(shard, c)), recordDecisions: (d: ReadonlyMap<string, DecisionSummary>) => states.recordDecisions(d) },
      counters: Object.assign(Object.create(counters) as RiskStore, { reserveNotionalMany: timed('risk reservations', (rs: readonly NotionalReservation[], now: number) => counters.reserveNotionalMany(rs, now)) }),
      enqueue: (id: string) => queues.enqueueIntent(id),
      enqueueMany: timed('enqueue', async (list: readonly string[]) => {
        const before = serverTime ? await redisServerMs(stats) : 0;
        await queues.enqueueIntents(list);
        if (serverTime) enqueueServerMs = (await redisServerMs(stats)) - before;
      }),
      backlog: () => intents.countInState('planned'),
      maxBacklog: config.execution.maxBacklog,
      limits: config.risk,
      maxIntentsPerEvaluation: config.risk.maxIntentsPerEvaluation,
      deadlineMs: config.execution.deadline,
      maxPriceAgeMs: config.feeds.maxPriceAge,
      maxWalletAgeMs: config.feeds.maxWalletAge,
      logger: silentLogger,
      decisionCache: new Map<string, string>(),
    };
    const tracer = traceRoundTrips(redis);
    let counted = { roundTrips: 0, intents: 0, ms: 0, parts: { ...parts }, redisMs: 0, redisEnqueueMs: 0 };
    // Redis's own time, read on a connection of its own around a window of its own (the reads would be in the time).
    const stats = benchRedis(redisUrl);
    let serverTime = false;
    let enqueueServerMs = 0;
    const base = Date.now();
    // The first window warms the scripts and the decision cache, the second is timed, the third gives Redis's time.
    for (let w = 0; w < 3; w += 1) {
      const now = Date.now();
      await snapshots.write('market', { ...market, at: now });
      await snapshots.write('wallet', { ...wallet, at: now });
      tracer.reset();
      for (const k of Object.keys(parts)) delete parts[k];
      serverTime = w === 2;
      const before = serverTime ? await redisServerMs(stats) : 0;
      const t0 = performance.now();
      const out = await evaluateShard({ key: shard, instances }, windowOf(base + w * everyMs, everyMs), now, deps);
      const ms = performance.now() - t0;
      if (serverTime) {
        counted.redisMs = (await redisServerMs(stats)) - before;
        counted.redisEnqueueMs = enqueueServerMs;
      } else {
        counted = { ...counted, roundTrips: tracer.roundTrips(), intents: [...out.values()].reduce((n, s) => n + s.intents.length, 0), ms, parts: { ...parts } };
      }
    }
    tracer.restore();
    stats.disconnect();
    return counted;
  } finally {
    await queues.close();
    redis.disconnect();
  }
}

/** Redis's time executing commands since it started (or since CONFIG RESETSTAT), from INFO commandstats, ms. */
async function redisServerMs(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  let us = 0;
  for (const m of info.matchAll(/^cmdstat_(\w+(?:\|\w+)?):calls=\d+,usec=(\d+)/gm)) if (m[1] !== 'info') us += Number(m[2]);
  return us / 1000;
}

/** p50/p99 of the samples. */
export function tickToSubmitStats(r: TickToSubmitResult): { p50: number; p99: number; pickupP50: number } {
  return { p50: percentile(r.samples, 0.5), p99: percentile(r.samples, 0.99), pickupP50: percentile(r.pickupMs, 0.5) };
}
