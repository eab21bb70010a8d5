import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { KeeperError } from '../lib/errors.js';
import { sleep } from '../lib/time.js';
import { assertDatabase, safeRedisUrl } from './redis.js';

/** A redis-server started for this run only (paper trading on a machine without a Redis running). */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

/** What a Redis URL leads to: a usable Redis, or why not. */
export type RedisProbe = { ok: true } | { ok: false; problem: 'down' | 'auth' | 'db'; message: string };

/**
 * Connects once, fails fast (no reconnect loop, no offline queue) and says what is wrong: nothing answers (`down`),
 * the credentials are refused (`auth`: WRONGPASS or NOAUTH), or the URL's database does not exist (`db`). The
 * message names no credential.
 */
export async function probeRedis(url: string, timeoutMs = 1_000): Promise<RedisProbe> {
  // disconnectTimeout: ioredis otherwise keeps a 2 s timer waiting for a socket that already closed (the process
  // then lingers 2 s after a refused start).
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, enableOfflineQueue: false, disconnectTimeout: 100 });
  // ioredis rejects connect() with a bare "Connection is closed"; the error events say why.
  const seen: string[] = [];
  r.on('error', (err: Error) => seen.push(err.message));
  try {
    await r.connect();
    await r.ping();
    await assertDatabase(r, url);
    return { ok: true };
  } catch (err) {
    if (err instanceof KeeperError && err.code === 'REDIS_DB') return { ok: false, problem: 'db', message: err.message };
    const messages = [...seen, err instanceof Error ? err.message : String(err)].map((m) => m.split(url).join(safeRedisUrl(url)));
    const auth = messages.find((m) => /^(WRONGPASS|NOAUTH)\b/.test(m));
    if (auth) return { ok: false, problem: 'auth', message: auth };
    return { ok: false, problem: 'down', message: messages[0] ?? 'no answer' };
  } finally {
    r.disconnect();
  }
}

/** Whether a usable Redis answers at the URL within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  return (await probeRedis(url, timeoutMs)).ok;
}

/**
 * The environment of the private redis-server: enough to run, nothing of the keeper's. The keeper's environment
 * holds JUPITER_API_KEY, JUPKEEPER_SECRET_KEY and credentialed URLs, and a child inherits it unless told otherwise.
 */
function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin' };
  for (const name of ['LANG', 'LC_ALL', 'TZ', 'TMPDIR']) if (process.env[name] !== undefined) env[name] = process.env[name];
  return env;
}

/**
 * Starts a private redis-server on a free loopback port, with AOF in a temporary directory, removed on stop, and an
 * environment without the keeper's secrets. For paper trading only: its data is gone on exit, so the caller never
 * uses it for a live keeper. Throws a KeeperError that says how to get Redis when no redis-server is on PATH.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'jup-keeper-redis-'));
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore', env: serverEnv() });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
  } catch {
    rmSync(dir, { recursive: true, force: true });
    throw new KeeperError(
      'REDIS_MISSING',
      'halt',
      'no Redis answers on redis://127.0.0.1:6379 and no redis-server is on PATH: install one (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL',
    );
  }
  const url = `redis://127.0.0.1:${port}`;
  for (let i = 0; i < 50 && !(await redisAnswers(url, 200)); i += 1) await sleep(100);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  if (!(await redisAnswers(url, 500))) {
    await stop();
    throw new KeeperError('REDIS_START', 'halt', `started redis-server on port ${port} but it does not answer`);
  }
  return { url, stop };
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      s.close(() => resolve(port));
    });
  });
}
