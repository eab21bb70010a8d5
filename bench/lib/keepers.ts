// Keeper deployments of the benchmark: `jup-keeper run` processes on one Redis and prefix, their evaluate jobs read
// from BullMQ's event stream (server time), their memory and CPU from /proc.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { planShards } from '../../src/engine/shards.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { spawnKeeperProcess, stopProcesses, TreeSampler, type BenchProcess } from './procs.js';
import { EventStream, eventsKey, removeKeys, written, type QueueEvent } from './redis.js';

/** A scratch directory removed at the end of the benchmark. */
export function scratch(label: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `jk-bench-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A unique prefix for one run of one figure (removed when the run ends). */
export function benchPrefix(label: string): string {
  const prefix = `bench-${process.pid.toString(36)}-${label}`.slice(0, 32);
  written.prefixes.add(prefix);
  return prefix;
}


/** Keeper processes sharing a config, Redis and prefix. */
export interface Deployment {
  prefix: string;
  processes: BenchProcess[];
  sampler: TreeSampler;
  /** The evaluate queue's event stream. */
  evaluate: EventStream;
  stop(): Promise<void>;
}

/**
 * Writes `config` and starts `jup-keeper run` with it: one process of role `all`, or (workers > 0) one scheduler and
 * `workers` processes of role worker. Their process trees are sampled from the moment they are spawned.
 */
export function deploy(o: { redis: Redis; redisUrl: string; dir: string; prefix: string; config: string; workers?: number; env?: Record<string, string>; extraKeys?: string[] }): Deployment {
  const file = join(o.dir, `${o.prefix}.yaml`);
  writeFileSync(file, o.config);
  const args = (role: string) => ['run', '--config', file, '--redis-url', o.redisUrl, '--prefix', o.prefix, '--role', role];
  const processes: BenchProcess[] = [];
  if (!o.workers) processes.push(spawnKeeperProcess(`${o.prefix} all`, args('all'), o.env));
  else {
    processes.push(spawnKeeperProcess(`${o.prefix} scheduler`, args('scheduler'), o.env));
    for (let i = 1; i <= o.workers; i += 1) processes.push(spawnKeeperProcess(`${o.prefix} worker ${i}`, args('worker'), o.env));
  }
  for (const k of o.extraKeys ?? []) written.patterns.add(k);
  const sampler = new TreeSampler(() => processes.filter((p) => p.proc.exitCode === null).map((p) => p.pid)).start();
  return {
    prefix: o.prefix,
    processes,
    sampler,
    evaluate: new EventStream(o.redis, eventsKey(o.prefix, 'evaluate')),
    stop: async () => {
      sampler.stop();
      await stopProcesses(processes);
      await removeKeys(o.redis, [o.prefix], o.extraKeys ?? []);
    },
  };
}

/** Throws if a process of the deployment has exited (with its log tail). */
export function assertRunning(d: Deployment): void {
  for (const p of d.processes) {
    if (p.proc.exitCode !== null || p.proc.signalCode !== null) throw new Error(`${p.name} exited (${String(p.proc.exitCode ?? p.proc.signalCode)}):\n${p.tail()}`);
  }
}

/** The shard keys a config of `ids` at one `every` cadence has (as every keeper computes them). */
export function shardKeys(ids: readonly string[], everyMs: number, shardSize = 500): string[] {
  return planShards(ids.map((id) => ({ id, cadence: { every: everyMs } })), shardSize).map((s) => s.key);
}

/** One evaluate job as its events tell it: shard, the tick it was for, when it started and finished (server ms). */
export interface EvaluateRun {
  shard: string;
  scheduledAt: number;
  activeAt: number;
  completedAt: number;
}

/** Evaluate jobs of shard schedulers that completed, from the queue's events. Failed ones are counted apart. */
export function evaluateRuns(events: readonly QueueEvent[]): { runs: EvaluateRun[]; failed: number } {
  const active = new Map<string, number>();
  const runs: EvaluateRun[] = [];
  let failed = 0;
  for (const e of events) {
    const m = /^repeat:evaluate-([^:]+):(\d+)$/.exec(e.jobId);
    if (!m) continue;
    if (e.event === 'active') active.set(e.jobId, e.at);
    else if (e.event === 'failed') failed += 1;
    else if (e.event === 'completed' && active.has(e.jobId)) runs.push({ shard: m[1]!, scheduledAt: Number(m[2]), activeAt: active.get(e.jobId)!, completedAt: e.at });
  }
  return { runs, failed };
}

/** Waits until every shard has an evaluate job completed at or after `since`; returns the time of the last one. */
export async function allShardsEvaluated(d: Deployment, shards: readonly string[], since: number, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    await d.evaluate.poll();
    assertRunning(d);
    const done = new Map<string, number>();
    for (const r of evaluateRuns(d.evaluate.all).runs) if (r.completedAt >= since && !done.has(r.shard)) done.set(r.shard, r.completedAt);
    if (shards.every((s) => done.has(s))) return Math.max(...done.values());
    if (Date.now() > until) throw new Error(`${shards.length - done.size} of ${shards.length} shards not evaluated within ${timeoutMs} ms\n${d.processes.map((p) => `${p.name}:\n${p.tail()}`).join('\n')}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Waits until every shard has committed a decision (its applied window exists); returns when that was seen. */
export async function allShardsDecided(redis: Redis, prefix: string, shards: readonly string[], timeoutMs: number): Promise<number> {
  const store = new StrategyStateStore(redis, prefix);
  const until = Date.now() + timeoutMs;
  let pending = [...shards];
  for (;;) {
    const windows = await Promise.all(pending.map((s) => store.shardWindow(s)));
    pending = pending.filter((_, i) => windows[i] === null);
    if (pending.length === 0) return Date.now();
    if (Date.now() > until) throw new Error(`${pending.length} of ${shards.length} shards decided nothing within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The applied window of each shard now. */
export async function shardWindows(redis: Redis, prefix: string, shards: readonly string[]): Promise<Array<number | null>> {
  const store = new StrategyStateStore(redis, prefix);
  return Promise.all(shards.map((s) => store.shardWindow(s)));
}
