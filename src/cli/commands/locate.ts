import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { configSchema, parseYaml, readConfigText } from '../../config/index.js';
import { KeeperError } from '../../lib/errors.js';
import { livePrefixes } from '../../store/presence.js';
import { DEFAULT_REDIS_URL, safeRedisUrl } from '../../store/redis.js';
import { resolveLocation, withKeeperRedis, type KeeperLocation, type RedisArgs } from './redisArgs.js';

/** The config `npm start` runs, relative to the working directory. */
export const DEFAULT_CONFIG = 'config/paper.yaml';
/** Prefix used when nothing names one (the config schema's default). */
const DEFAULT_PREFIX = 'jk';

/** Where a command found the keeper, and how (said to the person when it was guessed). */
export interface LocatedKeeper extends KeeperLocation {
  /** How the prefix was chosen: a flag or --config, the heartbeat of the only keeper alive, ./config/paper.yaml, or the default. */
  how: 'flag' | 'heartbeat' | 'default-config' | 'default';
  /** Other deployments with a keeper alive on the same Redis (not looked for when a flag named the keeper). */
  othersAlive: string[];
}

/**
 * The prefix and Redis URL of ./config/paper.yaml (what `npm start` runs), when that file is in `cwd` and says;
 * undefined when it does not read as YAML or its `redis` section is invalid. Read through the loader's parser and
 * that section's own schema, not the whole config: the person asks where a keeper runs, and a mistake elsewhere in
 * the file (or a wallet, a key or a symbol lookup the full check wants) must not hide the way.
 */
export function defaultConfigLocation(cwd = process.cwd()): { prefix?: string; redisUrl?: string } | undefined {
  const file = join(cwd, DEFAULT_CONFIG);
  if (!existsSync(file)) return undefined;
  let data: unknown;
  try {
    data = parseYaml(readConfigText(file), file);
  } catch {
    return undefined;
  }
  if (!isRecord(data)) return undefined;
  const written = data.redis;
  const redis = configSchema.shape.redis.safeParse(written);
  if (!redis.success) return undefined;
  // The schema fills in the default prefix: only one the file writes names a deployment.
  const prefix = isRecord(written) && written.prefix !== undefined ? redis.data.prefix : undefined;
  return { prefix, redisUrl: redis.data.url };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Runs `read` against the keeper the options point at. `--prefix` or `--config` name it (as for every read-only
 * command). Without either, the keeper is found as a person expects after `npm start`: the Redis is --redis-url,
 * ./config/paper.yaml's, REDIS_URL, then the default; the prefix is that of the only keeper alive on it (found by
 * its heartbeat); with several alive, ./config/paper.yaml's if it is one of them (else an error naming them); with
 * none alive, ./config/paper.yaml's, else "jk".
 */
export async function withLocatedKeeper<T>(opts: RedisArgs, read: (redis: Redis, loc: LocatedKeeper) => Promise<T>, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Promise<T> {
  if (opts.prefix !== undefined || opts.config !== undefined) {
    const loc = resolveLocation(opts, env);
    // Named: no need to scan the keyspace for the others.
    return withKeeperRedis(loc.redisUrl, async (redis) => read(redis, { ...loc, how: 'flag', othersAlive: [] }));
  }
  const fromFile = defaultConfigLocation(cwd);
  const redisUrl = opts.redisUrl ?? fromFile?.redisUrl ?? (env.REDIS_URL || undefined) ?? DEFAULT_REDIS_URL;
  return withKeeperRedis(redisUrl, async (redis) => {
    const alive = await livePrefixes(redis);
    const preferred = fromFile?.prefix;
    let prefix: string;
    let how: LocatedKeeper['how'];
    if (alive.length === 1) [prefix, how] = [alive[0]!, 'heartbeat'];
    else if (alive.length > 1 && preferred !== undefined && alive.includes(preferred)) [prefix, how] = [preferred, 'default-config'];
    else if (alive.length > 1) {
      throw new KeeperError('KEEPER_AMBIGUOUS', 'halt', `${alive.length} keepers are running on ${safeRedisUrl(redisUrl)} (prefixes ${alive.join(', ')}): name one with --prefix`);
    } else if (preferred !== undefined) [prefix, how] = [preferred, 'default-config'];
    else [prefix, how] = [DEFAULT_PREFIX, 'default'];
    return read(redis, { redisUrl, prefix, how, othersAlive: alive.filter((p) => p !== prefix) });
  });
}
