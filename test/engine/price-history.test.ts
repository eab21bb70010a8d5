import { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { evaluateShard, type EvaluateDeps, type EvaluatedInstance } from '../../src/engine/evaluate.js';
import { silentLogger } from '../../src/lib/logger.js';
import { defineStrategy, type PricePoint } from '../../src/sdk/index.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { builtinStrategies } from '../../strategies/index.js';
import { waitUntil } from '../helpers/e2e.js';
import { z } from 'zod';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const HISTORY = { keepMs: 10_000, resolutionMs: 1_000 };
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What each decide() of the probe saw of SOL's history: the array itself (to tell shared from copied). */
const seen: Array<readonly PricePoint[]> = [];
// A strategy that only looks: it records the history it was handed and keeps its length and newest price.
const probe = defineStrategy({
  name: 'history-probe',
  version: '1.0.0',
  params: z.object({ mint: z.string() }),
  watches: (p) => ({ mints: [p.mint, USDC] }),
  decide: (ctx) => {
    const history = ctx.priceHistory(ctx.params.mint);
    seen.push(history);
    return { intents: [], state: { samples: history.length, newest: history.at(-1)?.usd ?? null } };
  },
});

describe('the price history the engine keeps', () => {
  const redis = new Redis(url);
  const prefix = `test-hist-${process.pid}`;
  const t0 = Date.UTC(2026, 10, 27, 12);
  let clients: Redis[] = [];
  const client = (): Redis => {
    const r = new Redis(url);
    clients.push(r);
    return r;
  };
  /** A keeper's stores on a connection of their own: a new one is a restarted keeper (nothing cached). */
  const keeperStores = () => {
    const r = client();
    return { snapshots: new SnapshotStore(r, prefix, { priceHistory: HISTORY }), states: new StrategyStateStore(r, prefix), intents: new IntentStore(r, prefix), risk: new RiskStore(r, prefix) };
  };
  const deps = (k: ReturnType<typeof keeperStores>): EvaluateDeps => ({
    snapshots: snapshotSource(k.snapshots),
    ledger: intentLedger(k.intents),
    states: k.states,
    counters: k.risk,
    enqueue: () => Promise.resolve(),
    limits: { maxNotionalUsdPerIntent: 100, maxDailyNotionalUsd: 150, maxSlippageBps: 100, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] },
    maxIntentsPerEvaluation: 5,
    deadlineMs: 60_000,
    maxPriceAgeMs: 60_000,
    maxWalletAgeMs: 60_000,
    logger: silentLogger,
  });
  /** The feed's writes: a market snapshot every `everyMs` from `from` to `to`, SOL's price rising a dollar a second. */
  const feed = async (snapshots: SnapshotStore, from: number, to: number, everyMs: number) => {
    for (let at = from; at <= to; at += everyMs) {
      await snapshots.write('market', { at, prices: { [SOL]: { usd: 100 + (at - t0) / 1_000, decimals: 9, change24h: null }, [USDC]: { usd: 1, decimals: 6, change24h: null } }, tokens: {} });
    }
    await snapshots.write('wallet', { at: to, address: 'W', lamports: 1_000_000_000n, holdings: [], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  };

  beforeEach(async () => {
    await clearNamespace(redis, prefix);
    seen.length = 0;
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    for (const c of clients) c.disconnect();
    clients = [];
    await redis.quit();
  });

  it('samples the market feed once per resolution period and keeps only the retention', async () => {
    const k = keeperStores();
    // A snapshot every 250 ms for 20 s, one sample a second kept for 10 s.
    await feed(k.snapshots, t0, t0 + 20_000, 250);
    const history = (await k.snapshots.priceHistory([SOL, USDC, JUP], t0 + 20_000)).get(SOL)!;
    expect(history.map((p) => p.at - t0)).toEqual([10_000, 11_000, 12_000, 13_000, 14_000, 15_000, 16_000, 17_000, 18_000, 19_000, 20_000]);
    expect(history.at(-1)).toEqual({ at: t0 + 20_000, usd: 120 });
    // The snapshot itself is written as before, in the same round trip.
    expect((await k.snapshots.read('market'))!.at).toBe(t0 + 20_000);
    // A mint the feed never priced has no history; none outlives the retention in Redis either.
    expect((await k.snapshots.priceHistory([JUP], t0 + 20_000)).get(JUP)).toEqual([]);
    expect(await redis.pttl(`${prefix}:hist:${SOL}`)).toBeGreaterThan(9_000);
    expect(await redis.zcard(`${prefix}:hist:${SOL}`)).toBe(11);
  });

  it('1,000 instances in two shards read each watched mint once per market snapshot, and all see the same frozen history', async () => {
    const k = keeperStores();
    await feed(k.snapshots, t0, t0 + 9_000, 1_000);
    const instances: EvaluatedInstance[] = Array.from({ length: 1_000 }, (_, i) => ({ id: `probe-${i}`, definition: probe, params: { mint: SOL } }));
    const shards = [0, 1].map((n) => ({ key: `hist.${n}of2`, instances: instances.filter((_, i) => i % 2 === n) }));
    const tick = async (window: number, now: number) => {
      for (const shard of shards) await evaluateShard(shard, { id: window, start: window }, now, deps(k));
    };

    // Every command Redis runs, as MONITOR reports them: the history reads of this prefix's keys (not the feed
    // script's own commands), up to a marker that says the monitor has caught up.
    const watcher = client();
    const reads: string[] = [];
    const markers = new Set<string>();
    const monitor = await watcher.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (args[1] === `${prefix}:marker`) markers.add(String(args[0]).toLowerCase());
      if (source !== 'lua' && /^zrange/i.test(args[0] ?? '') && args[1]?.startsWith(`${prefix}:hist:`)) reads.push(args[1].slice(prefix.length + 6));
    });
    const caughtUp = async () => {
      await redis.exists(`${prefix}:marker`);
      await waitUntil('the monitor to catch up', () => markers.has('exists') || undefined, 5_000, 10);
      markers.clear();
    };
    try {
      await tick(t0 + 9_000, t0 + 9_500);
      await caughtUp();
      expect(reads.sort()).toEqual([SOL, USDC].sort());
      expect(seen).toHaveLength(1_000);
      expect(new Set(seen).size).toBe(1);
      expect(Object.isFrozen(seen[0]) && Object.isFrozen(seen[0]![0])).toBe(true);
      expect(seen[0]!.map((p) => p.at - t0)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000]);

      // The next snapshot: one more sample; again one read per mint for both shards, and only what is new crosses
      // the wire.
      reads.length = 0;
      seen.length = 0;
      await feed(k.snapshots, t0 + 10_000, t0 + 10_000, 1_000);
      await tick(t0 + 10_000, t0 + 10_200);
      await caughtUp();
      expect(reads.sort()).toEqual([SOL, USDC].sort());
      expect(new Set(seen).size).toBe(1);
      expect(seen[0]!.map((p) => p.at - t0)).toEqual([1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000]);
      expect(await k.states.getState('probe-999')).toEqual({ samples: 10, newest: 110 });
    } finally {
      watcher.disconnect();
    }
  });

  it('survives a restart of the keeper: a new process reads the whole history from Redis', async () => {
    const before = keeperStores();
    await feed(before.snapshots, t0, t0 + 8_000, 500);
    const instances: EvaluatedInstance[] = [{ id: 'probe-a', definition: probe, params: { mint: SOL } }];
    await evaluateShard({ key: 'hist.0of1', instances }, { id: 1, start: t0 + 8_000 }, t0 + 8_100, deps(before));
    expect(await before.states.getState('probe-a')).toEqual({ samples: 9, newest: 108 });
    for (const c of clients) c.disconnect();
    clients = [];

    // The restarted keeper has cached nothing; it sees the nine samples at once and keeps adding to them.
    const after = keeperStores();
    await feed(after.snapshots, t0 + 9_000, t0 + 9_000, 1_000);
    await evaluateShard({ key: 'hist.0of1', instances }, { id: 2, start: t0 + 9_000 }, t0 + 9_100, deps(after));
    expect(await after.states.getState('probe-a')).toEqual({ samples: 10, newest: 109 });
    expect(seen.at(-1)!.map((p) => p.at - t0)).toEqual([0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000]);
  });

  it('reads the history again whole when Redis lost what the keeper had cached', async () => {
    const k = keeperStores();
    await feed(k.snapshots, t0, t0 + 5_000, 1_000);
    expect((await k.snapshots.priceHistory([SOL], t0 + 5_000)).get(SOL)).toHaveLength(6);
    await clearNamespace(redis, prefix);
    await feed(k.snapshots, t0 + 6_000, t0 + 7_000, 1_000);
    expect((await k.snapshots.priceHistory([SOL], t0 + 7_000)).get(SOL)!.map((p) => p.at - t0)).toEqual([6_000, 7_000]);
  });
});

describe('feeds.priceHistory in the config', () => {
  const config = (feeds: string) => `venue:\n  kind: simulator\nwallet:\n  paper: true\nfeeds:\n${feeds}\nstrategies:\n  - id: t\n    strategy: dca-swap\n    schedule: { every: 1m }\n    params: { inputMint: SOL, outputMint: USDC, amount: "1000000" }\n`;
  const problems = (feeds: string): string[] => {
    try {
      parseConfig(config(feeds), 'x.yaml', builtinStrategies, {});
      return [];
    } catch (err) {
      if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
      throw err;
    }
  };

  it('keeps 24 hours at one sample a minute unless told otherwise', () => {
    const parsed = parseConfig(config('  prices: 10s'), 'x.yaml', builtinStrategies, {});
    expect(parsed.feeds).toMatchObject({ priceHistory: 86_400_000, priceHistoryResolution: 60_000 });
    expect(parseConfig(config('  priceHistory: 7d\n  priceHistoryResolution: 5m'), 'x.yaml', builtinStrategies, {}).feeds).toMatchObject({ priceHistory: 7 * 86_400_000, priceHistoryResolution: 300_000 });
  });

  it('refuses a retention too short, or more samples per mint than it keeps', () => {
    expect(problems('  priceHistory: 10s')).toEqual(['feeds.priceHistory: must be between 1m and 30d, got 10s']);
    expect(problems('  priceHistory: 30d\n  priceHistoryResolution: 1s')).toEqual([
      'feeds.priceHistory: feeds.priceHistory over feeds.priceHistoryResolution is more than 50,000 samples per mint; keep less or sample less often',
    ]);
  });
});
