import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { assertExactlyOnce, sleep, startHarness, withTimeout, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, control, SOL, USDC } from '../helpers/sim.js';

// A rebalancer scheduled once an hour but marked reactive acts on a price move within a price-feed cycle: the
// keeper wakes its shard with every new price snapshot, so tick-to-submit is not bounded by its cadence.
describe('a reactive strategy in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('reactive');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('swaps within seconds of a price move although its schedule is hourly', async ({ onTestFailed }) => {
    const c = await h.newCase('rebal');
    c.dumpOnFailure(onTestFailed);
    // 2 SOL at $100 and $200: exactly the 50 % target.
    await control(h.sim, '/price', { mint: SOL, usd: 100 });
    await airdrop(h.sim, c.keypair, USDC, 200_000_000n);
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
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 2s
strategies:
  - id: rebal
    strategy: threshold-rebalance
    reactive: true
    schedule:
      every: 1h
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
    // The hourly tick at start finds the portfolio in its band (and the price snapshots after it too).
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    await withTimeout(
      (async () => {
        while ((await states.lastDecision('rebal'))?.outcome !== 'nothing') await sleep(100);
      })(),
      30_000,
      'the first decision did not come',
    );
    const movedAt = Date.now();
    await control(h.sim, '/price', { mint: SOL, usd: 150 });
    const landed = await k.waitForLog((l) => l.msg === 'landed', 30_000);
    expect(Number(landed.time) - movedAt, 'the swap landed within half a minute of the move, not at the next hourly tick').toBeLessThan(30_000);
    expect(await c.stop(k)).toBe(0);
    const report = await assertExactlyOnce(c, { initialUsdc: 200_000_000n });
    expect(report.intents.map((r) => [r.instance, r.intent.kind, r.state])).toEqual([['rebal', 'swap', 'landed']]);
    // It sold SOL (its weight rose to 60 %).
    expect(report.intents[0]!.intent).toMatchObject({ inputMint: SOL, outputMint: USDC });
  }, 90_000);
});
