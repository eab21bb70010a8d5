import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { waitUntil } from '../helpers/e2e.js';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, balances, control, SOL, USDC } from '../helpers/sim.js';

// A trend follower on SOL/USDC in a running keeper, on a fast clock: prices every second, one history sample a
// second, a 3-second fast and an 8-second slow average. SOL sits at $100 until the history covers the slow window,
// jumps to $110 (golden cross: it buys SOL with 20 USDC), the keeper stops, SOL falls to $90 while none runs, and a
// keeper started again sells the SOL the entry bought (death cross: the history and the position are in Redis, and
// the gap the stop left holds the last price seen, so the fall shows as one).
describe('trend in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('strategy-trend');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('buys on a golden cross and sells what it bought on a death cross, across a restart', async ({ onTestFailed }) => {
    const c = await h.newCase('trend');
    c.dumpOnFailure(onTestFailed);
    await control(h.sim, '/price', { mint: SOL, usd: 100 });
    await airdrop(h.sim, c.keypair, USDC, 100_000_000n);
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
  wallet: 2s
  priceHistory: 1m
  priceHistoryResolution: 1s
strategies:
  - id: trend
    strategy: trend
    schedule:
      every: 1s
    params:
      base: SOL
      quote: USDC
      fast: 3s
      slow: 8s
      minGapBps: 100
      amount: "20000000"
`,
      `${c.prefix}.yaml`,
    );
    const client = h.redis.client();
    const states = new StrategyStateStore(client, c.prefix);
    const history = new SnapshotStore(client, c.prefix, { priceHistory: { keepMs: 60_000, resolutionMs: 1_000 } });
    const state = async () => states.getState('trend');
    const first = c.spawn({ config });

    // Until the history reaches back 8 s the instance waits, saying why; then, the price flat, it takes its side.
    await first.waitForLog((l) => typeof l.msg === 'string' && l.msg.startsWith('no action: not enough price history yet'), 30_000);
    await waitUntil('the first look at the averages', async () => (await state()).side === 'below', 30_000);
    expect(await c.intents()).toEqual([]);

    await control(h.sim, '/price', { mint: SOL, usd: 110 });
    await waitUntil('the entry seen settled', async () => typeof (await state()).held === 'string', 30_000);
    const held = BigInt((await state()).held as string);
    expect(held).toBeGreaterThan(170_000_000n);
    expect(held).toBeLessThan(185_000_000n);
    expect(await c.stop(first)).toBe(0);

    // The fall comes while no keeper runs: a gap in the history with the price moved across it.
    expect((await history.priceHistory([SOL], Date.now())).get(SOL)!.length).toBeGreaterThan(8);
    await control(h.sim, '/price', { mint: SOL, usd: 90 });
    const second = c.spawn({ config });
    await waitUntil('the exit seen settled', async () => {
      const s = await state();
      return s.side === 'below' && s.held === undefined && s.exit === undefined;
    }, 30_000);
    expect(await c.stop(second)).toBe(0);

    // Two swaps, each settled once: 20 USDC for SOL, then exactly the SOL that bought back for USDC.
    const report = await assertExactlyOnce(c, { initialUsdc: 80_000_000n });
    expect(report.intents.map((r) => [r.intent.kind, r.state])).toEqual([
      ['swap', 'landed'],
      ['swap', 'landed'],
    ]);
    expect(report.intents[0]!.intent).toMatchObject({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n });
    expect(report.intents[0]!.intent.reason).toMatch(/^golden cross SOL\/USDC: fast 3s \d+\.\d+ > slow 8s \d+\.\d+$/);
    expect(report.intents[1]!.intent).toMatchObject({ inputMint: SOL, outputMint: USDC, amount: held });
    expect(report.intents[1]!.intent.reason).toMatch(/^death cross SOL\/USDC: fast 3s \d+\.\d+ < slow 8s \d+\.\d+$/);
    // It sold at about $90 what it bought at about $110 with 20 USDC: about 16.4 USDC back.
    const usdc = (await balances(h.sim, c.address)).tokens[USDC] ?? 0n;
    expect(usdc).toBeGreaterThan(95_500_000n);
    expect(usdc).toBeLessThan(97_000_000n);
  }, 150_000);
});
