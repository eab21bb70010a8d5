import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { JupiterClient } from '../../src/jupiter/client.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, signBase64, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { cancelRecurringOrder, eventually, openRecurringOrder, recurringClient, timeOrders } from './recurringKit.js';

// A time-based recurring order's life on the simulator, seen through the project's client over HTTP: the deposit
// lands in the order's escrow, the keeper fills one slice per interval at the market (the clock is frozen: the
// tests move it), a slice outside the price bounds waits, and a cancel returns exactly what is left.
describe('recurring orders on the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = recurringClient(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  const escrowOf = async (order: string) => {
    const { escrows } = await control<{ escrows: Array<{ address: string; authority: string; product: string; amount: string }> }>(sim, '/escrows', undefined, 'GET');
    return escrows.find((e) => e.authority === order);
  };

  it('escrows the whole deposit in an account of the DCA program and fills the first slice at once', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 300_000_000n]]);
    const { order, signature } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 300_000_000n, numberOfOrders: 3, interval: 3600 });
    const account = sim.ctx.state.venue.chain.account(new PublicKey(order))!;
    expect(new PublicKey(account.owner).toBase58()).toBe(PROGRAM_IDS.jupiterRecurring);
    const created = (await ledger(sim)).find((t) => t.signature === signature);
    expect(created).toMatchObject({ kind: 'recurring-create', wallet: user.publicKey.toBase58(), inputMint: USDC, inputAmount: '300000000', outputMint: SOL });

    const [open] = await eventually('the first slice', async () => {
      const orders = await timeOrders(jup, user, 'active');
      return orders[0]?.trades.length === 1 ? orders : undefined;
    });
    expect(open).toMatchObject({ orderKey: order, rawInDeposited: 300_000_000n, rawInAmountPerCycle: 100_000_000n, rawInUsed: 100_000_000n, cycleFrequency: 3600, closeTx: null, userClosed: false, openTx: signature });
    const fill = open!.trades[0]!;
    expect(fill).toMatchObject({ action: 'Fill', keeper: sim.ctx.state.venue.keeper.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, rawInputAmount: 100_000_000n, feeMint: SOL });
    // 0.1 % of the swap's output is the program's fee; the rest reached the wallet.
    expect(fill.rawFeeAmount).toBe(((fill.rawOutputAmount + fill.rawFeeAmount!) * 10n) / 10_000n);
    expect(open!.rawOutReceived).toBe(fill.rawOutputAmount);
    expect((await escrowOf(order))).toMatchObject({ product: 'recurring', amount: '200000000' });
    expect((await ledger(sim)).filter((t) => t.kind === 'recurring-fill' && t.wallet === user.publicKey.toBase58())).toEqual([
      expect.objectContaining({ inputMint: USDC, inputAmount: '100000000', outputMint: SOL, outputAmount: fill.rawOutputAmount.toString() }),
    ]);

    // Nothing more is due until an interval has passed.
    await control(sim, '/clock', { advanceMs: 3_599_000 });
    expect((await timeOrders(jup, user, 'active'))[0]!.trades).toHaveLength(1);
    await control(sim, '/clock', { advanceMs: 1_000 });
    expect((await timeOrders(jup, user, 'active'))[0]!.trades).toHaveLength(2);
  });

  it('lets a slice wait while the market is outside the price bounds, and fills it once the price comes in', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 200_000_000n]]);
    const solUsd = sim.ctx.state.venue.prices.usd(SOL)!;
    // At least 1/150 SOL per USDC: SOL must fall to 150 USD or below.
    const minPrice = 1 / 150;
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, interval: 3600, minPrice });
    expect(solUsd).toBeGreaterThan(160);
    await control(sim, '/clock', { advanceMs: 120_000 });
    const waiting = (await timeOrders(jup, user, 'active')).find((o) => o.orderKey === order)!;
    expect(waiting.trades).toEqual([]);
    expect(waiting.rawMinOutAmount).toBe(666_666_666n);
    await control(sim, '/price', { mint: SOL, usd: 140 });
    const filled = (await timeOrders(jup, user, 'active')).find((o) => o.orderKey === order)!;
    expect(filled.trades).toHaveLength(1);
    expect(filled.trades[0]!.rawOutputAmount + filled.trades[0]!.rawFeeAmount!).toBeGreaterThanOrEqual(666_666_666n);
    await control(sim, '/price', { mint: SOL, usd: solUsd });
  });

  it('cancels with a refund of exactly what the escrow still holds, and moves the order to history', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 500_000_000n]]);
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 500_000_000n, numberOfOrders: 5, interval: 86_400 });
    await eventually('the first slice', async () => ((await timeOrders(jup, user, 'active'))[0]?.trades.length === 1 ? true : undefined));
    const before = (await balances(sim, user)).tokens[USDC] ?? 0n;
    const signature = await cancelRecurringOrder(jup, user, order);
    expect((await balances(sim, user)).tokens[USDC]! - before).toBe(400_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'recurring-cancel', wallet: user.publicKey.toBase58(), outputMint: USDC, outputAmount: '400000000' });
    expect(await timeOrders(jup, user, 'active')).toEqual([]);
    const [closed] = await timeOrders(jup, user, 'history');
    expect(closed).toMatchObject({ orderKey: order, userClosed: true, closeTx: signature, rawInWithdrawn: 400_000_000n, rawInUsed: 100_000_000n });
    expect(await escrowOf(order)).toBeUndefined();
    // The order account is closed: a second cancel finds no order.
    await expect(jup.recurring.cancelOrder({ order, user: user.publicKey.toBase58() })).rejects.toMatchObject({ code: 'JUP_HTTP_400' });
  });

  it('holds SOL as wrapped SOL and returns it as SOL on cancel', async () => {
    const user = await fundedWallet(sim, 3_000_000_000n);
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: SOL, outputMint: USDC, inAmount: 1_000_000_000n, numberOfOrders: 2, interval: 86_400 });
    await eventually('the first slice', async () => ((await timeOrders(jup, user, 'active'))[0]?.trades.length === 1 ? true : undefined));
    expect(await escrowOf(order)).toMatchObject({ amount: '500000000' });
    const before = (await balances(sim, user)).lamports;
    await cancelRecurringOrder(jup, user, order);
    // The refund less the cancel's own fees (signature and priority fee).
    const gained = (await balances(sim, user)).lamports - before;
    expect(gained).toBeGreaterThan(500_000_000n - 100_000n);
    expect(gained).toBeLessThanOrEqual(500_000_000n);
  });

  it('fills the next slice ahead of time and ends an order through the control API', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 300_000_000n]]);
    const { order } = await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 300_000_000n, numberOfOrders: 3, interval: 86_400 });
    await eventually('the first slice', async () => ((await timeOrders(jup, user, 'active'))[0]?.trades.length === 1 ? true : undefined));
    expect(await control(sim, '/orders/fill', { order })).toMatchObject({ filled: 1 });
    expect((await timeOrders(jup, user, 'active'))[0]!.rawInUsed).toBe(200_000_000n);
    expect(await control(sim, '/orders/expire', { order })).toMatchObject({ expired: 1 });
    const [ended] = await timeOrders(jup, user, 'history');
    expect(ended).toMatchObject({ orderKey: order, userClosed: false, rawInUsed: 200_000_000n, rawInWithdrawn: 100_000_000n });
    expect((await ledger(sim)).find((t) => t.signature === ended!.closeTx)).toMatchObject({ kind: 'recurring-cancel', wallet: user.publicKey.toBase58(), outputMint: USDC, outputAmount: '100000000' });
    expect(await control(sim, '/orders/fill', { order })).toMatchObject({ filled: 0 });
  });

  it('opens an order whose transaction reached the chain through RPC instead of execute', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 110_000_000n]]);
    const created = await jup.recurring.createOrder({ user: user.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, params: { inAmount: 110_000_000n, numberOfOrders: 2, interval: 86_400 }, inputUsdPrice: 1, inputDecimals: 6 });
    const signature = await new SolanaRpc(`${sim.url}/rpc`).send(Buffer.from(signBase64(created.transaction, user), 'base64'));
    const [open] = await eventually('the order to open', async () => {
      const orders = await timeOrders(jup, user, 'active');
      return orders.length === 1 ? orders : undefined;
    });
    expect(open!.openTx).toBe(signature);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'recurring-create', requestId: created.requestId });
    // execute of the same signed transaction afterwards answers as the first landing did.
    const replay = await jup.recurring.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, user) });
    expect(replay).toMatchObject({ status: 'Success', signature, order: open!.orderKey });
  });

  it('reports a transaction that cannot pay its deposit as Failed, with no order', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 50_000_000n]]);
    const created = await jup.recurring.createOrder({ user: user.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, params: { inAmount: 110_000_000n, numberOfOrders: 2, interval: 86_400 }, inputUsdPrice: 1, inputDecimals: 6 });
    const err = await jup.recurring.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, user) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'JUP_EXECUTE_-1001', details: expect.objectContaining({ serviceError: 'Insufficient funds for the operation requested.' }) });
    expect(await timeOrders(jup, user, 'active')).toEqual([]);
    // The unsigned transaction cannot be settled in the user's name either.
    const tx = VersionedTransaction.deserialize(Buffer.from(created.transaction, 'base64'));
    expect(tx.message.staticAccountKeys[0]!.equals(user.publicKey)).toBe(true);
  });
});
