import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { against, runCli } from '../cli/runCli.js';
import { control, fundedWallet, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

// `jup-keeper orders <wallet>`, the real binary, against the simulator: a wallet's open trigger orders in the table.
describe('the orders command against the simulator', { timeout: 120_000 }, () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => {
    await sim.close();
  });

  it('lists an open trigger order, partly filled, with what is left', async () => {
    const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const maker = await fundedWallet(sim, 100_000_000n, [[USDC, 2_000_000_000n]]);
    const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 2_000_000_000n, takingAmount: 12_000_000_000n } });
    await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
    // A limit of 166.67 USDC per SOL: not crossed at 180; at 150 the keeper fills its first 1,000 USD slice.
    await control(sim, '/price', { mint: SOL, usd: 150 });
    const run = await runCli(['orders', maker.publicKey.toBase58(), ...against(sim.url)]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`trigger\\s+${created.order}\\s+USDC -> SOL\\s+2000 USDC for 12 SOL, 1000 USDC left\\s+Open`));
    // Products the simulator does not serve yet are named, not fatal.
    for (const line of run.stderr.split('\n').filter(Boolean)) expect(line).toMatch(/^note: this venue does not serve (recurring|prediction) orders/);
  });
});
