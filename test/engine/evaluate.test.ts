import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { evaluate, type EvaluateDeps, type EvaluatedInstance } from '../../src/engine/evaluate.js';
import { intentId, type DecisionWindow } from '../../src/engine/ids.js';
import { silentLogger } from '../../src/lib/logger.js';
import { IntentStore } from '../../src/store/intents.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { clearNamespace } from '../../src/store/redis.js';
import { defineStrategy } from '../../src/sdk/index.js';
import * as broken from '../fixtures/strategies/broken.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

describe('evaluation of a strategy', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-eval-${process.pid}`;
  const intents = new IntentStore(redis, prefix);
  const snapshots = new SnapshotStore(redis, prefix);
  const states = new StrategyStateStore(redis, prefix);
  const risk = new RiskStore(redis, prefix);
  const enqueued: string[] = [];
  let now = Date.UTC(2026, 10, 22, 12);
  const deps = (over: Partial<EvaluateDeps> = {}): EvaluateDeps => ({
    snapshots: snapshotSource(snapshots),
    ledger: intentLedger(intents),
    states,
    counters: risk,
    enqueue: (id) => {
      enqueued.push(id);
      return Promise.resolve();
    },
    limits: { maxNotionalUsdPerIntent: 100, maxDailyNotionalUsd: 150, maxSlippageBps: 100, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] },
    maxIntentsPerEvaluation: 5,
    deadlineMs: 60_000,
    maxPriceAgeMs: 60_000,
    maxWalletAgeMs: 30_000,
    logger: silentLogger,
    ...over,
  });
  const instance = (definition: EvaluatedInstance['definition'], params: unknown = {}): EvaluatedInstance => ({ id: `inst-${definition.name}`, definition, params });
  /** Window n of a 1 s cadence. */
  const w = (n: number): DecisionWindow => ({ id: n, start: n * 1_000 });

  const writeSnapshots = async (at: number, lamports = 5_000_000_000n, warnings: Array<{ type: string; severity: string; message: string }> = []) => {
    await snapshots.write('market', {
      at,
      prices: { [SOL]: { usd: 200, decimals: 9, change24h: 1 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } },
      tokens: { [USDC]: { mint: USDC, symbol: 'USDC', decimals: 6, verified: true, warnings } },
    });
    await snapshots.write('wallet', { at, address: 'W', lamports, holdings: [{ mint: USDC, amount: 0n, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  };

  beforeAll(async () => clearNamespace(redis, prefix));
  beforeEach(async () => {
    await clearNamespace(redis, prefix);
    enqueued.length = 0;
    now += 86_400_000;
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    await redis.quit();
  });

  describe('when the strategy misbehaves', () => {
    it.each([
      ['throws', broken.throws, /decide\(\) threw: division by zero/],
      ['returns a non-integer amount', broken.badIntent, /intent 0 is invalid: amount/],
      ['returns a promise', broken.asyncDecide, /must be synchronous/],
      ['returns too many intents', broken.tooMany, /returned 50 intents; the limit per evaluation is 5/],
    ])('discards the decision when it %s, records why, and plans nothing', async (_label, definition, message) => {
      await writeSnapshots(now);
      const summary = await evaluate(instance(definition), w(1), now, deps());
      expect(summary.outcome).toBe('error');
      expect(summary.message).toMatch(message);
      expect(enqueued).toEqual([]);
      expect(await intents.all()).toEqual([]);
      expect((await states.lastDecision(`inst-${definition.name}`))?.message).toMatch(message);
    });

    it('cannot change its own persisted state by mutating the context', async () => {
      await writeSnapshots(now);
      await expect(evaluate(instance(broken.mutatesContext), w(1), now, deps())).resolves.toMatchObject({ outcome: 'error' });
      expect(await states.getState('inst-mutates-context')).toEqual({});
    });
  });

  describe('when the strategy decides a swap', () => {
    const good = () => instance(broken.good, { amount: 100_000_000n });

    it('plans it once per window under a deterministic id, and persists the strategy state', async () => {
      await writeSnapshots(now);
      const a = await evaluate(good(), w(7), now, deps());
      expect(a).toMatchObject({ outcome: 'intents', intents: [{ state: 'planned' }] });
      expect(enqueued).toEqual([a.intents[0]!.id]);
      expect(await states.getState('inst-good')).toEqual({ runs: 1 });
      const c = await evaluate(good(), w(8), now, deps());
      expect(c.intents[0]!.id).not.toBe(a.intents[0]!.id);
      expect(await intents.all()).toHaveLength(2);
      expect(await states.getState('inst-good')).toEqual({ runs: 2 });
    });

    it('changes nothing when the same window is evaluated again (a re-delivered job)', async () => {
      await writeSnapshots(now);
      const a = await evaluate(good(), w(7), now, deps());
      const b = await evaluate(good(), w(7), now + 500, deps());
      expect(b).toMatchObject({ outcome: 'skipped', message: 'this window was already decided; a replay changes nothing' });
      // It names the window's intent and hands it to the queue again (the job id makes that a no-op).
      expect(b.intents.map((i) => i.id)).toEqual([a.intents[0]!.id]);
      expect(enqueued).toEqual([a.intents[0]!.id, a.intents[0]!.id]);
      expect(await intents.all()).toHaveLength(1);
      expect(await states.getState('inst-good')).toEqual({ runs: 1 });
      expect((await states.lastDecision('inst-good'))?.outcome).toBe('intents');
    });

    it('changes nothing when an older window arrives after a newer one was decided', async () => {
      await writeSnapshots(now);
      await evaluate(good(), w(8), now, deps());
      const late = await evaluate(good(), w(7), now, deps());
      expect(late).toMatchObject({ outcome: 'skipped', intents: [], message: 'a later window was already decided; this late one changes nothing' });
      expect(await intents.all()).toHaveLength(1);
      expect(await states.getState('inst-good')).toEqual({ runs: 1 });
    });

    it('records nothing when it crashes before the commit; the replay records the same intent once', async () => {
      await writeSnapshots(now);
      const crashing: EvaluateDeps['states'] = { loadShard: (k, i) => states.loadShard(k, i), recordDecisions: (d) => states.recordDecisions(d), commitShard: () => Promise.reject(new Error('process killed')) };
      await expect(evaluate(good(), w(7), now, deps({ states: crashing }))).rejects.toThrow('process killed');
      expect(await intents.all()).toEqual([]);
      expect(await states.getState('inst-good')).toEqual({});
      const replay = await evaluate(good(), w(7), now + 1_000, deps());
      const intent = (await intents.all())[0]!.intent;
      expect(replay.intents.map((i) => i.id)).toEqual([intentId('inst-good', intent, 7)]);
      expect(await states.getState('inst-good')).toEqual({ runs: 1 });
    });

    it('when it crashes after recording the intent and before queueing it, the replay queues it and writes no state', async () => {
      await writeSnapshots(now);
      const crashing = deps({ enqueue: () => Promise.reject(new Error('process killed')) });
      await expect(evaluate(good(), w(7), now, crashing)).rejects.toThrow('process killed');
      const [recorded] = await intents.all();
      expect(recorded).toMatchObject({ state: 'planned' });
      expect(enqueued).toEqual([]);
      const replay = await evaluate(good(), w(7), now + 1_000, deps());
      expect(replay.outcome).toBe('skipped');
      expect(enqueued).toEqual([recorded!.id]);
      expect(await intents.all()).toHaveLength(1);
      expect(await states.getState('inst-good')).toEqual({ runs: 1 });
    });

    it('records a rejection by the risk gate with its reason, and does not execute it', async () => {
      await writeSnapshots(now);
      const summary = await evaluate(instance(broken.good, { amount: 1_000_000_000n }), w(1), now, deps());
      expect(summary.intents[0]).toMatchObject({ state: 'rejected' });
      expect(summary.intents[0]!.reason).toMatch(/above the per-order limit of \$100/);
      expect(enqueued).toEqual([]);
      expect((await intents.get(summary.intents[0]!.id))?.error?.code).toBe('RISK_NOTIONAL');
    });

    it('stops at the daily notional limit', async () => {
      await writeSnapshots(now);
      const results = [];
      for (let n = 1; n <= 4; n += 1) results.push(await evaluate(instance(broken.good, { amount: 250_000_000n }), w(n), now, deps()));
      expect(results.map((r) => r.intents[0]!.state)).toEqual(['planned', 'planned', 'planned', 'rejected']);
      expect(results[3]!.intents[0]!.reason).toMatch(/today's limit of \$150/);
    });

    it('refuses to buy a token with a critical shield warning', async () => {
      await writeSnapshots(now, 5_000_000_000n, [{ type: 'NOT_SELLABLE', severity: 'critical', message: 'cannot be sold' }]);
      const summary = await evaluate(instance(broken.good, { amount: 10_000_000n }), w(1), now, deps());
      expect((await intents.get(summary.intents[0]!.id))?.error?.code).toBe('RISK_SHIELD');
    });

    it('keeps the SOL reserve', async () => {
      await writeSnapshots(now, 105_000_000n);
      const summary = await evaluate(instance(broken.good, { amount: 100_000_000n }), w(1), now, deps());
      // The wallet holds the 0.1 SOL asked for, but spending it would leave less than the 0.01 SOL kept for fees.
      expect((await intents.get(summary.intents[0]!.id))?.error).toMatchObject({ code: 'RISK_SOL_RESERVE', rule: 'min-sol-reserve' });
    });

    it('refuses every intent while the kill switch is engaged', async () => {
      await writeSnapshots(now);
      await risk.setHalted('operator pressed stop');
      const summary = await evaluate(instance(broken.good, { amount: 10_000_000n }), w(1), now, deps());
      await risk.setHalted(null);
      expect(summary.intents[0]!.reason).toMatch(/trading is halted: operator pressed stop/);
      expect(enqueued).toEqual([]);
    });
  });

  describe('when the data is missing or stale', () => {
    it('skips without deciding', async () => {
      const missing = await evaluate(instance(broken.good, { amount: 1n }), w(1), now, deps());
      expect(missing).toMatchObject({ outcome: 'skipped' });
      await writeSnapshots(now - 120_000);
      const stale = await evaluate(instance(broken.good, { amount: 1n }), w(1), now, deps());
      expect(stale.message).toMatch(/the market snapshot is 120 s old \(feeds.maxPriceAge 60 s\); not deciding on stale data/);
      expect(await intents.all()).toEqual([]);
    });

    it('holds the wallet snapshot to its own, tighter limit', async () => {
      await writeSnapshots(now - 45_000);
      const stale = await evaluate(instance(broken.good, { amount: 1n }), w(1), now, deps());
      expect(stale).toMatchObject({ outcome: 'skipped', message: 'the wallet snapshot is 45 s old (feeds.maxWalletAge 30 s); not deciding on stale data' });
      expect(await intents.all()).toEqual([]);
      expect(await states.getState('inst-good')).toEqual({});
      // A skipped window is not applied: the same window decides once fresh data arrives.
      await writeSnapshots(now);
      expect((await evaluate(instance(broken.good, { amount: 1n }), w(1), now, deps())).outcome).toBe('intents');
    });

    it('waits for the first prediction snapshot when the strategy watches prediction markets', async () => {
      await writeSnapshots(now);
      // Watches a market: the gate needs its close time, and a one-shot buy refused for it would not be asked again.
      const watcher = instance(defineStrategy({ ...broken.good, name: 'watches-a-market', watches: () => ({ mints: [SOL], predictionMarkets: ['POLY-1'] }) }), { amount: 1n });
      expect(await evaluate(watcher, w(1), now, deps())).toMatchObject({ outcome: 'skipped', message: 'waiting for the first prediction snapshot' });
      expect(await intents.all()).toEqual([]);
      // One that watches none does not wait for it.
      expect((await evaluate(instance(broken.good, { amount: 1n }), w(1), now, deps())).outcome).toBe('intents');
      await snapshots.write('prediction', { at: now, events: [] });
      expect((await evaluate(watcher, w(1), now, deps())).outcome).toBe('intents');
    });
  });
});
