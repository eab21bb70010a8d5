import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { waitUntil } from '../helpers/e2e.js';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, balances, control, JUP, USDC } from '../helpers/sim.js';

// A stop-loss guarding 100 JUP in a running keeper: the price falls through the stop, the exit swap settles once,
// and later moves (another fall, then a rise through the take-profit) ask for nothing more. The wallet feed lags
// (5 s) behind the decisions (every second and on every price snapshot), so for several windows after the swap the
// wallet still shows the JUP: the pending sell must count as asked for.
describe('take-profit-stop-loss in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('strategy-tpsl');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('sells the holding once when the price crosses the stop, and stays out', async ({ onTestFailed }) => {
    const c = await h.newCase('tpsl');
    c.dumpOnFailure(onTestFailed);
    await control(h.sim, '/price', { mint: JUP, usd: 1 });
    await airdrop(h.sim, c.keypair, JUP, 100_000_000n);
    const config = writeConfig(
      h.dir,
      `venue:
  kind: simulator
  url: ${h.sim.url}
wallet: {}
redis:
  prefix: ${c.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 5s
strategies:
  - id: exit
    strategy: take-profit-stop-loss
    schedule:
      every: 1s
    params:
      mint: JUP
      quote: USDC
      takeProfitPrice: 1.5
      stopLossPrice: 0.8
`,
      `${c.prefix}.yaml`,
    );
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    const snapshots = new SnapshotStore(h.redis.client(), c.prefix);
    const k = c.spawn({ config });
    // Watching: the first decisions record the peak and ask for nothing.
    await waitUntil('the first decision', async () => typeof (await states.getState('exit')).peak === 'number', 30_000);
    expect(await c.intents()).toEqual([]);

    await control(h.sim, '/price', { mint: JUP, usd: 0.75 });
    const landed = Number((await k.waitForLog((l) => l.msg === 'landed', 30_000)).time);
    // Done once a wallet snapshot taken after the landing shows the JUP gone; until then (up to 5 s of windows) the
    // landed sell is what keeps it from asking again.
    await waitUntil('the exit seen settled', async () => (await states.getState('exit')).done === true, 30_000);
    expect((await snapshots.read('wallet'))!.at).toBeGreaterThanOrEqual(landed);

    // A further fall, then a rise through the take-profit: the instance has exited and asks for nothing.
    await control(h.sim, '/price', { mint: JUP, usd: 0.6 });
    await control(h.sim, '/price', { mint: JUP, usd: 1.6 });
    const movedAt = Date.now();
    await waitUntil('three windows decided after the moves', async () => ((await states.shardWindow('re1000.0of1')) ?? 0) >= movedAt + 3_000, 20_000);
    expect(await c.stop(k)).toBe(0);

    // One sell of all 100 JUP for USDC, settled once; no JUP left.
    const report = await assertExactlyOnce(c);
    expect(report.intents.map((r) => [r.instance, r.intent.kind, r.state])).toEqual([['exit', 'swap', 'landed']]);
    expect(report.intents[0]!.intent).toMatchObject({ inputMint: JUP, outputMint: USDC, amount: 100_000_000n });
    expect(report.intents[0]!.intent.reason).toMatch(/^stop-loss: 0\.7\d+ ≤ 0\.800000$/);
    expect(report.settled).toHaveLength(1);
    expect((await balances(h.sim, c.address)).tokens[JUP] ?? 0n).toBe(0n);
  }, 120_000);
});
