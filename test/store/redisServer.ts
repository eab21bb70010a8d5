import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from '../helpers/keeper.js';

/** A redis-server started by one test with the settings it needs (AOF, databases, password, replication...). */
export interface RedisServer {
  port: number;
  /** `redis://127.0.0.1:<port>` (no credentials, no database). */
  url: string;
  pid: number;
  /** A connection (closed by `stop`); `password` for servers started with `--requirepass`. */
  client(o?: { password?: string; db?: number }): Redis;
  /** SIGSTOP / SIGCONT: a frozen server accepts connections but answers nothing. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/**
 * Starts redis-server on a free loopback port with `--save ""` and the given extra arguments, and waits until it
 * answers PING (with `password` when it requires one). Fails, rather than returning a server another process holds,
 * if the child exits before it answers (a lost port race).
 */
export async function startRedisServer(args: string[] = [], o: { password?: string } = {}): Promise<RedisServer> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'jk-redis-srv-'));
  // In a process group of its own: stop() kills the server and any child it forked (an AOF rewrite), which would
  // otherwise go on writing into `dir` while it is removed.
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', ...args], { stdio: 'ignore', detached: true });
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  const url = `redis://127.0.0.1:${port}`;
  const clients: Redis[] = [];
  for (let i = 0; ; i += 1) {
    if (exited) throw new Error(`redis-server on ${port} exited before answering (args: ${args.join(' ')})`);
    const r = new Redis(url, { lazyConnect: true, password: o.password, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      const info = await r.info('server');
      r.disconnect();
      if (Number(/process_id:(\d+)/.exec(info)?.[1]) !== child.pid) throw new Error(`port ${port} is held by another redis-server`);
      break;
    } catch (err) {
      r.disconnect();
      if (err instanceof Error && err.message.includes('held by another')) throw err;
      if (i > 100) throw new Error(`redis-server on ${port} did not answer`);
      await new Promise((res) => setTimeout(res, 50));
    }
  }
  return {
    port,
    url,
    pid: child.pid ?? 0,
    client: (c = {}) => {
      const r = new Redis(url, { password: c.password ?? o.password, db: c.db ?? 0, maxRetriesPerRequest: 3 });
      r.on('error', () => undefined);
      clients.push(r);
      return r;
    },
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: async () => {
      for (const c of clients) c.disconnect();
      if (!exited) {
        child.kill('SIGCONT');
        const gone = new Promise((res) => child.once('exit', res));
        process.kill(-child.pid!, 'SIGKILL');
        await gone;
      }
      // A forked child killed with the group may still be closing its files for a moment.
      rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    },
  };
}
