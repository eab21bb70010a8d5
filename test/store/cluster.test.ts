import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Queue, Worker } from 'bullmq';
import { Cluster, type Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketForTier } from '../../src/jupiter/rateBudget.js';
import type { Intent } from '../../src/sdk/intents.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { RedisBucketStore } from '../../src/store/rateBucket.js';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { dcaConfig, scratchDir, spawnKeeper, writeConfig } from '../helpers/keeper.js';
import { startTestSim } from '../helpers/sim.js';
import { startRedisServer, type RedisServer } from './redisServer.js';

const run = promisify(execFile);
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 1_000n };
/** The prefix README recommends on Redis Cluster: a hash tag, so every key of the deployment is in one slot. */
const PREFIX = '{jk}';

describe('on Redis Cluster with a hash-tagged prefix', () => {
  const nodes: RedisServer[] = [];
  let cluster: Cluster;
  // The stores are written against ioredis' Redis; a Cluster client answers the same commands (routing each by its
  // first key), which is exactly what this file proves.
  const asRedis = (): Redis => cluster as unknown as Redis;

  beforeAll(async () => {
    for (let i = 0; i < 3; i += 1) nodes.push(await startRedisServer(['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--appendonly', 'no', '--maxmemory-policy', 'noeviction']));
    await run('redis-cli', ['--cluster', 'create', ...nodes.map((n) => `127.0.0.1:${n.port}`), '--cluster-replicas', '0', '--cluster-yes']);
    for (const n of nodes) {
      const c = n.client();
      await waitUntil(`node ${n.port} to see the cluster ok`, async () => /cluster_state:ok/.test(await c.cluster('INFO')), 20_000, 100);
    }
    cluster = new Cluster(nodes.map((n) => ({ host: '127.0.0.1', port: n.port })));
    cluster.on('error', () => undefined);
    await waitUntil('the cluster client', async () => (await cluster.ping()) === 'PONG', 10_000, 100);
  }, 60_000);
  afterAll(async () => {
    await cluster?.quit().catch(() => undefined);
    for (const n of nodes) await n.stop();
  });

  it('the ledger creates and moves intents, keeping the state sets, with a replayed move a no-op', async () => {
    const store = new IntentStore(asRedis(), PREFIX);
    for (const id of ['c1', 'c2']) expect(await store.create({ id, instance: 'i', strategy: 's@1', intent: swap, createdAt: 1, deadline: Date.now() + 60_000 })).toEqual({ created: true, state: 'planned' });
    const fence = await store.claim('c1');
    for (const to of ['built', 'guarded', 'signed'] as const) expect((await store.move('c1', fence, to, to === 'signed' ? { signature: 'sig-c1' } : {})).ok).toBe(true);
    expect(await store.move('c1', fence, 'landed', { result: { slot: 7 } }, 10, { token: 'tok' })).toEqual({ ok: true, from: 'signed' });
    expect(await store.move('c1', fence, 'landed', {}, 11, { token: 'tok' })).toEqual({ ok: true, from: 'signed' });
    expect(await store.idsIn('landed')).toEqual(['c1']);
    expect(await store.idsIn('planned')).toEqual(['c2']);
    expect((await store.all()).map((r) => [r.id, r.state])).toEqual([
      ['c1', 'landed'],
      ['c2', 'planned'],
    ]);
  });

  it('the ledger\'s script refuses an untagged prefix at once (CROSSSLOT) instead of half-applying a move', async () => {
    const store = new IntentStore(asRedis(), 'jk-untagged');
    const err = await store.move('x', null, 'built').catch((e: unknown) => e);
    expect(String(err)).toMatch(/CROSSSLOT/);
  });

  it('the shared rate bucket takes, syncs and blocks', async () => {
    const spec = bucketForTier('free')!;
    const bucket = new RedisBucketStore(asRedis(), PREFIX);
    const now = 1_800_000_000_000;
    let taken = 0;
    while ((await bucket.take('key:free', 1, spec, now)) === 0) taken += 1;
    expect(taken).toBe(spec.capacity);
    await bucket.syncRemaining('key:free', 0, spec, now);
    await bucket.blockUntil('key:free', now + 5_000);
    expect(await bucket.take('key:free', 1, spec, now + 1)).toBeGreaterThanOrEqual(4_999);
  });

  it('the daily notional reservation stops at the limit', async () => {
    const risk = new RiskStore(asRedis(), PREFIX);
    const now = Date.UTC(2026, 0, 2);
    const reserve = (intentId: string, usd: number) => risk.reserveNotional({ intentId, usd, dailyLimit: 100, instance: 'a', instanceLimit: 80 }, now);
    expect(await reserve('i1', 60)).toBe('ok');
    expect(await reserve('i2', 50)).toBe('daily');
    expect(await reserve('i1', 60)).toBe('ok'); // the same intent again: reserved once
    expect(await reserve('i3', 30)).toBe('budget');
    expect(await risk.dailyNotional(now)).toBe(60);
  });

  it('a keeper pointed at the primary that owns the tag\'s slot trades (as README says)', async () => {
    const slot = Number(await cluster.cluster('KEYSLOT', '{jk-keeper}'));
    const ranges = await cluster.cluster('SLOTS');
    const owner = ranges.find(([from, to]) => slot >= from && slot <= to)![2]![1];
    const sim = await startTestSim({ clockSpeed: 1 });
    const scratch = scratchDir('cluster-keeper');
    const yaml = dcaConfig({ venueUrl: sim.url, prefix: '"{jk-keeper}"', maxRuns: 1 }).replace('wallet: {}\n', 'wallet:\n  paper: true\n  fund: { SOL: "2000000000" }\n');
    const k = spawnKeeper(['run', '--config', writeConfig(scratch.dir, yaml)], { REDIS_URL: `redis://127.0.0.1:${owner}` });
    try {
      const landed = await waitUntil('an intent to land', async () => (await readIntents(`redis://127.0.0.1:${owner}`, '{jk-keeper}')).find((i) => i.state === 'landed'), 60_000);
      expect(landed.intent.kind).toBe('swap');
    } finally {
      expect(await stopKeeper(k)).toBe(0);
      await sim.close();
      scratch.cleanup();
    }
  }, 90_000);

  it('BullMQ queues and workers run under the same prefix', async () => {
    const queue = new Queue('execute', { connection: cluster, prefix: PREFIX });
    const done: string[] = [];
    const worker = new Worker('execute', (job) => Promise.resolve(void done.push(job.id ?? '')), { connection: cluster, prefix: PREFIX });
    try {
      await queue.add('intent', { intentId: 'c1' }, { jobId: 'c1' });
      // Completed is recorded after the processor returns: wait for the record, not the processor.
      await waitUntil('the job to complete', async () => (await queue.getJobCounts('completed')).completed === 1, 15_000, 50);
      expect(done).toEqual(['c1']);
    } finally {
      await worker.close();
      await queue.close();
    }
  });
});
