import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeeperError } from '../../src/lib/errors.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore } from '../../src/store/intents.js';
import { checkRedis, createRedis, durabilityOf, versionAtLeast } from '../../src/store/redis.js';
import { waitUntil } from '../helpers/e2e.js';
import { startRedisServer, type RedisServer } from './redisServer.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 1_000n };

async function guarded(store: IntentStore, id: string): Promise<number> {
  await store.create({ id, instance: 'i', strategy: 's@1', intent: swap, createdAt: 1, deadline: Date.now() + 60_000 });
  const fence = await store.claim(id);
  await store.move(id, fence, 'built');
  await store.move(id, fence, 'guarded');
  return fence;
}

async function rejection(p: Promise<unknown>): Promise<KeeperError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KeeperError);
  return err as KeeperError;
}

/** Where the RESP reply starting at `i` ends, or undefined while it is incomplete. */
function replyEnd(buf: Buffer, i: number): number | undefined {
  const eol = buf.indexOf('\r\n', i);
  if (i >= buf.length || eol < 0) return undefined;
  const type = String.fromCharCode(buf[i]!);
  const n = Number(buf.toString('utf8', i + 1, eol));
  if (type === '$') return n < 0 ? eol + 2 : eol + 2 + n + 2 <= buf.length ? eol + 2 + n + 2 : undefined;
  if (type !== '*') return eol + 2;
  let j: number | undefined = eol + 2;
  for (let k = 0; k < n && j !== undefined; k += 1) j = replyEnd(buf, j);
  return j;
}

/**
 * A TCP proxy to Redis that, once armed for its n-th connection, lets `replies` more replies through on it and then
 * cuts that connection: the client got some replies of a pipeline, and ioredis re-sends the rest elsewhere.
 */
async function replyCuttingProxy(port: number): Promise<{ url: string; arm(connection: number, replies: number): void; close(): Promise<void> }> {
  const armed = new Map<number, number>();
  const sockets: Socket[] = [];
  let count = 0;
  const server: Server = createServer((client) => {
    const index = count;
    count += 1;
    const upstream = connect(port, '127.0.0.1');
    sockets.push(client, upstream);
    let pending = Buffer.alloc(0);
    client.on('data', (d) => upstream.write(d));
    upstream.on('data', (d) => {
      const budget = armed.get(index);
      if (budget === undefined) return void client.write(d);
      pending = Buffer.concat([pending, d]);
      let end = 0;
      let left = budget;
      for (let next = replyEnd(pending, 0); left > 0 && next !== undefined; next = replyEnd(pending, end)) {
        end = next;
        left -= 1;
      }
      client.write(pending.subarray(0, end));
      pending = pending.subarray(end);
      armed.set(index, left);
      if (left === 0) {
        client.destroy();
        upstream.destroy();
      }
    });
    for (const sock of [client, upstream]) sock.on('error', () => undefined);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arm: (connection, replies) => void armed.set(connection, replies),
    close: () => {
      for (const sock of sockets) sock.destroy();
      return new Promise((res) => server.close(() => res()));
    },
  };
}

describe('the durability a Redis gives', () => {
  it('is WAITAOF from Redis 7.2 with AOF, fsync-always before, none without AOF', () => {
    expect(versionAtLeast('7.2.0', 7, 2)).toBe(true);
    expect(versionAtLeast('8.0.1', 7, 2)).toBe(true);
    expect(versionAtLeast('7.0.15', 7, 2)).toBe(false);
    expect(versionAtLeast('6.2.14', 7, 2)).toBe(false);
    expect(durabilityOf({ version: '7.2.4', appendOnly: true, appendFsync: 'everysec' })).toBe('waitaof');
    expect(durabilityOf({ version: '7.2.4', appendOnly: false, appendFsync: 'always' })).toBe('none');
    expect(durabilityOf({ version: '7.0.15', appendOnly: true, appendFsync: 'always' })).toBe('fsync-always');
    expect(durabilityOf({ version: '7.0.15', appendOnly: true, appendFsync: 'everysec' })).toBe('none');
    expect(durabilityOf({ version: '7.0.15', appendOnly: true, appendFsync: 'unknown' })).toBe('none');
  });

  describe('as checked at start-up on this machine\'s redis-server', () => {
    let server: RedisServer;
    beforeAll(async () => {
      server = await startRedisServer(['--appendonly', 'no', '--maxmemory-policy', 'noeviction']);
    });
    afterAll(async () => server.stop());

    it('names the setting a live keeper needs, and lets a paper keeper start with a warning', async () => {
      const r = server.client();
      const version = /redis_version:(\S+)/.exec(await r.info('server'))![1]!;
      await r.config('SET', 'appendonly', 'no');
      expect((await rejection(checkRedis(r, { live: true, logger: silentLogger }))).message).toMatch(/set appendonly yes;/);
      const lines: string[] = [];
      const logger = createLogger({ level: 'warn', destination: new Writable({ write: (c: Buffer, _e, done) => (lines.push(c.toString()), done()) }) });
      expect(await checkRedis(r, { live: false, logger })).toMatchObject({ durability: 'none', appendOnly: false, replicas: 0, version });
      logger.flush();
      expect(lines.join('')).toMatch(/appendonly yes for live trading/);

      await r.config('SET', 'appendonly', 'yes');
      await r.config('SET', 'appendfsync', 'everysec');
      if (versionAtLeast(version, 7, 2)) {
        expect(await checkRedis(r, { live: true, logger: silentLogger })).toMatchObject({ durability: 'waitaof' });
      } else {
        const err = await rejection(checkRedis(r, { live: true, logger: silentLogger }));
        expect(err.code).toBe('REDIS_NOT_DURABLE');
        expect(err.message).toMatch(/set appendfsync always \(Redis 7\.\d+\.\d+ has no WAITAOF and fsyncs the AOF with appendfsync everysec\), or Redis 7\.2 or later/);
      }
      await r.config('SET', 'appendfsync', 'always');
      expect(await checkRedis(r, { live: true, logger: silentLogger })).toMatchObject({ durability: versionAtLeast(version, 7, 2) ? 'waitaof' : 'fsync-always', appendFsync: 'always' });

      await r.config('SET', 'maxmemory-policy', 'allkeys-lru');
      const evict = await rejection(checkRedis(r, { live: false, logger: silentLogger }));
      expect(evict.code).toBe('REDIS_EVICTION');
      expect(evict.message).toMatch(/set maxmemory-policy noeviction/);
      await r.config('SET', 'maxmemory-policy', 'noeviction');
    });
  });

  describe('for the signed record, on a Redis 7.0 primary with appendfsync always and one replica', () => {
    let primary: RedisServer;
    let replica: RedisServer;
    beforeAll(async () => {
      primary = await startRedisServer(['--appendonly', 'yes', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction', '--repl-diskless-sync-delay', '0']);
      replica = await startRedisServer(['--replicaof', '127.0.0.1', String(primary.port)]);
      const r = primary.client();
      // WAIT counts acknowledgements of replicas that finished their first sync only.
      await waitUntil('the replica to finish its first sync', async () => /slave0:.*state=online/.test(await r.info('replication')), 20_000, 50);
    });
    afterAll(async () => {
      await replica.stop();
      await primary.stop();
    });

    it('counts the replica, and a durable move returns once the replica acknowledged it (WAIT)', async () => {
      const r = primary.client();
      const health = await checkRedis(r, { live: true, logger: silentLogger });
      expect(health).toMatchObject({ durability: versionAtLeast(health.version, 7, 2) ? 'waitaof' : 'fsync-always', replicas: 1 });
      const store = new IntentStore(r, 'dur-wait', { durability: { mode: health.durability, replicas: health.replicas, timeoutMs: 2_000 } });
      try {
        const fence = await guarded(store, 'x');
        expect(await store.move('x', fence, 'signed', { signature: 'sig-x' }, Date.now(), { durable: true })).toEqual({ ok: true, from: 'guarded' });
        // What the replica holds is what the primary acknowledged.
        expect(await replica.client().hget('dur-wait:intent:x', 'state')).toBe('signed');
        await store.confirmDurable();
        // A keeper pointed at the replica is told to use the primary.
        const onReplica = await rejection(checkRedis(replica.client(), { live: false, logger: silentLogger }));
        expect(onReplica.code).toBe('REDIS_REPLICA');
        expect(onReplica.message).toMatch(/point REDIS_URL at the primary/);
      } finally {
        await store.close();
      }
    });

    it('throws REDIS_NOT_DURABLE (retry) when the replica does not acknowledge, without blocking the shared connection', async () => {
      const r = primary.client();
      const store = new IntentStore(r, 'dur-frozen', { durability: { mode: 'fsync-always', replicas: 1, timeoutMs: 800 } });
      const fence = await guarded(store, 'y');
      replica.freeze();
      try {
        const started = Date.now();
        const moving = rejection(store.move('y', fence, 'signed', { signature: 'sig-y' }, Date.now(), { durable: true }));
        // The wait runs on a dedicated connection: the store's own connection keeps answering meanwhile.
        const pingStarted = Date.now();
        await r.ping();
        expect(Date.now() - pingStarted).toBeLessThan(300);
        const err = await moving;
        expect(err).toMatchObject({ code: 'REDIS_NOT_DURABLE', action: 'retry' });
        expect(err.message).toMatch(/WAIT confirmed 0\/1 replicas within 800 ms/);
        expect(Date.now() - started).toBeGreaterThanOrEqual(700);
        expect((await rejection(store.confirmDurable())).code).toBe('REDIS_NOT_DURABLE');
        // Not durable does not mean not applied: the record moved, and the executor must not rely on it.
        expect((await store.get('y'))?.state).toBe('signed');
      } finally {
        replica.thaw();
        await store.close();
      }
    });

    it('repeats the write-then-wait when the connection dropped between the two (the wait went to a new connection)', async () => {
      const proxy = await replyCuttingProxy(primary.port);
      const conn = createRedis(proxy.url, { name: 'dur-cut' });
      conn.on('error', () => undefined);
      const store = new IntentStore(conn, 'dur-cut', { durability: { mode: 'fsync-always', replicas: 1, timeoutMs: 2_000 } });
      const admin = primary.client();
      const evals = async () => Number(/cmdstat_eval:calls=(\d+)/.exec(await admin.info('commandstats'))?.[1] ?? 0);
      try {
        // Connection 0 is the store's own; the first durable move opens connection 1, the dedicated one.
        await store.move('absent', null, 'built', {}, Date.now(), { durable: true });
        // CLIENT ID and the move's reply get through, then the connection drops: ioredis aborts the rest of the
        // pipeline (WAIT, CLIENT ID), and the round is repeated on the new connection.
        const fenceW = await guarded(store, 'w');
        let before = await evals();
        proxy.arm(1, 2);
        expect(await store.move('w', fenceW, 'signed', { signature: 'sig-w' }, Date.now(), { durable: true })).toEqual({ ok: true, from: 'guarded' });
        // The move ran once for real and once more as a no-op on the new connection, which the wait then covered.
        expect((await evals()) - before).toBe(2);
        // Only CLIENT ID gets through: the move ran but its reply was lost; the repeat answers as the first run.
        const fenceV = await guarded(store, 'v');
        before = await evals();
        proxy.arm(2, 1);
        expect(await store.move('v', fenceV, 'signed', { signature: 'sig-v' }, Date.now(), { durable: true })).toEqual({ ok: true, from: 'guarded' });
        expect((await evals()) - before).toBe(2);
        expect(await store.get('v')).toMatchObject({ state: 'signed', signature: 'sig-v' });
        expect(await store.get('w')).toMatchObject({ state: 'signed', signature: 'sig-w' });
      } finally {
        await store.close();
        conn.disconnect();
        await proxy.close();
      }
    });

    it('on the waitaof path fails closed where the server has no WAITAOF (Redis before 7.2)', async () => {
      const r = primary.client();
      const version = /redis_version:(\S+)/.exec(await r.info('server'))![1]!;
      const store = new IntentStore(r, 'dur-aof', { durability: { mode: 'waitaof', replicas: 0, timeoutMs: 1_000 } });
      try {
        const fence = await guarded(store, 'z');
        const move = store.move('z', fence, 'signed', {}, Date.now(), { durable: true });
        if (versionAtLeast(version, 7, 2)) {
          expect(await move).toEqual({ ok: true, from: 'guarded' });
        } else {
          const err = await rejection(move);
          expect(err.code).toBe('REDIS_NOT_DURABLE');
          expect(err.message).toMatch(/WAITAOF failed: ERR unknown command/);
        }
      } finally {
        await store.close();
      }
    });
  });

  it('is a plain move on a Redis without durability (paper): durable changes nothing there', async () => {
    const server = await startRedisServer(['--appendonly', 'no']);
    try {
      const r = server.client();
      const health = await checkRedis(r, { live: false, logger: silentLogger });
      const store = new IntentStore(r, 'dur-none', { durability: { mode: health.durability, replicas: health.replicas } });
      const fence = await guarded(store, 'p');
      expect(await store.move('p', fence, 'signed', {}, Date.now(), { durable: true })).toEqual({ ok: true, from: 'guarded' });
      await store.confirmDurable();
      await store.close();
      // No dedicated connection was opened for it.
      const clients = (await r.client('LIST')) as string;
      expect(clients).not.toMatch(/name=\S*:durable/);
    } finally {
      await server.stop();
    }
  });
});
