import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { load } from 'js-yaml';
import { z } from 'zod';
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

const redisPart = z.object({ redis: z.object({ prefix: z.string().min(1).optional(), url: z.string().optional() }).partial().optional() });

/**
 * The prefix and Redis URL of ./config/paper.yaml (what `npm start` runs), when that file is in `cwd` and says;
 * only those two fields are read, so a config another part of which does not validate still points the way.
 */
export function defaultConfigLocation(cwd = process.cwd()): { prefix?: string; redisUrl?: string } | undefined {
  const file = join(cwd, DEFAULT_CONFIG);
  if (!existsSync(file)) return undefined;
  try {
    const parsed = redisPart.safeParse(load(readFileSync(file, 'utf8')));
    if (!parsed.success) return undefined;
    return { prefix: parsed.data.redis?.prefix, redisUrl: parsed.data.redis?.url };
  } catch {
    return undefined;
  }
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
