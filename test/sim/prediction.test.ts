import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PublicKey, TransactionMessage, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { MarketNotSettledError } from '../../src/jupiter/prediction/errors.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, USDC } from '../helpers/sim.js';

// The prediction API on the simulator, through the project's own client over HTTP, with real signed transactions
// sent through the venue's RPC. The clock is frozen: prices move only when a test moves them, and the keeper fills
// when told to (POST /__sim/orders/fill).
describe('prediction markets on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 0 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  const usdc = async (w: Keypair) => (await balances(sim, w)).tokens[USDC] ?? 0n;
  /** Signs a built transaction and sends it through the venue's RPC; waits for its status. */
  async function send(transaction: string, signer: Keypair): Promise<string> {
    const bytes = Buffer.from(signBase64(transaction, signer), 'base64');
    const signature = await rpc.send(bytes);
    const { value } = await rpc.status(signature);
    expect(value).not.toBeNull();
    expect(value!.err).toBeNull();
    return signature;
  }
  /** An open market quoted on both sides. */
  async function tradableMarket(): Promise<Market> {
    const page = await jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data.flatMap((e) => e.markets).find((x) => x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyNoPriceUsd !== null);
    expect(m).toBeDefined();
    return m!;
  }

  it('buys YES, fills, resolves YES and claims exactly $1 a contract; NO on the same market pays nothing', async () => {
    const m = await tradableMarket();
    const yes = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    const no = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    const buyYes = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: yes.publicKey.toBase58(), marketId: m.marketId, isYes: true, depositAmount: 20_000_000n });
    const buyNo = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: no.publicKey.toBase58(), marketId: m.marketId, isYes: false, depositAmount: 10_000_000n });
    expect(buyYes.order.maxBuyPriceUsd).not.toBeNull();
    await send(buyYes.transaction, yes);
    await send(buyNo.transaction, no);
    expect(await usdc(yes)).toBe(30_000_000n);

    const filled = await control<{ filled: number; keeperError: string | null }>(sim, '/orders/fill', {});
    expect(filled.keeperError).toBeNull();
    expect(filled.filled).toBeGreaterThanOrEqual(2);
    const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: yes.publicKey.toBase58() })).data;
    expect(pos!.contractsMicro).toBeGreaterThan(0n);

    await expect(jup.prediction.claimPredictionPosition({ positionPubkey: pos!.pubkey, ownerPubkey: yes.publicKey.toBase58() })).rejects.toBeInstanceOf(MarketNotSettledError);
    await control(sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });

    const before = await usdc(yes);
    const claim = await jup.prediction.claimPredictionPosition({ positionPubkey: pos!.pubkey, ownerPubkey: yes.publicKey.toBase58() });
    expect(claim.position.payoutAmountUsd).toBe(pos!.contractsMicro);
    await send(claim.transaction, yes);
    expect((await usdc(yes)) - before).toBe(pos!.contractsMicro);

    const kinds = (await ledger(sim)).filter((t) => t.wallet === yes.publicKey.toBase58()).map((t) => t.kind);
    expect(kinds).toEqual(expect.arrayContaining(['prediction-order', 'prediction-fill', 'prediction-claim']));
    // The NO side lost: its position is closed by the keeper, a claim is refused, and nothing is paid.
    const noKinds = (await ledger(sim)).filter((t) => t.wallet === no.publicKey.toBase58()).map((t) => t.kind);
    expect(noKinds).toContain('prediction-close');
    const afterNo = await usdc(no);
    const noHistory = (await jup.prediction.getPredictionHistory({ ownerPubkey: no.publicKey.toBase58() })).data;
    const lost = noHistory.find((h) => h.eventType === 'position_lost')!;
    expect(lost.payoutAmountUsd).toBe(0n);
    await expect(jup.prediction.claimPredictionPosition({ positionPubkey: lost.positionPubkey!, ownerPubkey: no.publicKey.toBase58() })).rejects.toThrow(/did not win/);
    expect(await usdc(no)).toBe(afterNo);
    expect((await jup.prediction.getPredictionPositions({ ownerPubkey: no.publicKey.toBase58() })).data).toEqual([]);
    const tx = VersionedTransaction.deserialize(Buffer.from(claim.transaction, 'base64'));
    expect(tx.message.staticAccountKeys.length).toBeGreaterThan(0);
  });

  it('charges the documented fee on fills only: 0.07 x contracts x p x (1 - p), rounded up to the cent', async () => {
    const m = await tradableMarket();
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
    const owner = w.publicKey.toBase58();
    const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: m.marketId, isYes: false, depositAmount: 25_000_000n });
    await send(build.transaction, w);
    // Placing the order charges nothing: the whole deposit sits in the escrow.
    expect(await usdc(w)).toBe(75_000_000n);
    await control(sim, '/orders/fill', { order: build.order.orderPubkey });
    const fill = (await jup.prediction.getPredictionHistory({ ownerPubkey: owner })).data.find((h) => h.eventType === 'order_filled')!;
    const contracts = fill.filledContractsMicro!;
    const price = fill.avgFillPriceUsd!;
    const raw = 7n * contracts * price * (1_000_000n - price);
    const fee = ((raw + 10n ** 18n - 1n) / 10n ** 18n) * 10_000n;
    expect(fill.feeUsd).toBe(fee);
    expect(build.order.estimatedTotalFeeUsd).toBe(fee);
    expect(fill.totalCostUsd).toBe((contracts * price) / 1_000_000n);
    // What left the wallet is the cost and the fee; the rest of the deposit came back with the last fill.
    expect(75_000_000n + 25_000_000n - (await usdc(w))).toBe(fill.totalCostUsd! + fee);
  });

  it('refunds an unfilled order in full, closed by its owner or by the keeper when it cannot fill', async () => {
    const m = await tradableMarket();
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 40_000_000n]]);
    const owner = w.publicKey.toBase58();
    const first = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: m.marketId, isYes: true, depositAmount: 15_000_000n });
    await send(first.transaction, w);
    const close = await jup.prediction.closePredictionOrder({ ownerPubkey: owner, orderPubkey: first.order.orderPubkey! });
    await send(close.transaction, w);
    expect(await usdc(w)).toBe(40_000_000n);

    // A limit of $0.01 a contract: nothing in the book is that cheap, so the keeper gives up after its time.
    const limited = await fetch(`${sim.url}/prediction/v1/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ isBuy: true, ownerPubkey: owner, marketId: m.marketId, isYes: true, depositAmount: '12000000', maxBuyPriceUsd: 10_000 }),
    });
    const body = (await limited.json()) as { transaction: string; order: { orderPubkey: string; maxBuyPriceUsd: string } };
    expect(body.order.maxBuyPriceUsd).toBe('10000');
    await send(body.transaction, w);
    expect(await usdc(w)).toBe(28_000_000n);
    await control(sim, '/clock', { advanceMs: 3_000 });
    expect((await jup.prediction.getPredictionOrders({ ownerPubkey: owner })).data.map((o) => o.pubkey)).toEqual([body.order.orderPubkey]);
    await control(sim, '/clock', { advanceMs: 60_000 });
    expect(await usdc(w)).toBe(40_000_000n);
    const status = await jup.prediction.getPredictionOrderStatus({ orderPubkey: body.order.orderPubkey });
    expect([status.status, status.latestEventType]).toEqual(['failed', 'order_failed']);
    const closes = (await ledger(sim)).filter((t) => t.wallet === owner && t.kind === 'prediction-close').map((t) => t.outputAmount);
    expect(closes).toEqual(['15000000', '12000000']);
  });

  it('fills on its own once the keeper network has seen the order', async () => {
    const m = await tradableMarket();
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const owner = w.publicKey.toBase58();
    const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: m.marketId, isYes: true, depositAmount: 10_000_000n });
    await send(build.transaction, w);
    expect((await jup.prediction.getPredictionOrderStatus({ orderPubkey: build.order.orderPubkey! })).status).toBe('created');
    await control(sim, '/clock', { advanceMs: 3_000 });
    expect((await jup.prediction.getPredictionOrderStatus({ orderPubkey: build.order.orderPubkey! })).status).toBe('filled');
    // The fill spends the deposit at the book when the network works the order, two simulated seconds after it
    // landed: the mid moves meanwhile, so what it bought can be a cent's worth off the build's estimate (the exact
    // count held once in eight runs). Every dollar of the deposit is spent or refunded, and the position holds the
    // contracts bought.
    const fills = (await ledger(sim)).filter((t) => t.wallet === owner && t.kind === 'prediction-fill');
    expect(fills).toHaveLength(1);
    expect(BigInt(fills[0]!.inputAmount!) + BigInt(fills[0]!.outputAmount ?? '0')).toBe(10_000_000n);
    const filled = (await jup.prediction.getPredictionHistory({ ownerPubkey: owner })).data.filter((e) => e.orderPubkey === build.order.orderPubkey && e.eventType === 'order_filled');
    expect(filled).toHaveLength(1);
    const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: owner, marketId: m.marketId })).data;
    expect(pos!.contractsMicro).toBeGreaterThan(0n);
    expect(pos!.contractsMicro).toBe(filled[0]!.filledContractsMicro);
  });

  it('does not co-sign an owner transaction that adds its own move out of the vault beside the venue instructions', async () => {
    const m = await tradableMarket();
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 10_000_000n]]);
    const owner = w.publicKey.toBase58();
    const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: m.marketId, isYes: true, depositAmount: 10_000_000n });
    await send(build.transaction, w);
    // Another owner's position on a market still open: its dollars sit in the same vault.
    const other = await fundedWallet(sim, 1_000_000_000n, [[USDC, 30_000_000n]]);
    const open = (await jup.prediction.getEvents({ includeMarkets: true, category: 'economics' })).data.flatMap((e) => e.markets).find((x) => x.isTradable && x.pricing.buyNoPriceUsd !== null)!;
    const held = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: other.publicKey.toBase58(), marketId: open.marketId, isYes: false, depositAmount: 30_000_000n });
    await send(held.transaction, other);
    await control(sim, '/orders/fill', {});
    await control(sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });
    const claim = await jup.prediction.claimPredictionPosition({ positionPubkey: build.order.positionPubkey, ownerPubkey: owner });
    const vault = (await control<{ escrows: Array<{ address: string; product: string; authority: string; wallet: string; mint: string; amount: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.find((e) => e.product === 'prediction' && e.authority === e.wallet && e.mint === USDC)!;
    const keeper = new PublicKey((await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners[1]!);

    // Two ways to take more than the claim: a second copy of its payment out of the vault (the keeper is the vault's
    // delegate), and a transfer of everything else the vault holds, other owners' dollars.
    const rest = BigInt(vault.amount) - claim.position.payoutAmountUsd;
    expect(rest).toBeGreaterThan(0n);
    const tx = VersionedTransaction.deserialize(Buffer.from(claim.transaction, 'base64'));
    const payment = TransactionMessage.decompile(tx.message).instructions.at(-1)!;
    const greedy = [payment, createTransferCheckedInstruction(new PublicKey(vault.address), new PublicKey(USDC), getAssociatedTokenAddressSync(new PublicKey(USDC), w.publicKey), keeper, rest, 6)].map((extra) => {
      const message = TransactionMessage.decompile(tx.message);
      message.instructions.push(extra);
      const signed = new VersionedTransaction(message.compileToV0Message());
      signed.sign([w]);
      return signed;
    });
    const before = await usdc(w);
    for (const t of greedy) {
      await expect(rpc.send(t.serialize())).rejects.toThrow(/signature/i);
      const execute = await fetch(`${sim.url}/prediction/v1/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ signedTransaction: Buffer.from(t.serialize()).toString('base64') }) });
      expect(execute.status).toBe(400);
    }
    expect(await usdc(w)).toBe(before);
    const vaultNow = (await control<{ escrows: Array<{ address: string; amount: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.find((e) => e.address === vault.address)!;
    expect(vaultNow.amount).toBe(vault.amount);

    // The claim as built still lands and pays what it says.
    await send(claim.transaction, w);
    expect((await usdc(w)) - before).toBe(claim.position.payoutAmountUsd);
  });
});
