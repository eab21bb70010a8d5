import { describe, expect, it } from 'vitest';
import { buildTransaction } from '../../src/execution/build.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { balances, ledger, SOL, USDC } from '../helpers/sim.js';
import { waitUntil } from '../helpers/e2e.js';
import { executorFor, marketOf, useExecutorWorld } from '../helpers/executorKit.js';

// recurring.create and recurring.cancel intents carried out by the real executor: the real client and builder
// against the simulator, the real guard with the policy the keeper derives from the intent, and a Redis ledger.
describe('recurring intents through the executor', { timeout: 60_000 }, () => {
  const world = useExecutorWorld('exec-recurring');

  /** The keeper's executor for one funded wallet, its guard policy derived from the intent and the feed. */
  async function setup(usdc: bigint) {
    const market = await marketOf(world, [SOL, USDC]);
    const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: usdc > 0n ? [[USDC, usdc]] : [], market });
    const policy = (intent: Intent, built: BuiltTransaction) =>
      guardPolicyFor(intent, built, { wallet: s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market, maxPriceAgeMs: 60_000, now: Date.now() });
    const usdPrice = (mint: string) => market.prices[mint] && { usd: market.prices[mint].usd, decimals: market.prices[mint].decimals };
    return { wallet: s.wallet, run: async (intent: Intent) => { const r = await s.run(intent, { deadlineMs: 600_000 }); return { result: r.result, record: r.rec }; }, policy, usdPrice };
  }

  it('lands a recurring.create that the guard accepts, then a recurring.cancel that returns the rest', async () => {
    const s = await setup(200_000_000n);
    const owner = s.wallet.address;
    const create = await s.run({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 });
    expect(create.result).toEqual({ state: 'landed' });
    expect((await ledger(world.sim)).find((t) => t.signature === create.record.signature)).toMatchObject({ kind: 'recurring-create', wallet: owner, inputAmount: '200000000' });
    const page = await world.jup.recurring.getOrders({ user: owner, orderStatus: 'active', recurringType: 'time' });
    expect(page.orders).toHaveLength(1);
    const order = page.orders[0]!.orderKey;

    // The first slice fills at once; the cancel returns the other half, exactly.
    await waitUntil('the first slice', async () => (await world.jup.recurring.getOrders({ user: owner, orderStatus: 'active', recurringType: 'time' })).orders[0]?.trades.length === 1, 45_000, 25);
    const before = (await balances(world.sim, owner)).tokens[USDC] ?? 0n;
    const cancel = await s.run({ kind: 'recurring.cancel', order });
    expect(cancel.result).toEqual({ state: 'landed' });
    expect((await balances(world.sim, owner)).tokens[USDC]! - before).toBe(100_000_000n);
    expect((await ledger(world.sim)).find((t) => t.signature === cancel.record.signature)).toMatchObject({ kind: 'recurring-cancel', wallet: owner, outputAmount: '100000000' });
    expect((await world.jup.recurring.getOrders({ user: owner, orderStatus: 'history', recurringType: 'time' })).orders).toEqual([expect.objectContaining({ orderKey: order, userClosed: true })]);
  });

  it('lands a SOL-funded recurring.create (the deposit wrapped into the escrow)', async () => {
    const s = await setup(0n);
    const create = await s.run({ kind: 'recurring.create', inputMint: SOL, outputMint: USDC, inAmount: 700_000_000n, numberOfOrders: 2, intervalSeconds: 3_600 });
    expect(create.result).toEqual({ state: 'landed' });
    const order = (await world.jup.recurring.getOrders({ user: s.wallet.address, orderStatus: 'active', recurringType: 'time' })).orders[0]!.orderKey;
    expect((await s.run({ kind: 'recurring.cancel', order })).result).toEqual({ state: 'landed' });
  });

  it('refuses to sign a create that deposits other than the intent says', async () => {
    const s = await setup(300_000_000n);
    const intent: Intent = { kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 };
    const built = await buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId: 'x', maxSlippageBps: 300, usdPrice: s.usdPrice });
    const honest = await guardTransaction(built.tx, await s.policy(intent, built), world.rpc);
    expect(honest.violations).toEqual([]);
    // The same transaction judged against an intent of a different amount: the escrow deposit is not the intent's.
    const other = { ...intent, inAmount: 140_000_000n };
    expect((await guardTransaction(built.tx, await s.policy(other, built), world.rpc)).violations.map((v) => v.rule)).toContain('escrow-amount');
  });
});
