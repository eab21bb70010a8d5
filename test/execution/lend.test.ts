import { describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { balances, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

// lend.deposit and lend.withdraw intents carried out by the real Executor (real client, builder, guard policy and
// guard, a real Redis ledger) against the simulator: each lands once and the guard lets it through.
describe('the executor with lend intents', { timeout: 90_000 }, () => {
  const world = useExecutorWorld('lend-exec');
  const setup = (lamports: bigint, usdc: bigint) => executorFor(world, { lamports, tokens: usdc > 0n ? [[USDC, usdc]] : [] });

  /** Runs an intent that must land with the guard's approval; returns its signature. */
  async function run(s: WalletExecutor, intent: Intent): Promise<string> {
    const { result, rec } = await s.run(intent);
    expect(s.reports.flatMap((r) => r.violations.map((v) => `${v.rule}: ${v.message}`))).toEqual([]);
    expect(result).toEqual({ state: 'landed' });
    return rec.signature!;
  }

  it('deposits USDC, lets time pass, and withdraws more than it put in, each intent landing once', async () => {
    const s = await setup(100_000_000n, 100_000_000n);
    const owner = s.wallet.address;
    const deposit = await run(s, { kind: 'lend.deposit', asset: USDC, amount: 80_000_000n });
    expect((await ledger(world.sim)).filter((t) => t.signature === deposit)).toEqual([expect.objectContaining({ kind: 'lend-deposit', wallet: owner, inputAmount: '80000000' })]);
    await control(world.sim, '/clock', { advanceMs: 90 * 86_400_000 });
    const [position] = (await world.jup.lend.getLendPositions({ users: [owner] })).filter((p) => p.token.address === JL_USDC);
    expect(position!.underlyingAssets).toBeGreaterThan(80_000_000n);
    const withdraw = await run(s, { kind: 'lend.withdraw', asset: USDC, amount: position!.underlyingAssets });
    expect((await ledger(world.sim)).filter((t) => t.signature === withdraw)).toEqual([expect.objectContaining({ kind: 'lend-withdraw', wallet: owner, outputMint: USDC })]);
    expect((await balances(world.sim, owner)).tokens[USDC]).toBe(20_000_000n + position!.underlyingAssets);
  });

  it('deposits and withdraws native SOL', async () => {
    const s = await setup(3_000_000_000n, 0n);
    const owner = s.wallet.address;
    await run(s, { kind: 'lend.deposit', asset: SOL, amount: 1_500_000_000n });
    const before = (await balances(world.sim, owner)).lamports;
    await run(s, { kind: 'lend.withdraw', asset: SOL, amount: 1_000_000_000n });
    // The withdrawal pays 1 SOL in; the wallet pays only the fees of its transaction.
    expect((await balances(world.sim, owner)).lamports - before).toBeGreaterThan(999_980_000n);
  });
});
