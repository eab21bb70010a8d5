import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { PredictionOrder } from '../../src/jupiter/prediction/index.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { balances, control, ledger, USDC } from '../helpers/sim.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

/** An escrow as GET /__sim/escrows lists it. */
interface Escrow {
  address: string;
  product: string;
  authority: string;
  wallet: string;
  mint: string;
  amount: string;
}

// prediction.buy, .sell, .closeOrder and .claim intents carried out by the real Executor (builder, guard with the
// intent's own policy, signature, RPC submit, confirmation) against the simulator and a real Redis ledger. The
// clock is frozen: the venue's keeper fills an order only when told to (POST /__sim/orders/fill).
describe('prediction intents through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('exec-prediction');
  /** The keeper's executor for a fresh wallet with 1 SOL and `usdc` USDC (every guard report kept). */
  const setup = (usdc: bigint) => executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, usdc]] });
  const usdcOf = async (s: WalletExecutor) => (await balances(world.sim, s.keypair)).tokens[USDC] ?? 0n;

  /** Markets handed out so far: each test trades its own, so fills and resolutions do not cross. */
  const taken = new Set<string>();
  /** An open market quoted on both sides below $0.90 that no other test of this file trades. */
  async function freshMarket(): Promise<Market> {
    const page = await world.jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const m = page.data
      .flatMap((e) => e.markets)
      .find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n && x.pricing.buyNoPriceUsd !== null);
    expect(m, 'an open politics market quoted on both sides').toBeDefined();
    taken.add(m!.marketId);
    return m!;
  }
  /** The wallet's open prediction orders, as the venue lists them. */
  const openOrders = async (s: WalletExecutor): Promise<PredictionOrder[]> => (await world.jup.prediction.getPredictionOrders({ ownerPubkey: s.wallet.address })).data;
  const escrows = async () => (await control<{ escrows: Escrow[] }>(world.sim, '/escrows', undefined, 'GET')).escrows;
  /** The wallet's one open buy, and the escrow of the prediction program that holds its deposit. */
  async function theOpenBuy(s: WalletExecutor): Promise<{ order: PredictionOrder; escrow: Escrow }> {
    const orders = await openOrders(s);
    expect(orders).toHaveLength(1);
    const order = orders[0]!;
    const held = (await escrows()).filter((e) => e.authority === order.pubkey);
    expect(held).toHaveLength(1);
    return { order, escrow: held[0]! };
  }
  /** Has the keeper work one order now; it must fill without a keeper error. */
  async function fill(order: string): Promise<void> {
    const r = await control<{ filled: number; keeperError: string | null }>(world.sim, '/orders/fill', { order });
    expect(r).toEqual({ filled: 1, keeperError: null });
  }

  it('lands a buy into the order escrow, the keeper fills it, and a sell of half the contracts lands', async () => {
    const m = await freshMarket();
    const s = await setup(50_000_000n);
    const bought = await s.run({ kind: 'prediction.buy', marketId: m.marketId, side: 'yes', depositAmount: 20_000_000n, maxPriceMicroUsd: 990_000n });
    expect(bought.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[]]);
    // The keeper co-signs the order (its create_order); it is a declared co-signer.
    expect(s.reports[0]!.signers).toEqual([s.wallet.address, world.sim.ctx.state.venue.keeper.publicKey.toBase58()]);
    expect(s.reports[0]!.programs).toContain(PROGRAM_IDS.jupiterPrediction);
    // The guard simulated it and saw the deposit leave: that is what its escrow rule held to the intent's amount.
    expect(s.reports[0]).toMatchObject({ simulated: true, changes: { tokens: [{ mint: USDC, delta: -20_000_000n }] } });
    // Exactly the deposit left the wallet, into a token account whose authority is the order account of the
    // prediction program (an account that program owns).
    expect(await usdcOf(s)).toBe(30_000_000n);
    const { order, escrow } = await theOpenBuy(s);
    expect(order).toMatchObject({ marketId: m.marketId, isBuy: true, isYes: true });
    expect(escrow).toMatchObject({ product: 'prediction', wallet: s.wallet.address, mint: USDC, amount: '20000000' });
    const orderAccount = world.sim.ctx.state.venue.chain.account(new PublicKey(order.pubkey));
    expect(orderAccount?.owner.toBase58()).toBe(PROGRAM_IDS.jupiterPrediction);
    expect((await ledger(world.sim)).find((t) => t.signature === bought.rec.signature)).toMatchObject({ kind: 'prediction-order', wallet: s.wallet.address, inputMint: USDC, inputAmount: '20000000' });

    await fill(order.pubkey);
    expect(await openOrders(s)).toEqual([]);
    expect((await escrows()).filter((e) => e.authority === order.pubkey)).toEqual([]);
    const [position] = (await world.jup.prediction.getPredictionPositions({ ownerPubkey: s.wallet.address })).data;
    expect(position).toMatchObject({ marketId: m.marketId, isYes: true });
    const held = position!.contractsMicro!;
    expect(held).toBeGreaterThan(0n);

    // Sell half (whole hundredths of a contract) at no less than $0.01: nothing leaves the wallet but fees.
    const half = (held / 2n / 10_000n) * 10_000n;
    const before = await usdcOf(s);
    const sold = await s.run({ kind: 'prediction.sell', positionPubkey: position!.pubkey, contractsMicro: half, minPriceMicroUsd: 10_000n });
    expect(sold.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
    expect(s.reports[1]).toMatchObject({ simulated: true, changes: { tokens: [] } });
    expect(await usdcOf(s)).toBe(before);
    const [sell] = await openOrders(s);
    expect(sell).toMatchObject({ isBuy: false, isYes: true, position: position!.pubkey });
    // Once the keeper fills the sell, its proceeds come to the wallet and the position holds the rest.
    await fill(sell!.pubkey);
    const proceeds = (await ledger(world.sim)).filter((t) => t.wallet === s.wallet.address && t.kind === 'prediction-fill').at(-1)!;
    expect(BigInt(proceeds.outputAmount!)).toBeGreaterThan(0n);
    expect((await usdcOf(s)) - before).toBe(BigInt(proceeds.outputAmount!));
    expect((await world.jup.prediction.getPredictionPosition({ positionPubkey: position!.pubkey })).contractsMicro).toBe(held - half);
  });

  it('closes an unfilled buy: the close lands and the whole deposit comes back', async () => {
    const m = await freshMarket();
    const s = await setup(30_000_000n);
    const bought = await s.run({ kind: 'prediction.buy', marketId: m.marketId, side: 'no', depositAmount: 12_000_000n, maxPriceMicroUsd: 990_000n });
    expect(bought.result).toEqual({ state: 'landed' });
    const { order, escrow } = await theOpenBuy(s);
    expect(escrow.amount).toBe('12000000');
    expect(await usdcOf(s)).toBe(18_000_000n);

    const closed = await s.run({ kind: 'prediction.closeOrder', orderPubkey: order.pubkey });
    expect(closed.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
    expect(await usdcOf(s)).toBe(30_000_000n);
    expect(await openOrders(s)).toEqual([]);
    expect((await escrows()).filter((e) => e.authority === order.pubkey)).toEqual([]);
    expect((await ledger(world.sim)).find((t) => t.signature === closed.rec.signature)).toMatchObject({ kind: 'prediction-close', wallet: s.wallet.address, outputMint: USDC, outputAmount: '12000000' });
  });

  it('claims a winning position after the market resolves: exactly $1 a contract', async () => {
    const m = await freshMarket();
    const s = await setup(30_000_000n);
    const bought = await s.run({ kind: 'prediction.buy', marketId: m.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    expect(bought.result).toEqual({ state: 'landed' });
    await fill((await theOpenBuy(s)).order.pubkey);
    const [position] = (await world.jup.prediction.getPredictionPositions({ ownerPubkey: s.wallet.address })).data;
    const contracts = position!.contractsMicro!;
    expect(contracts).toBeGreaterThan(0n);

    const resolved = await control<{ keeperError: string | null }>(world.sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });
    expect(resolved.keeperError).toBeNull();
    const before = await usdcOf(s);
    const claimed = await s.run({ kind: 'prediction.claim', positionPubkey: position!.pubkey });
    expect(claimed.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
    // One contract pays 1,000,000 USDC base units; the position's micro-contracts are that many base units.
    expect((await usdcOf(s)) - before).toBe(contracts);
    expect((await ledger(world.sim)).find((t) => t.signature === claimed.rec.signature)).toMatchObject({ kind: 'prediction-claim', wallet: s.wallet.address, outputMint: USDC, outputAmount: contracts.toString() });
  });

  it('rejects a buy whose venue-reported price limit is above the intent\'s, signing nothing', async () => {
    const m = await freshMarket();
    const s = await setup(30_000_000n);
    // The venue's limit is the best ask plus its slippage, so a limit at the best ask itself is below it. (A build
    // the wallet never signs, to show the premise: it stays pending and is never listed.)
    const ask = m.pricing.buyYesPriceUsd!;
    const probe = await world.jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: s.wallet.address, marketId: m.marketId, isYes: true, depositAmount: 10_000_000n });
    expect(probe.order.maxBuyPriceUsd).toBeGreaterThan(ask);
    const refused = await s.run({ kind: 'prediction.buy', marketId: m.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: ask });
    expect(refused.result).toEqual({ state: 'rejected' });
    expect(refused.rec.error).toMatchObject({ code: 'PREDICTION_PRICE_LIMIT' });
    expect(refused.rec.signature).toBeNull();
    expect(s.reports).toEqual([]);
    expect(await usdcOf(s)).toBe(30_000_000n);
    expect(await openOrders(s)).toEqual([]);
  });
});
