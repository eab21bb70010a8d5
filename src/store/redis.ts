import { Redis, type RedisOptions } from 'ioredis';
import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';

/** Default Redis when neither the config nor REDIS_URL names one. */
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

/** Opens an ioredis connection. `blocking` connections (BullMQ workers) must retry forever. */
export function createRedis(url: string, options: { name: string; blocking?: boolean; lazy?: boolean } & RedisOptions): Redis {
  const { name, blocking, lazy, ...rest } = options;
  return new Redis(url, {
    connectionName: `jup-keeper:${name}`,
    maxRetriesPerRequest: blocking ? null : 20,
    enableReadyCheck: true,
    lazyConnect: lazy ?? false,
    ...rest,
  });
}

/**
 * How a write can be made durable before the keeper acts on it:
 * - `waitaof`: Redis 7.2 or later with AOF: `WAITAOF` confirms the write reached the AOF on disk;
 * - `fsync-always`: AOF with `appendfsync always`: Redis fsyncs before it replies, so the reply is the proof;
 * - `none`: neither (no AOF, or AOF fsynced every second on a Redis without WAITAOF): paper trading only.
 */
export type DurabilityMode = 'waitaof' | 'fsync-always' | 'none';

/** The Redis settings the engine depends on, as found at start-up. */
export interface RedisHealth {
  evictionPolicy: string;
  appendOnly: boolean;
  /** `always`, `everysec`, `no`, or `unknown` where CONFIG is not allowed (managed Redis). */
  appendFsync: string;
  version: string;
  /** How `signed` writes are made durable on this Redis. */
  durability: DurabilityMode;
  /** Replicas connected to this primary at start; durable writes wait for all of them (`WAIT`/`WAITAOF`). */
  replicas: number;
}

/** Whether a `redis_version` string is at least major.minor. */
export function versionAtLeast(version: string, major: number, minor: number): boolean {
  const m = /^(\d+)\.(\d+)/.exec(version);
  if (!m) return false;
  const [maj, min] = [Number(m[1]), Number(m[2])];
  return maj > major || (maj === major && min >= minor);
}

/** The durability a Redis with these settings gives (see DurabilityMode). */
export function durabilityOf(s: { version: string; appendOnly: boolean; appendFsync: string }): DurabilityMode {
  if (!s.appendOnly) return 'none';
  if (versionAtLeast(s.version, 7, 2)) return 'waitaof';
  return s.appendFsync === 'always' ? 'fsync-always' : 'none';
}

function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/**
 * Checks the Redis the keeper will use as its system of record and reports the durability it can give. Settings
 * come from INFO (allowed on managed Redis, where CONFIG often is not); only `appendfsync` needs CONFIG GET.
 * - an eviction policy other than `noeviction` can silently drop queued jobs and locks: refused, paper or live;
 * - a replica refuses writes: refused;
 * - a live keeper refuses a Redis that cannot make the `signed` record durable before the transaction leaves
 *   (no AOF, or Redis before 7.2 without `appendfsync always`); paper trading only warns.
 * Each refusal is one KeeperError whose message names the setting to change.
 */
export async function checkRedis(redis: Redis, options: { live: boolean; logger: Logger }): Promise<RedisHealth> {
  const info = await redis.info();
  const version = infoField(info, 'redis_version') ?? 'unknown';
  const policy = infoField(info, 'maxmemory_policy') ?? 'unknown';
  const appendOnly = infoField(info, 'aof_enabled') === '1';
  const replicas = Number(infoField(info, 'connected_slaves') ?? '0') || 0;
  let appendFsync = 'unknown';
  try {
    const reply = (await redis.config('GET', 'appendfsync')) as string[];
    appendFsync = reply[1] ?? 'unknown';
  } catch {
    // CONFIG is disabled on some managed Redis; only Redis before 7.2 needs this setting, and then it is refused.
  }
  const health: RedisHealth = { evictionPolicy: policy, appendOnly, appendFsync, version, durability: durabilityOf({ version, appendOnly, appendFsync }), replicas };
  if (infoField(info, 'role') === 'slave') {
    throw new KeeperError('REDIS_REPLICA', 'halt', 'the Redis URL points at a replica (role: slave), which refuses writes: point REDIS_URL at the primary');
  }
  if (policy !== 'noeviction') {
    throw new KeeperError('REDIS_EVICTION', 'halt', `Redis maxmemory-policy is "${policy}": set maxmemory-policy noeviction (redis.conf, or CONFIG SET maxmemory-policy noeviction), or queued jobs and intent records can vanish`);
  }
  if (health.durability === 'none') {
    const setting = !appendOnly
      ? 'appendonly yes'
      : `appendfsync always (Redis ${version} has no WAITAOF and fsyncs the AOF ${appendFsync === 'unknown' ? 'on a schedule CONFIG GET could not read' : `with appendfsync ${appendFsync}`}), or Redis 7.2 or later`;
    if (options.live) {
      throw new KeeperError('REDIS_NOT_DURABLE', 'halt', `Redis cannot make a signed transaction's record durable before it is sent: set ${setting}; a live keeper refuses to start without it`);
    }
    options.logger.warn({ redisVersion: version, appendOnly, appendFsync }, `Redis cannot make writes durable (set ${setting} for live trading): a Redis crash may lose recent records; fine for paper trading`);
  }
  return health;
}

/** A Redis URL without its credentials, safe to print or log. */
export function safeRedisUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** The database number a Redis URL names (`redis://host:6379/99` → 99), 0 when it names none. */
export function databaseOf(url: string): number {
  try {
    const db = Number(new URL(url).pathname.replace(/^\//, '') || '0');
    return Number.isInteger(db) && db >= 0 ? db : 0;
  } catch {
    return 0;
  }
}

/**
 * Selects the URL's database explicitly and fails if Redis refuses it. ioredis selects it on connect but only
 * emits an error event when that fails and carries on in database 0: `redis://host:6379/99` on a Redis with 16
 * databases silently wrote into database 0.
 */
export async function assertDatabase(redis: Redis, url: string): Promise<void> {
  const db = databaseOf(url);
  if (db === 0) return;
  try {
    await redis.select(db);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new KeeperError('REDIS_DB', 'halt', `Redis refuses database ${db} named by the Redis URL (${why}): raise "databases" in redis.conf above ${db}, or name a lower database in the URL`);
  }
}

/** Deletes every key of a deployment's namespace (`<prefix>:*`), e.g. to start a fresh paper session. */
export async function clearNamespace(redis: Redis, prefix: string): Promise<number> {
  let cursor = '0';
  let removed = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) removed += await redis.unlink(...keys);
  } while (cursor !== '0');
  return removed;
}
