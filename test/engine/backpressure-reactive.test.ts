import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { evaluate, type EvaluateDeps } from '../../src/engine/evaluate.js';
import { shardRunner } from '../../src/engine/shardRunner.js';
import { silentLogger } from '../../src/lib/logger.js';
import { defineStrategy } from '../../src/sdk/index.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** Buys SOL with 1 USDC when SOL is below `below` (a stop-like trigger), counting its decisions. */
const dipBuyer = defineStrategy({
  name: 'dip-buyer',
  version: '1.0.0',
  params: z.object({ below: z.number() }),
  watches: () => ({ mints: [SOL, USDC] }),
  reactive: true,
  decide: (ctx) => ({
    intents: (ctx.price(SOL)?.usd ?? Infinity) < ctx.params.below ? [{ kind: 'swap' as const, inputMint: USDC, outputMint: SOL, amount: 1_000_000n }] : [],
    state: { decisions: Number(ctx.state.decisions ?? 0) + 1 },
  }),
});

describe('backpressure and reactive evaluation', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-bp-${process.pid}`;
  const intents = new IntentStore(redis, prefix);
  const snapshots = new SnapshotStore(redis, prefix);
  const states = new StrategyStateStore(redis, prefix);
  let backlog = 0;
  const queued: string[] = [];
  const deps = (over: Partial<EvaluateDeps> = {}): EvaluateDeps => ({
    snapshots: snapshotSource(snapshots),
    ledger: intentLedger(intents),
    states,
    counters: new RiskStore(redis, prefix),
    enqueue: (id) => {
      queued.push(id);
      return Promise.resolve();
    },
    backlog: () => Promise.resolve(backlog),
    maxBacklog: 10,
    limits: { maxNotionalUsdPerIntent: 1e6, maxDailyNotionalUsd: 1e6, maxSlippageBps: 300, minSolReserveLamports: 0n, refuseShieldSeverities: [] },
    maxIntentsPerEvaluation: 5,
    deadlineMs: 60_000,
    maxPriceAgeMs: 3_600_000,
    maxWalletAgeMs: 3_600_000,
    logger: silentLogger,
    ...over,
  });
  const writeSnapshots = async (at: number, solUsd: number) => {
    await snapshots.write('market', { at, prices: { [SOL]: { usd: solUsd, decimals: 9, change24h: null }, [USDC]: { usd: 1, decimals: 6, change24h: null } }, tokens: {} });
    await snapshots.write('wallet', { at, address: 'W', lamports: 1_000_000_000n, holdings: [{ mint: USDC, amount: 100_000_000n, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  };
  beforeEach(async () => {
    await clearNamespace(redis, prefix);
    backlog = 0;
    queued.length = 0;
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    redis.disconnect();
  });

  it('decides nothing while the execution backlog is at its limit, says why, and decides at the next window once it drains', async () => {
    const now = Date.now();
    await writeSnapshots(now, 100);
    const instance = { id: 'dip', definition: dipBuyer, params: { below: 150 } };
    backlog = 10;
    const held = await evaluate(instance, { id: 1, start: 1_000 }, now, deps());
    expect(held).toMatchObject({ outcome: 'skipped', message: '10 planned intents wait for execution (execution.maxBacklog 10); deciding again next window' });
    expect(await intents.all()).toEqual([]);
    expect(queued).toEqual([]);
    // Nothing was decided, so nothing was lost: the state did not move and the next window decides.
    expect(await states.getState('dip')).toEqual({});
    backlog = 9;
    const next = await evaluate(instance, { id: 2, start: 2_000 }, now, deps());
    expect(next.outcome).toBe('intents');
    expect(queued).toHaveLength(1);
    expect(await states.getState('dip')).toEqual({ decisions: 1 });
  });

  it('wakes a reactive shard on a new price snapshot, as a window of its own that a replay or a late tick does not decide again', async () => {
    const now = Date.now();
    const runner = shardRunner(
      [
        { id: 'dip', definition: dipBuyer, params: { below: 150 }, cadence: { every: 3_600_000 }, reactive: true },
        { id: 'calm', definition: dipBuyer, params: { below: 150 }, cadence: { every: 3_600_000 }, reactive: false },
      ],
      500,
      { ...deps(), logger: silentLogger },
    );
    expect(runner.plan.map((s) => [s.key, s.reactive, s.instances])).toEqual([
      ['e3600000.0of1', false, ['calm']],
      ['re3600000.0of1', true, ['dip']],
    ]);
    expect(runner.reactive).toEqual(['re3600000.0of1']);
    // The hourly tick: SOL at $200, nothing to do.
    const hour = Math.floor(now / 3_600_000) * 3_600_000;
    await writeSnapshots(now, 200);
    expect((await runner.run('re3600000.0of1', { kind: 'schedule', scheduledAtMs: hour }))!.get('dip')!.outcome).toBe('nothing');
    // SOL drops to $120 in the next price snapshot: the reactive shard decides at once, not at the next hour.
    await writeSnapshots(now + 1_000, 120);
    const woken = (await runner.run('re3600000.0of1', { kind: 'prices', snapshotAt: now + 1_000 }))!.get('dip')!;
    expect(woken.outcome).toBe('intents');
    expect(queued).toHaveLength(1);
    // The same snapshot's job again (a re-delivery) decides nothing more; nor does a non-reactive shard wake.
    expect((await runner.run('re3600000.0of1', { kind: 'prices', snapshotAt: now + 1_000 }))!.get('dip')!.message).toBe('this window was already decided; a replay changes nothing');
    expect(await runner.run('e3600000.0of1', { kind: 'prices', snapshotAt: now + 1_000 })).toBeUndefined();
    // One intent recorded; the replay only handed the same id to the queue again (a no-op there: the id is the job id).
    expect(await intents.all()).toHaveLength(1);
    expect(new Set(queued).size).toBe(1);
    expect(await states.getState('dip')).toEqual({ decisions: 2 });
    expect(await states.getState('calm')).toEqual({});
  });
});
