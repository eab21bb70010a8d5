import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { PublicKey, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { decodeOrderAccount, DISCRIMINATORS, orderAddress } from '../../src/jupiter/programs/trigger.js';
import { triggerCancelCheck, triggerCreateCheck } from '../../src/execution/productGuard/trigger.js';
import { guardTransaction, type GuardPolicy, type SpendRule } from '../../src/solana/guard.js';
import { allowedProgramsFor } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const TRIGGER = PROGRAM_IDS.jupiterTrigger;

// The Trigger API on the simulator, through the project's own client over HTTP: orders escrow their input in an
// account of the real program id, the venue's keeper fills them when the market crosses their limit, cancels and
// expiries refund exactly what is unfilled. The clock is frozen: time and prices move only when a test moves them.
describe('trigger orders on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    await control(sim, '/price', { mint: SOL, usd: 180 });
  });

  const price = (usd: number) => control(sim, '/price', { mint: SOL, usd });
  const active = async (maker: Keypair) => (await jup.trigger.getOrders({ user: maker.publicKey.toBase58(), orderStatus: 'active' })).orders;
  const history = async (maker: Keypair) => (await jup.trigger.getOrders({ user: maker.publicKey.toBase58(), orderStatus: 'history' })).orders;
  const escrowOf = async (order: string) => (await control<{ escrows: Array<{ authority: string; amount: string; product: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.find((e) => e.authority === order);

  /** Creates an order through the client, signs it and executes it; returns the order account and what execute said. */
  async function place(maker: Keypair, inputMint: string, outputMint: string, making: bigint, taking: bigint, extra: { expiredAt?: number } = {}) {
    const created = await jup.trigger.createOrder({ inputMint, outputMint, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: making, takingAmount: taking, ...extra } });
    const executed = await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
    return { order: created.order!, created, executed };
  }

  /** The keeper's policy for a limit order of `making` SOL for 20 USDC, its escrow and the order's terms held by the trigger product check. */
  function policy(wallet: PublicKey, spend: Extract<SpendRule, { kind: 'escrow' }>): GuardPolicy {
    const coSigners = new Set(sim.ctx.state.venue.coSigners().map((k) => k.toBase58()));
    const product = triggerCreateCheck({ kind: 'trigger.create', inputMint: spend.mint, outputMint: USDC, makingAmount: 100_000_000n, takingAmount: 20_000_000n }, wallet);
    return { wallet, area: 'trigger', allowedPrograms: allowedProgramsFor('trigger'), coSigners, maxPriorityFeeLamports: 1_000_000n, spend, mayUnwrapSol: true, allowToken2022Mints: new Set(), product };
  }

  it('escrows the making amount in the order account of the real program, with a transaction the guard accepts', async () => {
    const maker = await fundedWallet(sim, 1_000_000_000n);
    const created = await jup.trigger.createOrder({ inputMint: SOL, outputMint: USDC, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 100_000_000n, takingAmount: 20_000_000n } });
    expect(created.requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const tx = VersionedTransaction.deserialize(Buffer.from(created.transaction, 'base64'));
    const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
    const init = tx.message.compiledInstructions.find((ix) => keys[ix.programIdIndex] === TRIGGER)!;
    // initialize_order with InitializeOrderParams {unique_id, making, taking, expired_at None, fee_bps None, slippage_bps Some(0)}.
    const data = Buffer.from(init.data);
    expect(data.subarray(0, 8)).toEqual(DISCRIMINATORS.initializeOrder);
    expect([data.readBigUInt64LE(16), data.readBigUInt64LE(24)]).toEqual([100_000_000n, 20_000_000n]);
    expect(orderAddress(maker.publicKey, data.readBigUInt64LE(8)).address.toBase58()).toBe(created.order);
    expect(keys[init.accountKeyIndexes[2]!]).toBe(created.order);

    expect((await guardTransaction(tx, policy(maker.publicKey, { kind: 'escrow', mint: SOL, amount: 100_000_000n }), rpc)).violations).toEqual([]);
    // One lamport more than the intent is refused: the escrow takes exactly the making amount.
    expect((await guardTransaction(tx, policy(maker.publicKey, { kind: 'escrow', mint: SOL, amount: 99_999_999n }), rpc)).violations.map((v) => v.rule)).toContain('escrow-amount');

    const res = await fetch(`${sim.url}/trigger/v1/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) }) });
    const body = (await res.json()) as Record<string, unknown>;
    // The official success body: signature and status, no code.
    expect(Object.keys(body).sort()).toEqual(['signature', 'status']);
    expect(body.status).toBe('Success');
    expect((await escrowOf(created.order!))).toMatchObject({ product: 'trigger', amount: '100000000' });
    const account = decodeOrderAccount(sim.ctx.state.venue.chain.account(new PublicKey(created.order!))!.data)!;
    expect(account).toMatchObject({ maker: maker.publicKey, makingAmount: 100_000_000n, takingAmount: 20_000_000n, oriMakingAmount: 100_000_000n, expiredAt: null });
    expect((await ledger(sim)).find((t) => t.signature === body.signature)).toMatchObject({ kind: 'trigger-create', wallet: maker.publicKey.toBase58(), inputMint: SOL, inputAmount: '100000000' });

    const [order] = await active(maker);
    expect(order).toMatchObject({ orderKey: created.order, status: 'Open', makingAmount: '0.1', takingAmount: '20', remainingMakingAmount: '0.1', rawMakingAmount: 100_000_000n, slippageBps: 0, closeTx: null, openTx: body.signature, programVersion: TRIGGER, trades: [] });
  });

  it('fills when the price walks through the limit and not before, paying the maker exactly the taking amount', async () => {
    const maker = await fundedWallet(sim, 1_000_000_000n);
    // 0.1 SOL for 20 USDC: a limit of 200 USDC per SOL (plus Jupiter's 0.1 % fee, which the taker pays).
    const { order } = await place(maker, SOL, USDC, 100_000_000n, 20_000_000n);
    for (const usd of [185, 195, 199.5, 200, 200.1]) {
      await price(usd);
      expect((await active(maker)).map((o) => [o.orderKey, o.rawRemainingMakingAmount, o.trades.length])).toEqual([[order, 100_000_000n, 0]]);
    }
    await price(201);
    expect(await active(maker)).toEqual([]);
    const [done] = await history(maker);
    expect(done).toMatchObject({ orderKey: order, status: 'Completed', rawRemainingMakingAmount: 0n, rawRemainingTakingAmount: 0n, remainingMakingAmount: '0' });
    expect(done!.trades).toHaveLength(1);
    const trade = done!.trades[0]!;
    expect(trade).toMatchObject({ action: 'Fill', keeper: sim.ctx.state.venue.keeper.publicKey.toBase58(), rawInputAmount: 100_000_000n, rawOutputAmount: 20_000_000n, outputAmount: '20', feeMint: USDC, rawFeeAmount: 20_000n });
    expect(done!.closeTx).toBe(trade.txId);
    expect((await balances(sim, maker)).tokens[USDC]).toBe(20_000_000n);
    expect(await escrowOf(order)).toBeUndefined();
    expect(sim.ctx.state.venue.chain.account(new PublicKey(order))?.data.length ?? 0).toBe(0);
    expect((await ledger(sim)).find((t) => t.signature === trade.txId)).toMatchObject({ kind: 'trigger-fill', wallet: maker.publicKey.toBase58(), inputAmount: '100000000', outputMint: USDC, outputAmount: '20000000' });
  });

  it('fills a large order in slices; cancelling it then returns exactly the unfilled input', async () => {
    const maker = await fundedWallet(sim, 100_000_000n, [[USDC, 2_500_000_000n]]);
    // 2,500 USDC for SOL at 150 USDC per SOL; the keeper fills at most 1,000 USD at a time.
    const { order } = await place(maker, USDC, SOL, 2_500_000_000n, 16_666_666_666n);
    await price(140);
    let [open] = await active(maker);
    expect(open).toMatchObject({ status: 'Open', rawRemainingMakingAmount: 1_500_000_000n, rawRemainingTakingAmount: 9_999_999_999n, remainingMakingAmount: '1500' });
    expect(open!.trades.map((t) => [t.rawInputAmount, t.rawOutputAmount])).toEqual([[1_000_000_000n, 6_666_666_667n]]);
    expect((await escrowOf(order))?.amount).toBe('1500000000');
    expect(decodeOrderAccount(sim.ctx.state.venue.chain.account(new PublicKey(order))!.data)).toMatchObject({ makingAmount: 1_500_000_000n, takingAmount: 9_999_999_999n });

    const cancel = await jup.trigger.cancelOrder({ maker: maker.publicKey.toBase58(), order });
    const tx = VersionedTransaction.deserialize(Buffer.from(cancel.transaction, 'base64'));
    const cancelPolicy = { ...policy(maker.publicKey, { kind: 'escrow', mint: USDC, amount: 0n }), spend: { kind: 'nothing' } as const, product: triggerCancelCheck({ kind: 'trigger.cancel', order }, maker.publicKey) };
    expect((await guardTransaction(tx, cancelPolicy, rpc)).violations).toEqual([]);
    // While the cancel transaction can land, the keeper leaves the order alone: its refund stays exact.
    await control(sim, '/clock', { advanceMs: 10_000 });
    await price(139);
    [open] = await active(maker);
    expect(open!.rawRemainingMakingAmount).toBe(1_500_000_000n);

    const before = (await balances(sim, maker)).tokens[USDC] ?? 0n;
    const done = await jup.trigger.execute({ requestId: cancel.requestId, signedTransaction: signBase64(cancel.transaction, maker) });
    expect((await balances(sim, maker)).tokens[USDC]! - before).toBe(1_500_000_000n);
    const [closed] = await history(maker);
    expect(closed).toMatchObject({ orderKey: order, status: 'Cancelled', closeTx: done.signature, rawRemainingMakingAmount: 1_500_000_000n });
    expect(closed!.trades).toHaveLength(1);
    expect(await escrowOf(order)).toBeUndefined();
    expect((await ledger(sim)).find((t) => t.signature === done.signature)).toMatchObject({ kind: 'trigger-cancel', wallet: maker.publicKey.toBase58(), requestId: cancel.requestId, outputMint: USDC, outputAmount: '1500000000' });
  });

  it('cancels an order past its expiry with the keeper, refunding the maker in full', async () => {
    const maker = await fundedWallet(sim, 100_000_000n, [[USDC, 30_000_000n]]);
    const { nowMs } = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    const { order } = await place(maker, USDC, SOL, 30_000_000n, 1_000_000_000n, { expiredAt: Math.floor(nowMs / 1000) + 30 });
    expect((await active(maker))[0]!.expiredAt).toBe(new Date((Math.floor(nowMs / 1000) + 30) * 1000).toISOString().replace('.000Z', 'Z'));
    await control(sim, '/clock', { advanceMs: 20_000 });
    expect(await active(maker)).toHaveLength(1);
    await control(sim, '/clock', { advanceMs: 11_000 });
    const [closed] = await history(maker);
    expect(closed).toMatchObject({ orderKey: order, status: 'Cancelled', trades: [] });
    expect((await balances(sim, maker)).tokens[USDC]).toBe(30_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === closed!.closeTx)).toMatchObject({ kind: 'trigger-cancel', wallet: maker.publicKey.toBase58(), outputAmount: '30000000' });
  });

  it('cancels every open order of a maker with cancelOrders, one refund per transaction', async () => {
    const maker = await fundedWallet(sim, 2_000_000_000n, [[USDC, 70_000_000n]]);
    const usdcOrders = [];
    for (let i = 0; i < 7; i += 1) usdcOrders.push((await place(maker, USDC, SOL, 10_000_000n, 1_000_000_000n)).order);
    const solOrder = (await place(maker, SOL, USDC, 50_000_000n, 100_000_000n)).order;
    const { requestId, transactions } = await jup.trigger.cancelOrders({ maker: maker.publicKey.toBase58() });
    // Five cancels to a transaction, and one input mint per transaction: 5 + 2 USDC orders, 1 SOL order.
    expect(transactions).toHaveLength(3);
    const lamports = (await balances(sim, maker)).lamports;
    for (const t of transactions) await jup.trigger.execute({ requestId, signedTransaction: signBase64(t, maker) });
    expect(await active(maker)).toEqual([]);
    expect((await history(maker)).map((o) => o.status)).toEqual(Array(8).fill('Cancelled'));
    expect((await balances(sim, maker)).tokens[USDC]).toBe(70_000_000n);
    // The SOL order's 0.05 SOL came back, less the three transactions' fees.
    expect((await balances(sim, maker)).lamports - lamports).toBeGreaterThan(49_900_000n);
    for (const o of [...usdcOrders, solOrder]) expect(await escrowOf(o)).toBeUndefined();
  });

  it('opens and cancels orders whose transactions went straight to the RPC node; the control API fills or expires them', async () => {
    const maker = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
    // 10 USDC for 0.06 SOL: a limit of 166.67 USDC per SOL, not crossed at 180 (the keeper leaves it to the control API).
    const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 10_000_000n, takingAmount: 60_000_000n } });
    await rpc.send(Buffer.from(signBase64(created.transaction, maker), 'base64'));
    expect((await active(maker)).map((o) => o.orderKey)).toEqual([created.order]);
    expect((await control<{ filled: number }>(sim, '/orders/fill', { order: created.order })).filled).toBe(1);
    expect((await history(maker))[0]).toMatchObject({ status: 'Completed', trades: [expect.objectContaining({ rawOutputAmount: 60_000_000n })] });

    const { order } = await place(maker, USDC, SOL, 10_000_000n, 900_000_000n);
    expect((await control<{ expired: number }>(sim, '/orders/expire', { order })).expired).toBe(1);
    expect((await history(maker)).find((o) => o.orderKey === order)?.status).toBe('Cancelled');
    expect((await balances(sim, maker)).tokens[USDC]).toBe(10_000_000n);

    // A cancel sent through RPC instead of execute: the keeper co-signs it all the same.
    const other = (await place(maker, USDC, SOL, 10_000_000n, 900_000_000n)).order;
    const cancel = await jup.trigger.cancelOrder({ maker: maker.publicKey.toBase58(), order: other });
    await rpc.send(Buffer.from(signBase64(cancel.transaction, maker), 'base64'));
    expect((await history(maker)).find((o) => o.orderKey === other)?.status).toBe('Cancelled');
    expect((await balances(sim, maker)).tokens[USDC]).toBe(10_000_000n);
  });
});
