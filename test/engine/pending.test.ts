import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { evaluate, type EvaluateDeps, type EvaluatedInstance } from '../../src/engine/evaluate.js';
import type { DecisionWindow } from '../../src/engine/ids.js';
import type { IntentState } from '../../src/engine/states.js';
import { silentLogger } from '../../src/lib/logger.js';
import { defineStrategy, type PendingIntentView } from '../../src/sdk/index.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { thresholdRebalance } from '../../strategies/index.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The path of an intent to `to` through the state machine. */
const PATH: Partial<Record<IntentState, IntentState[]>> = {
  submitted: ['planned', 'built', 'guarded', 'signed', 'submitted'],
  landed: ['planned', 'built', 'guarded', 'signed', 'submitted', 'landed'],
  failed: ['planned', 'built', 'guarded', 'signed', 'submitted', 'failed'],
};

describe('the pending intents a strategy sees', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-pending-${process.pid}`;
  const intents = new IntentStore(redis, prefix);
  const snapshots = new SnapshotStore(redis, prefix);
  const enqueued: string[] = [];
  const t0 = Date.UTC(2026, 10, 24, 12);
  const deps: EvaluateDeps = {
    snapshots: snapshotSource(snapshots),
    ledger: intentLedger(intents),
    states: new StrategyStateStore(redis, prefix),
    counters: new RiskStore(redis, prefix),
    enqueue: (id) => {
      enqueued.push(id);
      return Promise.resolve();
    },
    limits: { maxNotionalUsdPerIntent: 10_000, maxDailyNotionalUsd: 100_000, maxSlippageBps: 100, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] },
    maxIntentsPerEvaluation: 5,
    deadlineMs: 60_000,
    maxPriceAgeMs: 60_000,
    maxWalletAgeMs: 30_000,
    logger: silentLogger,
  };
  const w = (n: number): DecisionWindow => ({ id: n, start: t0 + n * 2_000 });
  /** The wallet as a feed saw it, its reads begun at `at` (and ended at `readAt`): `sol` SOL and `usdc` USDC. */
  const walletSeen = async (at: number, sol: bigint, usdc: bigint, readAt?: number, sent?: Record<string, 'in' | 'out' | 'unsure'>) =>
    snapshots.write('wallet', { at, ...(readAt === undefined ? {} : { readAt }), ...(sent === undefined ? {} : { sent }), address: 'W', lamports: sol, holdings: [{ mint: USDC, amount: usdc, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  /** Moves an intent along the state machine (from where it is) to `to`, each move as the executor makes it. */
  const moveTo = async (id: string, to: IntentState, at: number) => {
    const from = (await intents.get(id))!.state;
    const path = PATH[to]!;
    for (const step of path.slice(path.indexOf(from) + 1)) expect((await intents.move(id, null, step, {}, at)).ok, `${id} -> ${step}`).toBe(true);
  };

  beforeEach(async () => {
    await clearNamespace(redis, prefix);
    enqueued.length = 0;
    await snapshots.write('market', { at: t0, prices: { [SOL]: { usd: 200, decimals: 9, change24h: 0 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} });
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    await redis.quit();
  });

  describe('as ctx.pendingIntents', () => {
    // Asks for one swap in its first window, and writes down what it saw in every window.
    const seen: Array<readonly PendingIntentView[]> = [];
    const spy: EvaluatedInstance = {
      id: 'spy',
      params: {},
      definition: defineStrategy({
        name: 'spy',
        version: '1.0.0',
        params: z.object({}),
        watches: () => ({ mints: [SOL, USDC] }),
        decide: (ctx) => {
          seen.push(ctx.pendingIntents);
          return ctx.state.asked ? { intents: [], state: ctx.state } : { intents: [{ kind: 'swap', inputMint: SOL, outputMint: USDC, amount: 100_000_000n, reason: 'once' }], state: { asked: true } };
        },
      }),
    };
    const last = () => seen.at(-1)!;

    it('holds its planned and in-flight intents, and its landings until a wallet snapshot includes them', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      const first = await evaluate(spy, w(1), t0 + 2_000, deps);
      expect(last()).toEqual([]);
      const id = first.intents[0]!.id;
      await evaluate(spy, w(2), t0 + 4_000, deps);
      expect(last()).toEqual([{ id, kind: 'swap', state: 'planned', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 100_000_000n, reason: 'once' }, createdAt: t0 + 2_000 }]);
      await moveTo(id, 'submitted', t0 + 5_000);
      await evaluate(spy, w(3), t0 + 6_000, deps);
      expect(last().map((p) => p.state)).toEqual(['submitted']);

      // It lands after the wallet snapshot was taken: the wallet view does not show it yet.
      await moveTo(id, 'landed', t0 + 7_000);
      await evaluate(spy, w(4), t0 + 8_000, deps);
      expect(last().map((p) => [p.id, p.state])).toEqual([[id, 'landed']]);

      // A snapshot taken after the landing includes it: no longer pending.
      await walletSeen(t0 + 9_000, 4_900_000_000n, 20_000_000n);
      await evaluate(spy, w(5), t0 + 10_000, deps);
      expect(last()).toEqual([]);
      // Once the landing is older than any wallet snapshot a decision may use (feeds.maxWalletAge), it leaves the
      // instance's index: the read stays as small as what is in flight.
      expect(await redis.zcard(`${prefix}:intents:instance:spy`)).toBe(1);
      await walletSeen(t0 + 39_000, 4_900_000_000n, 20_000_000n);
      await evaluate(spy, w(20), t0 + 40_000, deps);
      expect(last()).toEqual([]);
      expect(await redis.zcard(`${prefix}:intents:instance:spy`)).toBe(0);
    });

    it('shows a landing it read before without reading it whole again, and reads afresh a ledger cleared and written again', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      const id = (await evaluate(spy, w(1), t0 + 2_000, deps)).intents[0]!.id;
      await moveTo(id, 'landed', t0 + 3_000);
      await evaluate(spy, w(2), t0 + 4_000, deps);
      expect(last().map((p) => [p.id, p.state])).toEqual([[id, 'landed']]);
      // Read again from memory: the same view, while the wallet snapshot is older than the landing.
      await evaluate(spy, w(3), t0 + 6_000, deps);
      expect(last()).toEqual([{ id, kind: 'swap', state: 'landed', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 100_000_000n, reason: 'once' }, createdAt: t0 + 2_000 }]);
      // Everything cleared: the same window decides the same intent id again, now planned, and that is what shows.
      await clearNamespace(redis, prefix);
      await snapshots.write('market', { at: t0, prices: { [SOL]: { usd: 200, decimals: 9, change24h: 0 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} });
      await walletSeen(t0, 5_000_000_000n, 0n);
      expect((await evaluate(spy, w(1), t0 + 2_000, deps)).intents[0]!.id).toBe(id);
      await evaluate(spy, w(2), t0 + 4_000, deps);
      expect(last().map((p) => [p.id, p.state])).toEqual([[id, 'planned']]);
    });

    it('is not decided on a wallet read while its swap settled, unless its strategy says it needs no exact wallet', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      const id = (await evaluate(spy, w(1), t0 + 2_000, deps)).intents[0]!.id;
      await moveTo(id, 'submitted', t0 + 3_000);
      // Read while the swap was in flight, with nothing known of it: the balances may or may not hold it.
      await walletSeen(t0 + 3_500, 5_000_000_000n, 0n, t0 + 3_600);
      await moveTo(id, 'landed', t0 + 3_800);
      const calls = seen.length;
      expect(await evaluate(spy, w(2), t0 + 4_000, deps)).toMatchObject({ outcome: 'skipped' });
      expect(seen.length).toBe(calls);
      // The same strategy saying exactWallet: false is decided, the swap shown pending (not taken for in the wallet).
      const relaxed: EvaluatedInstance = { ...spy, definition: defineStrategy({ ...spy.definition, exactWallet: false }) };
      expect(await evaluate(relaxed, w(3), t0 + 6_000, deps)).toMatchObject({ outcome: 'nothing' });
      expect(last().map((p) => [p.id, p.state])).toEqual([[id, 'landed']]);
    });

    it('leaves out intents that failed or were rejected: nothing happened', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      const first = await evaluate(spy, w(1), t0 + 2_000, deps);
      await moveTo(first.intents[0]!.id, 'failed', t0 + 3_000);
      await intents.create({ id: 'spy.swap.refused', instance: 'spy', strategy: 'spy@1.0.0', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 1n }, createdAt: t0 + 3_000, deadline: t0 + 60_000, rejection: { code: 'RISK_NOTIONAL', rule: 'max-notional-per-order', message: 'too big' } });
      await evaluate(spy, w(2), t0 + 4_000, deps);
      expect(last()).toEqual([]);
    });

    it('shows only its own instance', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      await intents.create({ id: 'other.swap.x', instance: 'other', strategy: 'dca-swap@1.0.0', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 5n }, createdAt: t0, deadline: t0 + 60_000 });
      await evaluate(spy, w(1), t0 + 2_000, deps);
      expect(last()).toEqual([]);
    });

    it('skips a pending record that does not parse, and names it', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      const first = await evaluate(spy, w(1), t0 + 2_000, deps);
      await redis.hset(`${prefix}:intent:${first.intents[0]!.id}`, 'intent', '{not json');
      const read = await intents.pending('spy', t0);
      expect(read).toEqual({ intents: [], corrupt: [{ id: first.intents[0]!.id, problem: expect.stringMatching(/JSON/) }] });
      await evaluate(spy, w(2), t0 + 4_000, deps);
      expect(last()).toEqual([]);
    });
  });

  describe('with the built-in rebalancer', () => {
    // 5 SOL at $200 and no USDC: 100 % SOL against a 50 % target, so the first window sells 2.5 SOL.
    const rebalancer: EvaluatedInstance = { id: 'rebal', definition: thresholdRebalance, params: thresholdRebalance.params.parse({ base: 'SOL', quote: 'USDC', targetBaseWeight: 0.5, bandPct: 5, maxSwapUsd: 1_000 }) };
    const swaps = async () => (await intents.all()).filter((r) => r.instance === 'rebal');

    it('issues one swap, not one per window, while its wallet feed lags', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      for (let n = 1; n <= 5; n += 1) await evaluate(rebalancer, w(n), t0 + n * 2_000, deps);
      expect((await swaps()).map((r) => r.intent)).toEqual([expect.objectContaining({ inputMint: SOL, outputMint: USDC, amount: 2_500_000_000n })]);

      // It lands; the wallet feed has still not run: the landing stays pending, no second swap.
      const [swap] = await swaps();
      await moveTo(swap!.id, 'landed', t0 + 11_000);
      for (let n = 6; n <= 8; n += 1) await evaluate(rebalancer, w(n), t0 + n * 2_000, deps);
      // The feed catches up with the swap's effect: balanced, nothing to do.
      await walletSeen(t0 + 17_000, 2_500_000_000n, 500_000_000n);
      for (let n = 9; n <= 10; n += 1) await evaluate(rebalancer, w(n), t0 + n * 2_000, deps);

      expect((await swaps()).map((r) => r.id)).toEqual([swap!.id]);
      expect(enqueued).toEqual([swap!.id]);
    });

    it('does not decide on a wallet read while its swap settled, before the landing was recorded', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      await evaluate(rebalancer, w(1), t0 + 2_000, deps);
      const [swap] = await swaps();
      await moveTo(swap!.id, 'submitted', t0 + 3_000);
      // The swap settles on chain; the feed reads the wallet from t0 + 3.5 s to t0 + 3.6 s and sees it; the executor
      // records the landing at t0 + 3.8 s. Counted as pending, the swap would be taken off a wallet that already
      // shows it: 0 % SOL, and a swap back.
      await walletSeen(t0 + 3_500, 2_500_000_000n, 500_000_000n, t0 + 3_600);
      await moveTo(swap!.id, 'landed', t0 + 3_800);
      const waiting = await evaluate(rebalancer, w(2), t0 + 4_000, deps);
      expect(waiting).toMatchObject({ outcome: 'skipped', message: `waiting for a wallet snapshot read after its swap ${swap!.id} settled (the last one was read while it was being sent)` });
      expect(await new StrategyStateStore(redis, prefix).lastDecision('rebal')).toMatchObject({ outcome: 'skipped' });

      // The next snapshot was read after the landing was recorded: balanced, nothing to do.
      await walletSeen(t0 + 5_000, 2_500_000_000n, 500_000_000n, t0 + 5_100);
      expect(await evaluate(rebalancer, w(3), t0 + 6_000, deps)).toMatchObject({ outcome: 'nothing' });
      expect((await swaps()).map((r) => r.id)).toEqual([swap!.id]);
    });

    it('decides on a wallet read while its swap was in flight, as the feed found that swap on chain', async () => {
      for (const [found, sol, usdc] of [['in', 2_500_000_000n, 500_000_000n], ['out', 5_000_000_000n, 0n]] as const) {
        await clearNamespace(redis, prefix);
        await snapshots.write('market', { at: t0, prices: { [SOL]: { usd: 200, decimals: 9, change24h: 0 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} });
        await walletSeen(t0, 5_000_000_000n, 0n);
        await evaluate(rebalancer, w(1), t0 + 2_000, deps);
        const [swap] = await swaps();
        await moveTo(swap!.id, 'submitted', t0 + 3_000);
        // Settled before the reads (the balances show it) or not yet after them (they do not): either way known.
        await walletSeen(t0 + 3_500, sol, usdc, t0 + 3_600, { [swap!.id]: found });
        await moveTo(swap!.id, 'landed', t0 + 3_800);
        expect(await evaluate(rebalancer, w(2), t0 + 4_000, deps), found).toMatchObject({ outcome: 'nothing' });
        expect((await swaps()).map((r) => r.id), found).toEqual([swap!.id]);
      }
    });

    it('decides on a wallet read before its swap was sent, the swap pending', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      await evaluate(rebalancer, w(1), t0 + 2_000, deps);
      const [swap] = await swaps();
      // Read from t0 + 2.5 s to t0 + 2.9 s, the swap sent at t0 + 3 s: not in the wallet, and pending.
      await walletSeen(t0 + 2_500, 5_000_000_000n, 0n, t0 + 2_900);
      await moveTo(swap!.id, 'submitted', t0 + 3_000);
      expect(await evaluate(rebalancer, w(2), t0 + 4_000, deps)).toMatchObject({ outcome: 'nothing' });
      expect((await swaps()).map((r) => r.id)).toEqual([swap!.id]);
    });

    it('asks again once its swap failed (nothing moved, the drift is still there)', async () => {
      await walletSeen(t0, 5_000_000_000n, 0n);
      await evaluate(rebalancer, w(1), t0 + 2_000, deps);
      const [swap] = await swaps();
      await moveTo(swap!.id, 'failed', t0 + 3_000);
      await evaluate(rebalancer, w(2), t0 + 4_000, deps);
      expect((await swaps()).map((r) => r.intent)).toEqual([1, 2].map(() => expect.objectContaining({ inputMint: SOL, amount: 2_500_000_000n })));
    });
  });
});
