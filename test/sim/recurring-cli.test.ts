import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { fundedWallet, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { against, runCli } from '../cli/runCli.js';
import { eventually, openRecurringOrder, recurringClient, timeOrders } from './recurringKit.js';

// `jup-keeper orders <wallet>` (the real binary) against the simulator: a wallet's open recurring orders show.
describe('jup-keeper orders against the simulator', { timeout: 150_000 }, () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('lists an open recurring order with its cycle and what it used', async () => {
    const jup = recurringClient(sim);
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 250_000_000n]]);
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 250_000_000n, numberOfOrders: 2, interval: 3_600 });
    await eventually('the first slice', async () => ((await timeOrders(jup, user, 'active'))[0]?.trades.length === 1 ? true : undefined));

    const run = await runCli(['orders', user.publicKey.toBase58(), ...against(sim.url)]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`recurring\\s+${order}\\s+USDC -> SOL\\s+125 USDC every 1h, 125 of 250 used\\s+active`));

    const json = await runCli(['orders', user.publicKey.toBase58(), '--json', ...against(sim.url)]);
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout).recurring).toEqual([expect.objectContaining({ orderKey: order, recurringType: 'time', rawInUsed: '125000000', cycleFrequency: 3600 })]);
  });
});
