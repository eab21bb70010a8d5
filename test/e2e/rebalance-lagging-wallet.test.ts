import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DecisionSummary } from '../../src/engine/ports.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { assertExactlyOnce, sleep, startHarness, withTimeout, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';

// A rebalancer decides every second while the wallet feed refreshes every 10 s: for several windows after its swap
// the wallet snapshot still shows the old balances. Its pending swap (planned, in flight, then landed after the
// snapshot) must count as done, or it sells again in every one of those windows.
describe('a rebalancer whose wallet feed lags', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('rebalance-lag');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('issues one swap, not one per window', async ({ onTestFailed }) => {
    const c = await h.newCase('rebal');
    c.dumpOnFailure(onTestFailed);
    // The case's wallet holds 2 SOL and no USDC: 100 % SOL against a 50 % target.
    const config = writeConfig(
      h.dir,
      `venue:
  kind: simulator
  url: ${h.sim.url}
wallet: {}
redis:
  prefix: ${c.prefix}
risk:
  maxNotionalUsdPerIntent: 100000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 2
  jobLock: 3s
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 10s
logging:
  level: debug
strategies:
  - id: rebal
    strategy: threshold-rebalance
    schedule:
      every: 1s
    params:
      base: SOL
      quote: USDC
      targetBaseWeight: 0.5
      bandPct: 5
      maxSwapUsd: 100000
`,
      `${c.prefix}.yaml`,
    );
    const k = c.spawn({ config });
    const landed = await k.waitForLog((l) => l.msg === 'landed', 30_000);
    const landedAt = Number(landed.time);

    // Watch the shard's decided windows until the feed has caught up with the swap and two windows were decided on
    // its snapshot. (A decision is written only when it changes; the shard's applied window moves every tick.)
    const redis = h.redis.client();
    const states = new StrategyStateStore(redis, c.prefix);
    const snapshots = new SnapshotStore(redis, c.prefix);
    const decisions: DecisionSummary[] = [];
    let lastWindow = 0;
    let windowsAfterLanding = 0;
    const caughtUp = async (): Promise<void> => {
      for (;;) {
        const [window, d, wallet] = await Promise.all([states.shardWindow('e1000.0of1'), states.lastDecision('rebal'), snapshots.read('wallet')]);
        if (window !== null && window > lastWindow) {
          if (window > landedAt) windowsAfterLanding += 1;
          lastWindow = window;
        }
        if (d && !decisions.some((x) => x.window === d.window)) decisions.push(d);
        if (wallet && wallet.at > landedAt && window !== null && window >= wallet.at + 2_000) return;
        await sleep(200);
      }
    };
    await withTimeout(caughtUp(), 40_000, 'the wallet feed did not catch up with the swap, or the rebalancer stopped deciding');
    expect(await c.stop(k)).toBe(0);

    // Windows were decided while the wallet view lagged behind the landing, and none of them asked again: the last
    // decision written says nothing to do, and the ledger holds the one swap.
    expect(windowsAfterLanding).toBeGreaterThanOrEqual(3);
    expect(decisions.filter((d) => Number(d.window) * 1_000 > landedAt && d.outcome === 'intents')).toEqual([]);
    expect((await states.lastDecision('rebal'))?.outcome).toBe('nothing');
    const report = await assertExactlyOnce(c);
    expect(report.intents.map((r) => [r.instance, r.state])).toEqual([['rebal', 'landed']]);
    expect(report.settled).toHaveLength(1);
  }, 90_000);
});
