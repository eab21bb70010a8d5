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

/** The Redis settings the engine depends on, as found at start-up. */
export interface RedisHealth {
  evictionPolicy: string;
  appendOnly: boolean;
  version: string;
}

/**
 * Checks the Redis the keeper will use as its system of record: an eviction policy other than `noeviction` can
 * silently drop queued jobs and locks, so it refuses to start; without AOF a Redis restart loses the queue, which
 * live trading refuses and paper trading only warns about.
 */
export async function checkRedis(redis: Redis, options: { live: boolean; logger: Logger }): Promise<RedisHealth> {
  const [, policy] = (await redis.config('GET', 'maxmemory-policy')) as [string, string];
  const [, aof] = (await redis.config('GET', 'appendonly')) as [string, string];
  const info = await redis.info('server');
  const version = /redis_version:(\S+)/.exec(info)?.[1] ?? 'unknown';
  const health = { evictionPolicy: policy, appendOnly: aof === 'yes', version };
  if (policy !== 'noeviction') {
    throw new KeeperError('REDIS_EVICTION', 'halt', `Redis maxmemory-policy is "${policy}"; jup-keeper needs "noeviction" (CONFIG SET maxmemory-policy noeviction), or queued orders can vanish`);
  }
  if (!health.appendOnly) {
    if (options.live) throw new KeeperError('REDIS_NO_AOF', 'halt', 'Redis runs without AOF persistence (appendonly no); a live keeper refuses to start because a Redis restart would lose queued intents');
    options.logger.warn({ redisVersion: version }, 'Redis runs without AOF persistence: a Redis restart loses queued jobs (fine for paper trading, not for live)');
  }
  return health;
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
