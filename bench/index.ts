// `npm run bench [-- --quick] [-- --only tick,prices,evaluation,startup,throughput,rate]`: the project's speed
// figures, measured against a real Redis (REDIS_URL, default redis://127.0.0.1:6379), the simulator over real HTTP
// and real `jup-keeper run` processes. Prints a table and writes bench/results.json. Targets live here, never in
// timed tests. `--quick` runs every figure in under two minutes: fewer ticks, shorter windows, a faster cadence and
// 20,000 instances in two workers instead of 100,000 in three (each figure's note says what it ran). Every process the benchmark starts
// is stopped and every Redis key it wrote is removed, however it ends. BENCH_CPU_PROF=<dir> profiles every process.
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { benchEvaluation, summarize, type EvaluationResult } from './evaluation.js';
import { scratch } from './lib/keepers.js';
import { killAllNow, ROOT, stopAll, stopProcesses } from './lib/procs.js';
import { benchRedis, pingStats, redisVersion, removeAllKeys } from './lib/redis.js';
import { atLeast, atMost, exactly, failed, info, mb, percentile, type Figure } from './lib/stats.js';
import { startVenue, type Venue } from './lib/venue.js';
import { benchPriceRequests } from './prices.js';
import { benchRateBudget, TIER_RPM } from './rateBudget.js';
import { benchStartup } from './startup.js';
import { benchThroughput } from './throughput.js';
import { benchTickToSubmit, tickToSubmitStats } from './tickToSubmit.js';

const GROUPS = ['tick', 'prices', 'evaluation', 'startup', 'throughput', 'rate'] as const;
type Group = (typeof GROUPS)[number];

const { values } = parseArgs({ options: { quick: { type: 'boolean', default: false }, only: { type: 'string' } } });
const quick = values.quick === true;
const only = new Set((values.only?.split(',') ?? GROUPS) as Group[]);

/** What each mode runs. */
const PLAN = quick
  ? {
      pings: 300,
      tick: { everyMs: 3_000, warmupTicks: 0, ticks: 3 },
      pricesSeconds: 8,
      evaluation: [
        { instances: 1_000, workers: 0, everyMs: 2_000, warmupTicks: 0, ticks: 2 },
        { instances: 10_000, workers: 0, everyMs: 2_000, warmupTicks: 0, ticks: 2 },
        { instances: 20_000, workers: 2, everyMs: 2_000, warmupTicks: 0, ticks: 2 },
      ],
      startupEveryMs: 2_000,
      throughput: { seconds: 5, baselineSeconds: 4, warmupSeconds: 1, baselineClients: [16], concurrency: 16, workers: 0 },
      rate: { seconds: 10, warmupSeconds: 1 },
    }
  : {
      pings: 1_000,
      tick: { everyMs: 5_000, warmupTicks: 1, ticks: 12 },
      pricesSeconds: 31,
      evaluation: [
        { instances: 1_000, workers: 0, everyMs: 5_000, warmupTicks: 1, ticks: 6 },
        { instances: 10_000, workers: 0, everyMs: 5_000, warmupTicks: 1, ticks: 6 },
        { instances: 100_000, workers: 3, everyMs: 5_000, warmupTicks: 1, ticks: 6 },
      ],
      startupEveryMs: 5_000,
      throughput: { seconds: 30, baselineSeconds: 10, warmupSeconds: 3, baselineClients: [1, 4, 16], concurrency: 16, workers: 0 },
      rate: { seconds: 60, warmupSeconds: 5 },
    };

const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redis = benchRedis(redisUrl);
const work = scratch('run');
const startedAt = Date.now();
const figures: Figure[] = [];
const fmt = (n: number, d = 1) => n.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: 0 });

let cleaning: Promise<void> | undefined;
/** Stops every process and removes every key and file of the run; safe to call twice. */
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    await stopAll().catch(() => undefined);
    await removeAllKeys(redis).catch((err: unknown) => console.error(`could not remove the benchmark's Redis keys: ${String(err)}`));
    work.remove();
  })();
  return cleaning;
}
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark's processes and removing its keys`);
    void cleanup().finally(() => process.exit(130));
  });
}

/** Runs a group; on failure its figures are reported unmeasured with the reason. */
async function group(name: Group, expected: Array<{ name: string; unit: string; target: string | null }>, run: () => Promise<Figure[]>): Promise<void> {
  if (!only.has(name)) return;
  const t0 = performance.now();
  try {
    const out = await run();
    figures.push(...out);
    for (const f of out) console.log(`  ${f.name}: ${f.value === null ? '-' : fmt(f.value, 2)} ${f.unit}${f.target ? ` (target ${f.target}${f.met ? ', met' : ', MISSED'})` : ''}`);
  } catch (err) {
    const why = err instanceof Error ? err.message.split('\n')[0]! : String(err);
    console.error(`  ${name} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    figures.push(...expected.map((e) => failed(e.name, e.unit, e.target, why)));
  }
  console.log(`  (${name}: ${fmt((performance.now() - t0) / 1000)} s)`);
}

let shared: Venue | undefined;
async function sharedVenue(): Promise<Venue> {
  shared ??= await startVenue();
  return shared;
}

const ping = await pingStats(redis, PLAN.pings);
const machine = {
  cpus: os.cpus().length,
  cpuModel: os.cpus()[0]?.model ?? 'unknown',
  memoryMB: Math.round(mb(os.totalmem())),
  node: process.version,
  redis: await redisVersion(redis),
  redisUrl: redisUrl.replace(/\/\/[^@/]*@/, '//'),
  loadAverageAtStart: os.loadavg().map((l) => Number(l.toFixed(2))),
  platform: `${os.platform()} ${os.release()}`,
};
console.log(`jup-keeper benchmarks (${quick ? 'quick' : 'full'}): ${machine.cpus} CPUs, ${machine.memoryMB} MB, node ${machine.node}, Redis ${machine.redis}, load ${machine.loadAverageAtStart.join(' ')}`);
figures.push(info('Redis round trip (PING), p50', ping.p50, 'ms', { note: `${PLAN.pings} sequential PINGs; p99 ${fmt(ping.p99, 3)} ms` }));
console.log(`  Redis PING p50 ${fmt(ping.p50, 3)} ms, p99 ${fmt(ping.p99, 3)} ms`);

try {
  const env = async () => ({ redis, redisUrl, venue: await sharedVenue(), dir: work.dir });

  console.log(`\n[tick] 100 dca-swap instances due every ${PLAN.tick.everyMs / 1000} s, ${PLAN.tick.ticks} ticks`);
  await group(
    'tick',
    [
      { name: 'tick to submit p50, above the floor (100 instances due)', unit: 'ms', target: '<= 5' },
      { name: 'tick to submit p99, above the floor (100 instances due)', unit: 'ms', target: '<= 25' },
    ],
    async () => {
      const r = await benchTickToSubmit(PLAN.tick, await env());
      const s = tickToSubmitStats(r);
      const floor = r.roundTrips * ping.p50;
      const note = `tick (scheduled time of the evaluate job) to the intent's arrival in the execute queue (BullMQ 'added' event, server time), one jup-keeper run executing the swaps meanwhile; ${r.samples.length} intents over ${r.ticks} ticks of ${PLAN.tick.everyMs / 1000} s; raw p50 ${fmt(s.p50)} ms, p99 ${fmt(s.p99)} ms; floor = ${r.roundTrips} sequential Redis round trips (traced in process over an evaluation planning ${r.tracedIntents} intents, +1 the job taken) x PING p50 ${fmt(ping.p50, 3)} ms; tick to job taken p50 ${fmt(s.pickupP50)} ms; the same evaluation traced in the benchmark's process with the keeper stopped (its second run, not yet warm): ${fmt(r.inProcessMs)} ms (${Object.entries(r.inProcessParts).map(([k, v]) => `${k} ${fmt(v)} ms`).join(', ')}); Redis's own time executing that evaluation: ${fmt(r.redisMs)} ms, of which BullMQ adding the ${r.tracedIntents} execute jobs ${fmt(r.redisEnqueueMs)} ms${errorsNote(r.errors)}`;
      return [atMost('tick to submit p50, above the floor (100 instances due)', s.p50 - floor, 'ms', 5, { floor, note }), atMost('tick to submit p99, above the floor (100 instances due)', s.p99 - floor, 'ms', 25, { floor, note: `raw p99 ${fmt(s.p99)} ms` })];
    },
  );

  console.log(`\n[prices] 1,000 instances over 500 mints and 2 prediction categories, ${PLAN.pricesSeconds} s`);
  await group(
    'prices',
    [
      { name: 'price requests per market tick (1,000 instances, 500 mints)', unit: 'requests', target: '== 10' },
      { name: 'prediction events requests per prediction tick (2 categories)', unit: 'requests', target: '== 2' },
    ],
    async () => {
      const r = await benchPriceRequests({ seconds: PLAN.pricesSeconds }, { redis, redisUrl, dir: work.dir });
      const wanted = Math.ceil(r.mints / 50);
      // Every tick must make exactly n: the figure is n when all did, else the first tick that did not.
      const all = (list: number[], n: number) => list.find((x) => x !== n) ?? n;
      return [
        exactly('price requests per market tick (1,000 instances, 500 mints)', r.pricePerTick.length === 0 ? null : all(r.pricePerTick, wanted), 'requests', wanted, {
          note: `counted at the simulator per feed job; ${r.pricePerTick.length} market ticks: [${r.pricePerTick.join(', ')}]; requests outside any feed job: ${r.unattributed}; bench/watchKeeper.ts (jup-keeper run with a watching strategy registered)${errorsNote(r.errors)}`,
        }),
        exactly('prediction events requests per prediction tick (2 categories)', r.eventsPerTick.length === 0 ? null : all(r.eventsPerTick, r.categories), 'requests', r.categories, {
          note: `${r.eventsPerTick.length} prediction ticks: [${r.eventsPerTick.join(', ')}]: each watched category fetched once per tick for all ${r.instances} instances`,
        }),
      ];
    },
  );

  const evals: EvaluationResult[] = [];
  console.log(`\n[evaluation] ${PLAN.evaluation.map((e) => `${fmt(e.instances)} instances (${e.workers ? `1 scheduler + ${e.workers} workers` : 'one process'})`).join(', ')}`);
  await group(
    'evaluation',
    PLAN.evaluation.flatMap((e) => [
      { name: `evaluation time per tick, ${fmt(e.instances)} instances`, unit: 'ms', target: e.instances === 10_000 ? '<= 200' : null },
      { name: `p99 lag after the tick, ${fmt(e.instances)} instances`, unit: 'ms', target: e.instances === 10_000 ? '<= 1000' : null },
      { name: `peak RSS of the process tree, ${fmt(e.instances)} instances`, unit: 'MB', target: e.instances === 10_000 ? '<= 512' : null },
    ]),
    async () => {
      const out: Figure[] = [];
      for (const run of PLAN.evaluation) {
        const r = await benchEvaluation(run, await env());
        evals.push(r);
        const s = summarize(r);
        const label = fmt(r.instances);
        const procs = r.workers ? `1 scheduler + ${r.workers} worker processes` : 'one jup-keeper run process';
        const note = `${procs}, ${r.shards} shards, every ${r.everyMs / 1000} s, ${r.tickMs.length} ticks measured; time some shard of the tick was being evaluated (max ${fmt(Math.max(...r.tickMs))} ms; from the first shard's start to the last one's end p50 ${fmt(percentile(r.tickSpanMs, 0.5))} ms); shard job p50 ${fmt(percentile(r.shardRunMs, 0.5))} ms; keeper CPU ${fmt(r.keeperCpuMsPerTick)} ms/tick, Redis CPU ${fmt(r.redisCpuMsPerTick)} ms/tick; failed jobs ${r.failed}, shards that skipped ${r.undecided}${errorsNote(r.errors)}`;
        const ten = r.instances === 10_000;
        out.push(ten ? atMost(`evaluation time per tick, ${label} instances`, s.tickP50, 'ms', 200, { note }) : info(`evaluation time per tick, ${label} instances`, s.tickP50, 'ms', { note }));
        out.push(ten ? atMost(`p99 lag after the tick, ${label} instances`, s.lagP99, 'ms', 1_000, { note: 'shard job finished minus its scheduled tick' }) : info(`p99 lag after the tick, ${label} instances`, s.lagP99, 'ms'));
        const rssNote = `sum over the keeper processes sampled every 100 ms from spawn (config load included; ${fmt(mb(r.steadyRssBytes))} MB after the measured ticks); simulator and Redis not counted`;
        out.push(ten ? atMost(`peak RSS of the process tree, ${label} instances`, mb(r.peakRssBytes), 'MB', 512, { note: rssNote }) : info(`peak RSS of the process tree, ${label} instances`, mb(r.peakRssBytes), 'MB', { note: rssNote }));
      }
      const small = evals.find((e) => e.instances === 1_000);
      const big = evals.at(-1);
      if (small && big && big !== small) {
        const cost = (e: EvaluationResult) => (e.keeperCpuMsPerTick + e.redisCpuMsPerTick) / e.instances;
        const ratio = cost(big) / cost(small);
        const perTick = evals.map((e) => `${fmt(e.keeperCpuMsPerTick + e.redisCpuMsPerTick)} ms at ${fmt(e.instances)}`).join(', ');
        const exponent = (a: EvaluationResult, b: EvaluationResult) => fmt(Math.log((cost(b) * b.instances) / (cost(a) * a.instances)) / Math.log(b.instances / a.instances), 3);
        const middle = evals.find((e) => e.instances === 10_000);
        out.push(
          atMost(`cost per instance per tick, ${fmt(big.instances)} vs 1,000 instances`, ratio, 'x', 1, {
            note: `CPU of the keepers and Redis per tick per instance: ${fmt(cost(small) * 1000, 2)} us at 1,000, ${fmt(cost(big) * 1000, 2)} us at ${fmt(big.instances)} (growth exponent ${exponent(small, big)}; 1 is linear${middle && middle !== big ? `; from 10,000 to ${fmt(big.instances)}: ${exponent(middle, big)}` : ''}); CPU per tick: ${perTick}`,
          }),
        );
      }
      const ten = evals.find((e) => e.instances === 10_000);
      if (ten) out.push(atMost('start-up to the first evaluation, 10,000 instances', ten.startupMs, 'ms', 5_000, { note: `spawn to every shard's first evaluate job finished (the 10,000-instance run above); to every shard's first decision on snapshots: ${fmt(ten.firstDecisionMs)} ms` }));
      return out;
    },
  );

  console.log('\n[startup] 10 instances');
  await group('startup', [{ name: 'start-up to the first evaluation, 10 instances', unit: 'ms', target: '<= 2000' }], async () => {
    const r = await benchStartup({ instances: 10, everyMs: PLAN.startupEveryMs }, await env());
    return [atMost('start-up to the first evaluation, 10 instances', r.firstEvaluationMs, 'ms', 2_000, { note: `spawn of jup-keeper run to its shard's first evaluate job finished (to its 'keeper started' log line: ${r.startedMs === undefined ? '-' : fmt(r.startedMs)} ms); to the first decision on snapshots: ${fmt(r.firstDecisionMs)} ms${errorsNote(r.errors)}` })];
  });
  if (shared) {
    await stopProcesses([shared.process]);
    shared = undefined;
  }

  console.log(`\n[throughput] venue baseline ${PLAN.throughput.baselineClients.join('/')} clients x ${PLAN.throughput.baselineSeconds} s, then the keeper for ${PLAN.throughput.seconds} s`);
  await group('throughput', [{ name: 'executed intents per second, share of the venue\'s own round trips', unit: 'ratio', target: '>= 0.8' }], async () => {
    const venue = await startVenue();
    try {
      const r = await benchThroughput(PLAN.throughput, { redis, redisUrl, venue, dir: work.dir });
      const best = r.baseline.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
      // CPU per executed intent, ms, of each process the keeper's path runs in (all on this machine's cores).
      const perIntent = (cores: number) => (cores * 1000) / r.keeperPerSecond;
      const baselineMs = best.venueCpuMsPerRoundTrip + best.clientCpuMsPerRoundTrip;
      return [
        atLeast('executed intents per second, share of the venue\'s own round trips', r.keeperPerSecond / best.perSecond, 'ratio', 0.8, {
          note: `keeper ${fmt(r.keeperPerSecond)} swaps settled/s (${r.keeperSettled} in ${fmt(r.windowSeconds)} s, one jup-keeper run, execution.concurrency ${r.concurrency}, rate limit off; keeper ${fmt(r.keeperCores, 2)} cores, simulator ${fmt(r.venueCores, 2)} cores, Redis ${fmt(r.redisCores, 2)} cores: per executed intent ${fmt(perIntent(r.keeperCores), 1)} ms of keeper CPU, ${fmt(perIntent(r.venueCores), 1)} ms of simulator CPU and ${fmt(perIntent(r.redisCores), 1)} ms of Redis CPU); venue's own order+execute ${r.baseline.map((b) => `${fmt(b.perSecond)}/s at ${b.concurrency} clients (${fmt(b.venueCpuMsPerRoundTrip, 1)} ms of simulator CPU and ${fmt(b.clientCpuMsPerRoundTrip, 1)} ms of client CPU each)`).join(', ')} on the same simulator process; every process shares the same ${os.cpus().length} cores, so the ratio follows the whole CPU per round trip: ${fmt(baselineMs, 1)} ms for the baseline's (simulator and client) against ${fmt(perIntent(r.keeperCores + r.venueCores + r.redisCores), 1)} ms per keeper intent; with the simulator's ${fmt(perIntent(r.venueCores), 1)} ms per keeper intent (its order and execute, the guard's simulation and reads of docs/architecture.md, "The pre-sign guard", the confirmations), 0.8 needs the keeper and Redis together under ${fmt(Math.max(0, baselineMs / 0.8 - perIntent(r.venueCores)), 1)} ms per intent; unlanded intents ${r.unlanded}${errorsNote(r.errors)}`,
        }),
        info('executed intents per second end to end', r.keeperPerSecond, 'intents/s'),
        info('keeper CPU per executed intent', perIntent(r.keeperCores), 'ms', { note: 'the jup-keeper run process tree (build, guard, sign, submit, confirm, the ledger, the queues, evaluation and feeds)' }),
        info('venue order+execute round trips per second (best)', best.perSecond, 'round trips/s', { note: `${best.concurrency} clients, order p50 ${fmt(best.orderP50)} ms, execute p50 ${fmt(best.executeP50)} ms` }),
      ];
    } finally {
      await stopProcesses([venue.process]);
    }
  });

  console.log(`\n[rate] developer tier (${TIER_RPM}/min), ten times the demand, ${PLAN.rate.seconds} s`);
  await group(
    'rate',
    [
      { name: 'rate budget used', unit: '%', target: '>= 95' },
      { name: '429s seen', unit: 'responses', target: '== 0' },
      { name: 'execute queue peak under ten times the demand', unit: 'jobs', target: null },
    ],
    async () => {
      const apiKey = `bench_${process.pid}_${Date.now()}`;
      const venue = await startVenue({ apiKeys: [`${apiKey}:developer`] });
      try {
        const r = await benchRateBudget({ ...PLAN.rate, apiKey }, { redis, redisUrl, venue, dir: work.dir });
        const note = `${r.allowed} requests let through in ${fmt(r.windowSeconds)} s (the tier allows ${fmt((TIER_RPM * r.windowSeconds) / 60)}); demand ${r.demandPerSecond} requests/s from 50 dca-swap instances (an Ultra order and execute each a second) plus the feeds; ${r.swapsSettled} swaps settled${errorsNote(r.errors)}`;
        return [
          atLeast('rate budget used', r.share * 100, '%', 95, { note }),
          exactly('429s seen', r.tooMany, 'responses', 0),
          atMost('execute queue peak under ten times the demand', r.peakQueue, 'jobs', r.queueBound, {
            note: `waiting+delayed+active sampled every second; peak in the last half ${r.peakQueueLastHalf}; bound = execution.maxBacklog 100 + one window of 50 decisions + 4 executions in hand`,
          }),
        ];
      } finally {
        await stopProcesses([venue.process]);
      }
    },
  );
} finally {
  await cleanup();
}

function errorsNote(errors: readonly string[]): string {
  return errors.length === 0 ? '' : `; ${errors.length} error log lines, first: ${errors[0]!.slice(0, 200)}`;
}

const seconds = (Date.now() - startedAt) / 1000;
printTable(figures);
console.log(`\n${quick ? 'quick' : 'full'} run: ${fmt(seconds)} s; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
const file = join(ROOT, 'bench/results.json');
writeFileSync(file, `${JSON.stringify({ machine, run: { mode: quick ? 'quick' : 'full', startedAt: new Date(startedAt).toISOString(), seconds: Number(seconds.toFixed(1)), groups: [...only] }, figures }, null, 2)}\n`);
console.log(`wrote ${file}`);
redis.disconnect();

function printTable(list: readonly Figure[]): void {
  const rows = list.map((f) => [f.name, f.value === null ? '-' : fmt(f.value, 2), f.unit, f.floor === null ? '' : fmt(f.floor, 2), f.target ?? '', f.met === null ? '' : f.met ? 'yes' : 'NO']);
  const head = ['figure', 'value', 'unit', 'floor', 'target', 'met'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) => r.map((c, i) => (i === 1 || i === 3 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join('  ');
  console.log(`\n${line(head)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(line(r));
}
