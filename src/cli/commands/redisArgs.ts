import type { Command } from 'commander';
import { Redis } from 'ioredis';
import { loadConfig } from '../../config/index.js';
import { KeeperError } from '../../lib/errors.js';
import { assertDatabase, DEFAULT_REDIS_URL, safeRedisUrl } from '../../store/redis.js';
import { builtinStrategies } from '../../../strategies/index.js';
import { withJson, type JsonFlag } from './shared.js';

/** Options of a command that reads a keeper's records from Redis. */
export interface RedisArgs extends JsonFlag {
  redisUrl?: string;
  prefix?: string;
  config?: string;
}

/** Where a keeper's records are: the Redis URL and the key prefix of the deployment. */
export interface KeeperLocation {
  redisUrl: string;
  prefix: string;
}

/** Prefix used when neither --prefix nor a config names one (the config schema's default). */
const DEFAULT_PREFIX = 'jk';
/** How long a read-only command waits for Redis before saying it does not answer, ms. */
const CONNECT_TIMEOUT_MS = 2_000;

/**
 * Adds `--redis-url`, `--prefix`, `--config` and `--json` to a read-only command. With `locate`, the help says how
 * the command finds the keeper without them (see withLocatedKeeper in locate.ts).
 */
export function withRedisArgs(command: Command, o: { locate?: boolean } = {}): Command {
  const prefixHelp = o.locate
    ? `key prefix of the deployment (default: the config; else the keeper alive on the Redis, found by its heartbeat; else ./config/paper.yaml's; else "${DEFAULT_PREFIX}")`
    : `key prefix of the deployment (default: the config, then "${DEFAULT_PREFIX}")`;
  const urlHelp = o.locate ? `Redis URL (default: the config, ./config/paper.yaml's, REDIS_URL, then ${DEFAULT_REDIS_URL})` : `Redis URL (default: the config, REDIS_URL, then ${DEFAULT_REDIS_URL})`;
  return withJson(
    command
      .option('--redis-url <url>', urlHelp)
      .option('--prefix <prefix>', prefixHelp)
      .option('--config <file>', 'take the Redis URL and prefix from this keeper config file'),
  );
}

/**
 * Resolves where to read, in the order `run` uses: the flags, then the config file (when given), then REDIS_URL,
 * then the defaults. The config is validated in full, so a broken file is reported rather than half-read.
 */
export function resolveLocation(opts: RedisArgs, env: NodeJS.ProcessEnv = process.env): KeeperLocation {
  // Reading needs neither the wallet nor the RPC, whose absence from this shell's environment would make the loader
  // refuse a config that `run` accepts elsewhere: stand-ins satisfy those two checks; nothing here uses them.
  const readEnv = { ...env, JUPKEEPER_KEYPAIR_PATH: env.JUPKEEPER_KEYPAIR_PATH || '(unused)', SOLANA_RPC_URL: env.SOLANA_RPC_URL || 'http://unused.invalid' };
  const config = opts.config === undefined ? undefined : loadConfig(opts.config, builtinStrategies, readEnv);
  return {
    redisUrl: opts.redisUrl ?? config?.redis.url ?? config?.env.REDIS_URL ?? (env.REDIS_URL || undefined) ?? DEFAULT_REDIS_URL,
    prefix: opts.prefix ?? config?.redis.prefix ?? DEFAULT_PREFIX,
  };
}

/** A Redis URL without its credentials, safe to print. */
export { safeRedisUrl };

/**
 * Opens a connection that fails fast: no reconnect loop and no offline queue, so a Redis that does not answer
 * becomes one KeeperError (exit status 1, no stack trace) instead of a hang.
 */
export async function connectReadOnly(url: string): Promise<Redis> {
  const redis = new Redis(url, {
    connectionName: 'jup-keeper:cli',
    lazyConnect: true,
    connectTimeout: CONNECT_TIMEOUT_MS,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
    // ioredis otherwise keeps a 2 s timer waiting for a socket that already closed: the command lingers after it failed.
    disconnectTimeout: 100,
  });
  // ioredis rejects connect() with a bare "Connection is closed"; the socket's own error says why (ECONNREFUSED...).
  let cause: string | undefined;
  redis.on('error', (err: Error) => {
    cause = err.message;
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (err) {
    redis.disconnect();
    const why = (cause ?? (err instanceof Error ? err.message : String(err))).split(url).join(safeRedisUrl(url));
    if (/^(WRONGPASS|NOAUTH)\b/.test(why)) throw new KeeperError('REDIS_AUTH', 'halt', `Redis at ${safeRedisUrl(url)} refuses the credentials (${why}): put the password in the Redis URL (redis://:PASSWORD@host:6379)`);
    throw new KeeperError('REDIS_DOWN', 'halt', `no Redis answers at ${safeRedisUrl(url)}: ${why}`);
  }
  try {
    // Fix: a database the server does not have (redis://host:6379/99 with 16 databases) was read as database 0.
    await assertDatabase(redis, url);
  } catch (err) {
    redis.disconnect();
    throw err;
  }
  return redis;
}

/** Runs `read` over a fresh connection and always closes it. */
export async function withKeeperRedis<T>(url: string, read: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = await connectReadOnly(url);
  try {
    return await read(redis);
  } finally {
    redis.disconnect();
  }
}

/** Whether any key of the deployment exists (`<prefix>:*`): has a keeper ever run with this prefix here. */
export async function prefixInUse(redis: Redis, prefix: string): Promise<boolean> {
  if ((await redis.exists(`${prefix}:meta`, `${prefix}:intents`)) > 0) return true;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    if (keys.length > 0) return true;
    cursor = next;
  } while (cursor !== '0');
  return false;
}

/** The line printed when nothing is stored under the prefix. */
export function nothingStored(loc: KeeperLocation): string {
  return `no keeper has run with prefix ${loc.prefix} on ${safeRedisUrl(loc.redisUrl)}`;
}

/** A time span in ms as its largest unit ("45s", "12m", "3h", "2d"); negative spans (clock skew) read as 0s. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h`;
  return `${Math.floor(s / 86_400)}d`;
}

/** Text cut to `max` characters with an ellipsis. */
export function clip(text: string | null | undefined, max = 60): string {
  if (!text) return '-';
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
