import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { evaluateShard, type EvaluateDeps, type EvaluatedInstance } from '../../src/engine/evaluate.js';
import { silentLogger } from '../../src/lib/logger.js';
import { defineStrategy } from '../../src/sdk/index.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { readStatus } from '../../src/store/status.js';
import { startRedisServer, type RedisServer } from './redisServer.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const EVERY = 5_000;

/** Decides nothing; says why when `say` is set (the same text every window, or one with the window's time). */
const waiting = defineStrategy({
  name: 'waiting',
  version: '1.0.0',
  params: z.object({ say: z.enum(['nothing', 'same', 'changing']) }),
  watches: () => ({ mints: [SOL, USDC] }),
  decide: (ctx) => {
    if (ctx.params.say === 'same') ctx.log.debug('no action: waiting for the price history');
    if (ctx.params.say === 'changing') ctx.log.info(`no action: ${ctx.now} samples so far`);
    return [];
  },
});

// What status says about an instance's evaluations, on a Redis of the test's own (its command counts are the
// evaluations' alone): when it was last evaluated, its last changed decision, and its last message, and what that
// costs Redis per window.
describe('when each instance was last evaluated', () => {
  let server: RedisServer;
  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    await server?.stop();
  });

  const world = (prefix: string) => {
    const redis = server.client();
    const snapshots = new SnapshotStore(redis, prefix);
    const states = new StrategyStateStore(redis, prefix);
    const deps: EvaluateDeps = {
      snapshots: snapshotSource(snapshots),
      ledger: intentLedger(new IntentStore(redis, prefix)),
      states,
      counters: new RiskStore(redis, prefix),
      enqueue: () => Promise.resolve(),
      decisionCache: new Map(),
      limits: { maxNotionalUsdPerIntent: 100, maxDailyNotionalUsd: 150, maxSlippageBps: 100, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] },
      maxIntentsPerEvaluation: 5,
      deadlineMs: 60_000,
      maxPriceAgeMs: 60_000,
      maxWalletAgeMs: 60_000,
      logger: silentLogger,
    };
    const writeSnapshots = async (at: number) => {
      await snapshots.write('market', { at, prices: { [SOL]: { usd: 200, decimals: 9, change24h: 1 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} });
      await snapshots.write('wallet', { at, address: 'W', lamports: 5_000_000_000n, holdings: [], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
    };
    const meta = async (ids: readonly string[]) => {
      await redis.hset(`${prefix}:meta`, { strategies: JSON.stringify(ids.map((id) => ({ id, strategy: 'waiting', version: '1.0.0', schedule: { every: EVERY } }))) });
    };
    const status = (now: number) => readStatus(redis, { redisUrl: server.url, prefix }, now);
    return { redis, states, deps, writeSnapshots, meta, status };
  };
  const instances = (n: number, say: 'nothing' | 'same' | 'changing', from = 0): EvaluatedInstance[] => Array.from({ length: n }, (_, i) => ({ id: `w${from + i}`, definition: waiting, params: { say } }));
  const windowAt = (at: number) => ({ id: Math.floor(at / EVERY), start: Math.floor(at / EVERY) * EVERY });

  it('shows every window as an evaluation while the decision, unchanged, keeps the time it was first made', async () => {
    const w = world('last-eval-status');
    const shard = { key: 'e5000.0of1', instances: [...instances(1, 'changing'), ...instances(1, 'same', 1), ...instances(1, 'nothing', 2)] };
    await w.meta(['w0', 'w1', 'w2', 'never']);
    const t0 = Date.UTC(2026, 10, 28, 10, 0, 1);
    for (let n = 0; n < 4; n += 1) {
      const at = t0 + n * EVERY;
      await w.writeSnapshots(at);
      await evaluateShard(shard, windowAt(at), at, w.deps);
    }
    const last = t0 + 3 * EVERY;
    const doc = await w.status(last + 1_000);
    const byId = new Map(doc.strategies.map((s) => [s.id, s]));
    for (const id of ['w0', 'w1', 'w2']) {
      // Evaluated a second ago, in the last window; the decision "nothing" dates from the first window.
      expect(byId.get(id)).toMatchObject({ lastEvaluation: { at: last, window: windowAt(last).start }, lastDecision: { at: t0, outcome: 'nothing' } });
    }
    // The last line each one logged: a changing text as of its last window, a repeated one as of when it was first said.
    expect(byId.get('w0')!.lastMessage).toEqual({ at: last, level: 'info', text: `no action: ${last} samples so far` });
    expect(byId.get('w1')!.lastMessage).toEqual({ at: t0, level: 'debug', text: 'no action: waiting for the price history' });
    expect(byId.get('w2')!.lastMessage).toBeNull();
    // An instance no shard evaluated yet.
    expect(byId.get('never')).toMatchObject({ lastEvaluation: null, lastDecision: null, lastMessage: null });
  });

  it('counts a skipped window as an evaluation', async () => {
    const w = world('last-eval-skip');
    const shard = { key: 'e5000.0of1', instances: instances(1, 'same') };
    await w.meta(['w0']);
    const t0 = Date.UTC(2026, 10, 28, 11, 0, 1);
    // No snapshot yet: every window is skipped, with the same reason.
    for (let n = 0; n < 3; n += 1) await evaluateShard(shard, windowAt(t0 + n * EVERY), t0 + n * EVERY, w.deps);
    const [s] = (await w.status(t0 + 2 * EVERY + 500)).strategies;
    expect(s).toMatchObject({ lastEvaluation: { at: t0 + 2 * EVERY }, lastDecision: { at: t0, outcome: 'skipped', message: 'waiting for the first market and wallet snapshots' }, lastMessage: null });
  });

  it('costs one write per shard per window for instances that decide nothing, whatever their number', async () => {
    const w = world('last-eval-cost');
    // 2,000 instances in four shards of 500, each saying the same thing every window.
    const shards = [0, 1, 2, 3].map((k) => ({ key: `e5000.${k}of4`, instances: instances(500, 'same', k * 500) }));
    const t0 = Date.UTC(2026, 10, 28, 12, 0, 1);
    const round = async (at: number) => {
      await w.writeSnapshots(at);
      for (const shard of shards) await evaluateShard(shard, windowAt(at), at, w.deps);
    };
    await round(t0);
    await round(t0 + EVERY);
    const admin = server.client();
    await admin.config('RESETSTAT');
    const before = await admin.dbsize();
    await round(t0 + 2 * EVERY);
    const stats = await admin.info('commandstats');
    const calls = (cmd: string) => Number(new RegExp(`cmdstat_${cmd}:calls=(\\d+)`).exec(stats)?.[1] ?? 0);
    // Per shard: the commit moves the shard's window (one SET in its script) and the evaluation's record (one HSET);
    // the snapshots written by the test are two more SETs. Nothing per instance, and no key added.
    expect(calls('hset')).toBe(shards.length);
    expect(calls('set')).toBe(shards.length + 2);
    expect(calls('mset') + calls('hmset') + calls('setex') + calls('psetex')).toBe(0);
    expect(await admin.dbsize()).toBe(before);
    // And status reads it for every instance: the third window, with the message as first said.
    await w.meta(shards.flatMap((s) => s.instances.map((i) => i.id)));
    const doc = await w.status(t0 + 2 * EVERY + 1_000);
    expect(doc.strategies).toHaveLength(2_000);
    for (const s of doc.strategies) {
      expect(s.lastEvaluation).toEqual({ at: t0 + 2 * EVERY, window: windowAt(t0 + 2 * EVERY).start });
      expect(s.lastMessage).toEqual({ at: t0, level: 'debug', text: 'no action: waiting for the price history' });
    }
    admin.disconnect();
  }, 60_000);
});
