import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { KeeperError } from '../lib/errors.js';
import { sleep } from '../lib/time.js';

/** A redis-server started for this run only (paper trading on a machine without a Redis running). */
export interface PrivateRedis {
  url: string;
  stop(): Promise<void>;
}

/** Whether a Redis answers PING at the URL within `timeoutMs`. */
export async function redisAnswers(url: string, timeoutMs = 1_000): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: timeoutMs, enableOfflineQueue: false });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * Starts a private redis-server on a free loopback port, with AOF in a temporary directory, removed on stop. Throws
 * a KeeperError that says how to get Redis when no redis-server is on PATH.
 */
export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'jup-keeper-redis-'));
  let child: ChildProcess;
  try {
    child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', '', '--maxmemory-policy', 'noeviction'], { stdio: 'ignore' });
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
