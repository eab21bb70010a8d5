import { describe, expect, it } from 'vitest';
import { balances, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { executorFor, useExecutorWorld } from '../helpers/executorKit.js';

// trigger.create and trigger.cancel intents carried out by the real Executor (builder, guard with the intent's own
// policy, signature, /trigger/v1/execute, confirmation by signature) against the simulator and a real Redis ledger.
describe('trigger intents through the executor', { timeout: 90_000 }, () => {
  const world = useExecutorWorld('exec-trigger');
  /** The keeper's executor for a fresh wallet (every guard report kept). */
  const setup = (lamports: bigint, tokens: Array<[string, bigint]> = []) => executorFor(world, { lamports, tokens });

  const active = async (user: string) => (await world.jup.trigger.getOrders({ user, orderStatus: 'active' })).orders;

  it('lands a USDC limit order and its cancel, each passing the guard, and the cancel refunds the escrow', async () => {
    const s = await setup(100_000_000n, [[USDC, 50_000_000n]]);
    const placed = await s.run({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 25_000_000n, takingAmount: 1_000_000_000n });
    expect(placed.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[]]);
    const order = placed.rec.quote?.order as string;
    expect((await active(s.wallet.address)).map((o) => [o.orderKey, o.rawRemainingMakingAmount])).toEqual([[order, 25_000_000n]]);
    expect((await ledger(world.sim)).find((t) => t.signature === placed.rec.signature)).toMatchObject({ kind: 'trigger-create', wallet: s.wallet.address });

    const cancelled = await s.run({ kind: 'trigger.cancel', order });
    expect(cancelled.result).toEqual({ state: 'landed' });
    expect(s.reports[1]!.violations).toEqual([]);
    // The keeper co-signed the refund; it is a declared co-signer, and nothing but fees left the wallet.
    expect(s.reports[1]!.signers).toContain(world.sim.ctx.state.venue.keeper.publicKey.toBase58());
    expect(await active(s.wallet.address)).toEqual([]);
    expect((await balances(world.sim, s.wallet.address)).tokens[USDC]).toBe(50_000_000n);
    expect((await ledger(world.sim)).find((t) => t.signature === cancelled.rec.signature)).toMatchObject({ kind: 'trigger-cancel', outputMint: USDC, outputAmount: '25000000' });
  });

  it('lands a SOL limit order with an expiry, the lamports escrowed as wrapped SOL of the order', async () => {
    const s = await setup(1_000_000_000n);
    const { nowMs } = await control<{ nowMs: number }>(world.sim, '/clock', undefined, 'GET');
    const placed = await s.run({ kind: 'trigger.create', inputMint: SOL, outputMint: USDC, makingAmount: 200_000_000n, takingAmount: 50_000_000n, expiresAt: Math.floor(nowMs / 1000) + 3_600 });
    expect(placed.result).toEqual({ state: 'landed' });
    expect(s.reports[0]!.violations).toEqual([]);
    const [order] = await active(s.wallet.address);
    expect(order).toMatchObject({ orderKey: placed.rec.quote?.order, rawMakingAmount: 200_000_000n, expiredAt: expect.any(String) });
    const cancelled = await s.run({ kind: 'trigger.cancel', order: order!.orderKey });
    expect(cancelled.result).toEqual({ state: 'landed' });
    expect(s.reports[1]!.violations).toEqual([]);
  });
});
