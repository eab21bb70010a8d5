// The feed job's work, by feed (src/scheduler/feedJobs.ts), as `jup-keeper run` wires it: the keeper's feeds on the
// simulator writing real snapshots to Redis, the risk counters and kill switch in Redis. The market feed wakes the
// reactive shards on the snapshot it wrote; the wallet feed checks the loss limits after each refresh, so a falling
// wallet halts trading with no strategy deciding; the prediction feed reads what the strategies watch.
import { describe, expect, it } from 'vitest';
import type { RiskLimits } from '../../src/engine/risk.js';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import { feedJobs, type FeedRefresher } from '../../src/scheduler/feedJobs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { RiskStore, snapshotSource } from '../../src/store/engineStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { useFeedWorld } from '../helpers/feedWorld.js';
import { control, fundedWallet, SOL, USDC } from '../helpers/sim.js';

/** Limits loose enough that only the loss limit under test can trip. */
const LIMITS: RiskLimits = {
  maxNotionalUsdPerIntent: 100_000,
  maxDailyNotionalUsd: 1_000_000,
  maxSlippageBps: 300,
  minSolReserveLamports: 10_000_000n,
  refuseShieldSeverities: ['critical'],
  predictionEntryCutoff: 0,
};

describe('the feed jobs', { timeout: 60_000 }, () => {
  const world = useFeedWorld('feed-jobs');
  let seq = 0;

  /** The feed handler over the world's simulator and Redis, for `wallet`, with what it was asked recorded. */
  async function feedsFor(wallet: string, limits: RiskLimits, watched = { mints: new Set([SOL, USDC]), categories: new Set<string>(), markets: new Set<string>() }) {
    const { sim, redis } = world;
    const prefix = `${world.prefix}-${++seq}`;
    const simNow = async () => (await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET')).nowMs;
    let clock = await simNow();
    const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const snapshots = new SnapshotStore(redis, prefix);
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${sim.url}/rpc`), snapshots, logger: silentLogger, now: () => clock });
    const asked: string[] = [];
    const recording: FeedRefresher = {
      refreshMarket: (mints) => (asked.push(`market ${mints.join(',')}`), feeds.refreshMarket(mints)),
      refreshWallet: (address) => (asked.push(`wallet ${address}`), feeds.refreshWallet(address)),
      refreshPrediction: (categories, markets) => (asked.push(`prediction ${categories.join(',')} ${markets.join(',')}`), feeds.refreshPrediction(categories, markets)),
    };
    const woken: number[] = [];
    const risk = new RiskStore(redis, prefix);
    const feed = feedJobs({
      feeds: recording,
      watched,
      wallet,
      wakeReactive: (at) => Promise.resolve(woken.push(at)),
      losses: { snapshots: snapshotSource(snapshots), limits, counters: risk, logger: silentLogger },
      now: () => clock,
    });
    return {
      asked,
      woken,
      snapshots,
      switches: new KillSwitchStore(redis, prefix),
      /** Runs the feed job `name` at the simulator's time now. */
      run: async (name: 'market' | 'wallet' | 'prediction') => {
        clock = await simNow();
        await feed(name);
      },
    };
  }

  describe('the market feed', () => {
    it('prices the watched mints and wakes the reactive shards on the snapshot it wrote', async () => {
      const w = await fundedWallet(world.sim);
      const k = await feedsFor(w.publicKey.toBase58(), LIMITS);
      await k.run('market');
      const market = await k.snapshots.read('market');
      expect(k.asked).toEqual([`market ${SOL},${USDC}`]);
      expect(Object.keys(market!.prices).sort()).toEqual([SOL, USDC].sort());
      expect(k.woken).toEqual([market!.at]);
    });
  });

  describe('the wallet feed', () => {
    it('reads the wallet, then trips the kill switch once its value falls past the drawdown limit', async () => {
      const w = await fundedWallet(world.sim, 4_000_000_000n, [[USDC, 200_000_000n]]);
      const k = await feedsFor(w.publicKey.toBase58(), { ...LIMITS, maxDrawdownPct: 20 });
      // At $200 the wallet is worth $1,000 (4 SOL and $200): its peak.
      await control(world.sim, '/price', { mint: SOL, usd: 200 });
      await k.run('market');
      await k.run('wallet');
      expect(k.asked.at(-1)).toBe(`wallet ${w.publicKey.toBase58()}`);
      expect((await k.snapshots.read('wallet'))?.address).toBe(w.publicKey.toBase58());
      expect(await k.switches.read()).toBeNull();
      // SOL falls to $140: $760, 24 % below the peak. The next wallet refresh trips the switch, no strategy deciding.
      await control(world.sim, '/price', { mint: SOL, usd: 140 });
      await k.run('market');
      await k.run('wallet');
      expect(await k.switches.read()).toMatchObject({ mode: 'halt', by: 'risk:drawdown', reason: expect.stringMatching(/^drawdown: the wallet is worth \$\d+\.\d\d, 2\d\.\d% below its peak of \$10\d\d\.\d\d \(limit 20%\)/) });
    });

    it('leaves the switch alone without loss limits, however far the wallet falls', async () => {
      const w = await fundedWallet(world.sim, 4_000_000_000n);
      const k = await feedsFor(w.publicKey.toBase58(), LIMITS);
      await control(world.sim, '/price', { mint: SOL, usd: 200 });
      await k.run('market');
      await k.run('wallet');
      await control(world.sim, '/price', { mint: SOL, usd: 20 });
      await k.run('market');
      await k.run('wallet');
      expect(await k.switches.read()).toBeNull();
    });
  });

  describe('the prediction feed', () => {
    it('reads the watched categories and markets, and wakes nothing', async () => {
      const jup = createJupiterClient({ baseUrl: world.sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
      const market = (await jup.prediction.getEvents({ includeMarkets: true })).data.flatMap((e) => e.markets ?? [])[0]!.marketId;
      const w = await fundedWallet(world.sim);
      const k = await feedsFor(w.publicKey.toBase58(), LIMITS, { mints: new Set([SOL]), categories: new Set<string>(), markets: new Set([market]) });
      await k.run('prediction');
      expect(k.asked).toEqual([`prediction  ${market}`]);
      expect((await k.snapshots.read('prediction'))?.events.flatMap((e) => e.markets.map((m) => m.marketId))).toEqual([market]);
      expect(k.woken).toEqual([]);
    });
  });
});
