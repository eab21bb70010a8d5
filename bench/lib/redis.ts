// The benchmark's view of Redis: round-trip time (PING), the server's CPU, BullMQ's event streams (whose entry ids
// are the server's clock in ms) and removal of everything a run wrote.
import { Redis } from 'ioredis';
import { budgetId } from '../../src/jupiter/rateBudget.js';
import { RATE_BUCKET_NAMESPACE } from '../../src/store/rateBucket.js';
import { clearNamespace } from '../../src/store/redis.js';
import { percentile } from './stats.js';

/** A connection for the benchmark's own reads. */
export function benchRedis(url: string): Redis {
  const r = new Redis(url, { maxRetriesPerRequest: 3, lazyConnect: false });
  r.on('error', () => undefined);
  return r;
}

/** Round trips of sequential PINGs, ms. */
export async function pingStats(redis: Redis, count = 300): Promise<{ p50: number; p99: number; mean: number }> {
  for (let i = 0; i < 20; i += 1) await redis.ping();
  const ms: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const t0 = performance.now();
    await redis.ping();
    ms.push(performance.now() - t0);
  }
  return { p50: percentile(ms, 0.5), p99: percentile(ms, 0.99), mean: ms.reduce((a, b) => a + b, 0) / ms.length };
}

/** The server's version. */
export async function redisVersion(redis: Redis): Promise<string> {
  return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
}

/** CPU the server has used (user + system, all its threads), ms. */
export async function redisCpuMs(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const f = (k: string) => Number(new RegExp(`${k}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return (f('used_cpu_sys') + f('used_cpu_user')) * 1000;
}

/** The server's memory in use, bytes. */
export async function redisUsedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? 0);
}

/** One entry of a BullMQ queue's event stream. */
export interface QueueEvent {
  /** Server time of the event, unix ms (the stream entry's id). */
  at: number;
  event: string;
  jobId: string;
}

/**
 * Reads a BullMQ queue's event stream (`<prefix>:<queue>:events`) incrementally: each `poll()` returns the entries
 * added since the last one. Polled often enough, nothing is trimmed away before it is read (BullMQ keeps about
 * 10,000 entries).
 */
export class EventStream {
  private last = '0-0';
  readonly all: QueueEvent[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async poll(): Promise<QueueEvent[]> {
    const out: QueueEvent[] = [];
    for (;;) {
      const entries = (await this.redis.xrange(this.key, `(${this.last}`, '+', 'COUNT', 5_000)) as Array<[string, string[]]>;
      for (const [id, fields] of entries) {
        this.last = id;
        const get = (name: string) => {
          const i = fields.indexOf(name);
          return i >= 0 && i % 2 === 0 ? fields[i + 1] : undefined;
        };
        const event = get('event');
        const jobId = get('jobId');
        if (event && jobId) out.push({ at: Number(id.split('-')[0]), event, jobId });
      }
      if (entries.length < 5_000) break;
    }
    this.all.push(...out);
    return out;
  }
}

/** The key of a queue's event stream. */
export function eventsKey(prefix: string, queue: string): string {
  return `${prefix}:${queue}:events`;
}

/** Prefixes and key patterns the benchmark wrote to, removed at the end whatever happens (see `removeAllKeys`). */
export const written = { prefixes: new Set<string>(), patterns: new Set<string>() };

/** Removes every key the benchmark wrote (the runner calls it last, and on SIGINT/SIGTERM). */
export async function removeAllKeys(redis: Redis): Promise<number> {
  return removeKeys(redis, [...written.prefixes], [...written.patterns]);
}

/**
 * Remembers the rate bucket a keyless keeper (tier off included) keeps for a venue's origin: it lives outside any
 * prefix, so it is removed by pattern at the end.
 */
export function rememberVenueBucket(url: string): void {
  written.patterns.add(`${RATE_BUCKET_NAMESPACE}:ratebucket:${budgetId(undefined, new URL(url).origin)}*`);
}

/** Removes every key of the prefixes and the given exact keys or patterns (rate buckets live outside a prefix). */
export async function removeKeys(redis: Redis, prefixes: readonly string[], patterns: readonly string[] = []): Promise<number> {
  let removed = 0;
  for (const p of prefixes) removed += await clearNamespace(redis, p);
  for (const pattern of patterns) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      if (keys.length > 0) removed += await redis.unlink(...keys);
    } while (cursor !== '0');
  }
  return removed;
}
