import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { z } from 'zod';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError, NotFoundError, type HttpStatusError } from '../../src/jupiter/errors.js';
import { AlreadyClaimedError, MarketNotSettledError, PredictionExecuteError } from '../../src/jupiter/prediction/errors.js';
import type { CloseAllItem } from '../../src/jupiter/prediction/closeAllPredictionPositions.js';
import type { PredictionPosition } from '../../src/jupiter/prediction/getPredictionPosition.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import { PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import { decodeMarketResultAccount } from '../../src/jupiter/programs/predictionAccounts.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, JUP, ledger, signBase64, startTestSim, USDC } from '../helpers/sim.js';

const MICRO = 1_000_000n;
const CENT = 10_000n;

/** The documented fee of a trade (jupiter-api.md §8): 0.07 x contracts x p x (1 - p) over the levels taken, rounded UP to the cent; micro-USD. */
function documentedFee(levels: Array<[priceMicro: bigint, contractsMicro: bigint]>): bigint {
  // In cents: 7/100 x (c/1e6) x (p/1e6) x ((1e6 - p)/1e6) x 100 = 7 c p (1e6 - p) / 1e18.
  const scaled = levels.reduce((s, [p, c]) => s + 7n * c * p * (MICRO - p), 0n);
  return ((scaled + 10n ** 18n - 1n) / 10n ** 18n) * CENT;
}

/** Takes `contracts` (micro) from levels best first: the parts taken, as [price, contracts]. */
function walk(levels: Array<[priceMicro: bigint, contractsMicro: bigint]>, contracts: bigint): Array<[bigint, bigint]> {
  const parts: Array<[bigint, bigint]> = [];
  let left = contracts;
  for (const [p, size] of levels) {
    const take = size < left ? size : left;
    if (take > 0n) parts.push([p, take]);
    left -= take;
  }
  expect(left, 'the book is deep enough').toBe(0n);
  return parts;
}

// Every route of the prediction API on the simulator, through the project's own client over real HTTP, with the
// owner's transactions signed and sent through the venue's RPC (or POST /execute). The clock is frozen: the keeper
// fills when told to (POST /__sim/orders/fill) and markets settle when told to (POST /__sim/prediction/resolve).
describe('prediction routes on the simulator', { timeout: 60_000 }, () => {
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
  const nowSec = async () => Math.floor((await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET')).nowMs / 1000);
  const wallet = (usd = 100n) => fundedWallet(sim, 1_000_000_000n, [[USDC, usd * MICRO]]);
  const key = (w: Keypair) => w.publicKey.toBase58();
  /** The transport without the endpoint functions' own checks: what the service answers to a body the client would not send. */
  const raw = (path: string, body: unknown) => jup.transport.request({ endpoint: 'test.raw', method: 'POST', path: `/prediction/v1${path}`, body, schema: z.unknown(), retry: false });

  /** Awaits a refusal: the client's error class and the service's ErrorResponse fields. */
  async function refused(call: Promise<unknown>, cls: typeof BadRequestError | typeof NotFoundError | typeof AlreadyClaimedError, body: Record<string, unknown>): Promise<void> {
    const err = await call.then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(cls);
    expect((err as HttpStatusError | AlreadyClaimedError).body).toMatchObject(body);
  }
  /** Signs a build and sends it through the venue's RPC; it must land. */
  async function send(transaction: string, signer: Keypair): Promise<string> {
    const signature = await rpc.send(Buffer.from(signBase64(transaction, signer), 'base64'));
    expect((await rpc.status(signature)).value).toMatchObject({ err: null });
    return signature;
  }
  const fill = async (order: string) => expect(await control(sim, '/orders/fill', { order })).toEqual({ filled: 1, keeperError: null });

  const used = new Set<string>();
  /** A long-lived open market (politics or tech) quoted on both sides that no other test has traded. */
  async function freshMarket(fits: (m: Market) => boolean = () => true): Promise<Market> {
    const events = (await Promise.all((['politics', 'tech'] as const).map((category) => jup.prediction.getEvents({ category, includeMarkets: true, end: 100 })))).flatMap((p) => p.data);
    const m = events.flatMap((e) => e.markets).find((x) => !used.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyNoPriceUsd !== null && fits(x));
    expect(m).toBeDefined();
    used.add(m!.marketId);
    return m!;
  }
  /** A market where a $5 buy of YES takes at most 11 contracts: within the best level of any book (12 contracts or more). */
  const midPriced = (m: Market) => m.pricing.buyYesPriceUsd! >= 450_000n && m.pricing.buyYesPriceUsd! <= 900_000n;
  /** Buys, lands and fills; returns the position as GET /positions (filtered by market and side) lists it. */
  async function holding(w: Keypair, m: Market, isYes: boolean, depositAmount = 5_000_000n): Promise<PredictionPosition> {
    const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes, depositAmount });
    await send(build.transaction, w);
    await fill(build.order.orderPubkey!);
    const { data } = await jup.prediction.getPredictionPositions({ ownerPubkey: key(w), marketId: m.marketId, isYes });
    expect(data.map((p) => [p.pubkey, p.contractsMicro])).toEqual([[build.order.positionPubkey, build.order.contractsMicro]]);
    return data[0]!;
  }

  describe('discovery', () => {
    const everything = async () => (await jup.prediction.getEvents({ includeMarkets: true, end: 1_000 })).data;

    it('lists polymarket events by default and kalshi events on request, each under its own ids', async () => {
      const poly = await jup.prediction.getEvents({ includeMarkets: true });
      const kalshi = await jup.prediction.getEvents({ provider: 'kalshi', includeMarkets: true });
      expect(poly.data.length).toBe(20);
      expect(poly.data.every((e) => /^POLY-\d+$/.test(e.eventId) && e.isActive === true && e.markets.every((m) => m.provider === 'polymarket' && m.eventId === e.eventId))).toBe(true);
      expect(kalshi.data.every((e) => e.eventId.startsWith('KX') && e.markets.every((m) => m.provider === 'kalshi' && m.marketId.startsWith(`${e.eventId}-`)))).toBe(true);
      // Both providers list the same stories.
      expect(kalshi.pagination.total).toBe(poly.pagination.total);
    });

    it('filters by category, and includes markets only when asked', async () => {
      const bare = await jup.prediction.getEvents({ category: 'politics' });
      const full = await jup.prediction.getEvents({ category: 'politics', includeMarkets: true });
      expect(bare.pagination.total).toBe((await everything()).filter((e) => e.category === 'politics').length);
      expect(bare.data.every((e) => e.category === 'politics' && e.markets.length === 0)).toBe(true);
      expect(full.data.map((e) => e.eventId)).toEqual(bare.data.map((e) => e.eventId));
      expect(full.data.every((e) => e.markets.length > 0)).toBe(true);
    });

    it('applies the named filters new, live, upcoming and trending to exactly the events they name', async () => {
      const now = await nowSec();
      const all = await everything();
      const ids = async (filter: 'new' | 'live' | 'upcoming') => (await jup.prediction.getEvents({ filter, end: 1_000 })).data.map((e) => e.eventId).sort();
      const expected = {
        new: all.filter((e) => e.markets.some((m) => m.openTime! >= now - 86_400)),
        live: all.filter((e) => e.beginAt !== null && e.beginAt <= now),
        upcoming: all.filter((e) => e.beginAt !== null && e.beginAt > now),
      };
      for (const filter of ['new', 'live', 'upcoming'] as const) {
        expect(expected[filter].length, filter).toBeGreaterThan(0);
        expect(await ids(filter), filter).toEqual(expected[filter].map((e) => e.eventId).sort());
      }
      expect(all.every((e) => e.isLive === expected.live.includes(e))).toBe(true);
      // Trending: the 20 events of the most volume in the last 24 hours, most first.
      const byVolume = all.map((e) => e.volume24hr!).sort((a, b) => (a > b ? -1 : a < b ? 1 : 0));
      expect((await jup.prediction.getEvents({ filter: 'trending' })).data.map((e) => e.volume24hr)).toEqual(byVolume.slice(0, 20));
    });

    it('pages with start and end, reporting total and hasNext', async () => {
      const first = await jup.prediction.getEvents({ start: 0, end: 5 });
      const second = await jup.prediction.getEvents({ start: 5, end: 10 });
      const both = await jup.prediction.getEvents({ start: 0, end: 10 });
      const { total } = both.pagination;
      expect(first.pagination).toEqual({ start: 0, end: 5, total, hasNext: true });
      expect([...first.data, ...second.data].map((e) => e.eventId)).toEqual(both.data.map((e) => e.eventId));
      const last = await jup.prediction.getEvents({ start: total - 2, end: total + 5 });
      expect(last.data.length).toBe(2);
      expect(last.pagination).toEqual({ start: total - 2, end: total, total, hasNext: false });
    });

    it('searches event titles, capped by limit', async () => {
      const matching = (await everything()).filter((e) => e.metadata!.title!.toLowerCase().includes('leadership vote'));
      const found = await jup.prediction.searchEvents({ query: 'Leadership VOTE', limit: 3 });
      expect(found.data.map((e) => e.eventId)).toEqual(matching.slice(0, 3).map((e) => e.eventId));
      expect(found.pagination).toEqual({ start: 0, end: 3, total: matching.length, hasNext: true });
      expect(found.data[0]!.markets.length).toBeGreaterThan(0);
      expect((await jup.prediction.searchEvents({ query: 'no such event anywhere' })).data).toEqual([]);
    });

    it('gets one event with its markets, and answers 404 for an unknown one', async () => {
      const [listed] = (await jup.prediction.getEvents({ category: 'tech', includeMarkets: true })).data;
      const event = await jup.prediction.getEvent({ eventId: listed!.eventId });
      expect(event.metadata?.title).toBe(listed!.metadata?.title);
      expect(event.markets.map((m) => m.marketId)).toEqual(listed!.markets.map((m) => m.marketId));
      await refused(jup.prediction.getEvent({ eventId: 'POLY-1' }), NotFoundError, { code: 'event_not_found' });
    });

    it('gets one market flat, open, tradable and priced in micro-USD, and answers 404 for an unknown one', async () => {
      const listed = await freshMarket();
      const m = await jup.prediction.getMarket({ marketId: listed.marketId });
      expect(m).toMatchObject({ marketId: listed.marketId, eventId: listed.eventId, status: 'open', result: null, isTradable: true, shape: 'flat', resolveAt: null });
      const { buyYesPriceUsd: buyYes, sellYesPriceUsd: sellYes, buyNoPriceUsd: buyNo, sellNoPriceUsd: sellNo } = m.pricing;
      for (const p of [buyYes!, sellYes!, buyNo!, sellNo!]) expect(p > 0n && p < MICRO && p % CENT === 0n, `${p}`).toBe(true);
      // A YES ask is a NO bid seen from the other side; the spread is positive.
      expect([buyYes! + sellNo!, buyNo! + sellYes!]).toEqual([MICRO, MICRO]);
      expect(buyYes! > sellYes!).toBe(true);
      await refused(jup.prediction.getMarket({ marketId: 'POLY-1' }), NotFoundError, { code: 'market_not_found' });
    });

    it('shows the order book ascending, its best bids matching the market quotes', async () => {
      const m = await freshMarket();
      const book = (await jup.prediction.getOrderbook({ marketId: m.marketId }))!;
      for (const side of [book.yes, book.no]) {
        expect(side.length).toBeGreaterThan(1);
        expect(side.map((l) => l.priceCents)).toEqual([...side.map((l) => l.priceCents)].sort((a, b) => a - b));
      }
      expect(book.yes_dollars.map((l) => [l.priceMicroUsd, l.size])).toEqual(book.yes.map((l) => [BigInt(l.priceCents) * CENT, l.size]));
      expect(BigInt(book.yes.at(-1)!.priceCents) * CENT).toBe(m.pricing.sellYesPriceUsd);
      expect(BigInt(100 - book.no.at(-1)!.priceCents) * CENT).toBe(m.pricing.buyYesPriceUsd);
      await refused(jup.prediction.getOrderbook({ marketId: 'POLY-1' }), NotFoundError, { code: 'market_not_found' });
    });

    it('reports trading as active', async () => {
      expect(await jup.prediction.getTradingStatus()).toEqual({ trading_active: true });
    });
  });

  describe('buying', () => {
    it('builds a buy at the best ask with the documented fee, spending as much of the deposit as it can', async () => {
      expect([documentedFee([[250_000n, 100n * MICRO]]), documentedFee([[400_000n, 100n * MICRO]]), documentedFee([[10_000n, MICRO]])]).toEqual([1_320_000n, 1_680_000n, 10_000n]);
      const m = await freshMarket(midPriced);
      const ask = m.pricing.buyYesPriceUsd!;
      const w = await wallet(20n);
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: true, depositAmount: 5_000_000n });
      const o = build.order;
      const c = o.contractsMicro!;
      expect(o).toMatchObject({ userPubkey: key(w), marketId: m.marketId, isBuy: true, isYes: true, minSellPriceUsd: null, newContractsMicro: c, payoutUsd: c, newPayoutUsd: c, estimatedProtocolFeeUsd: 0n });
      expect(build.requiredSigners).toContain(key(w));
      expect(o.maxBuyPriceUsd! >= ask && o.maxBuyPriceUsd! <= 990_000n && o.maxBuyPriceUsd! % CENT === 0n).toBe(true);
      expect(c % CENT).toBe(0n); // fills are floored to 0.01 contract
      expect(o.orderCostUsd).toBe((c * ask) / MICRO);
      expect(o.estimatedVenueFeeUsd).toBe(documentedFee([[ask, c]]));
      expect(o.estimatedTotalFeeUsd).toBe(o.estimatedVenueFeeUsd);
      // The most contracts $5 pays for, fee included: 0.01 contract more would not fit.
      expect(o.orderCostUsd + o.estimatedTotalFeeUsd <= 5_000_000n).toBe(true);
      expect(((c + CENT) * ask) / MICRO + documentedFee([[ask, c + CENT]]) > 5_000_000n).toBe(true);
      await send(build.transaction, w);
      expect(await usdc(w)).toBe(15_000_000n);
      await fill(o.orderPubkey!);
      // The cost and the fee were taken from the deposit; the rest came back.
      expect(await usdc(w)).toBe(20_000_000n - o.orderCostUsd - o.estimatedTotalFeeUsd);
      const position = await jup.prediction.getPredictionPosition({ positionPubkey: o.positionPubkey });
      expect(position).toMatchObject({ contractsMicro: c, totalCostUsd: o.orderCostUsd, feesPaidUsd: o.estimatedTotalFeeUsd, markPriceUsd: m.pricing.sellYesPriceUsd, valueUsd: (c * m.pricing.sellYesPriceUsd!) / MICRO, claimable: false });
    });

    it('walks the same NO bids the order book shows when it buys YES, and takes them off the book', async () => {
      const m = await freshMarket();
      const book = (await jup.prediction.getOrderbook({ marketId: m.marketId }))!;
      // The YES asks are the NO bids seen from the other side, best (cheapest) first.
      const asks = book.no.map((l): [bigint, bigint] => [BigInt(100 - l.priceCents) * CENT, BigInt(l.size) * MICRO]).reverse();
      const [[best, size]] = asks as [[bigint, bigint]];
      const deposit = (size * (best + CENT) * 11n) / 10n / MICRO;
      const w = await wallet(deposit / MICRO + 10n);
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: true, depositAmount: deposit });
      const c = build.order.contractsMicro!;
      expect(c > size).toBe(true);
      const parts = walk(asks, c);
      expect(build.order.orderCostUsd).toBe(parts.reduce((sum, [p, n]) => sum + (n * p) / MICRO, 0n));
      expect(build.order.estimatedVenueFeeUsd).toBe(documentedFee(parts));
      await send(build.transaction, w);
      await fill(build.order.orderPubkey!);
      const after = (await jup.prediction.getOrderbook({ marketId: m.marketId }))!;
      expect(after.no.map((l) => l.priceCents)).not.toContain(100 - Number(best / CENT));
    });

    it('refuses buys under $5, of unknown or resolved markets, in other mints, and beyond the balance', async () => {
      const w = await wallet(10n);
      const m = await freshMarket();
      const body = { isBuy: true as const, ownerPubkey: key(w), marketId: m.marketId, isYes: true, depositAmount: '5000000' };
      await refused(raw('/orders', { ...body, depositAmount: '4999999' }), BadRequestError, { message: 'Minimum order is $5' });
      await refused(raw('/orders', { ...body, depositMint: JUP }), BadRequestError, { code: 'invalid_mint', param: 'depositMint' });
      await refused(jup.prediction.createPredictionOrder({ ...body, depositAmount: 5_000_000n, marketId: 'POLY-1' }), NotFoundError, { code: 'market_not_found' });
      await refused(jup.prediction.createPredictionOrder({ ...body, depositAmount: 11_000_000n }), BadRequestError, { code: 'insufficient_funds' });
      const closed = await freshMarket();
      await control(sim, '/prediction/resolve', { marketId: closed.marketId, result: 'no' });
      await refused(jup.prediction.createPredictionOrder({ ...body, depositAmount: 5_000_000n, marketId: closed.marketId }), BadRequestError, { code: 'market_closed' });
      expect(await jup.prediction.getMarket({ marketId: closed.marketId })).toMatchObject({ status: 'closed', result: 'no', isTradable: false, resolveAt: expect.any(String), pricing: { buyYesPriceUsd: null, sellYesPriceUsd: null } });
      expect(await usdc(w)).toBe(10_000_000n);
    });
  });

  describe('executing a build', () => {
    it('settles a signed build once: the same bytes get the same answer, and the deposit moves once', async () => {
      const w = await wallet(20n);
      const m = await freshMarket();
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: false, depositAmount: 6_000_000n });
      const signedTransaction = signBase64(build.transaction, w);
      const first = await jup.prediction.executePredictionOrder({ signedTransaction, context: build.execution!.context });
      const again = await jup.prediction.executePredictionOrder({ signedTransaction, context: build.execution!.context });
      expect(first).toMatchObject({ status: 'Success', error: null });
      expect(again).toEqual(first);
      expect((await rpc.status(first.signature)).value?.err).toBeNull();
      expect(await usdc(w)).toBe(14_000_000n);
    });

    it('answers 400 to a transaction it did not build, and to bytes that are not a transaction', async () => {
      const w = await wallet();
      const message = new TransactionMessage({ payerKey: w.publicKey, recentBlockhash: Keypair.generate().publicKey.toBase58(), instructions: [SystemProgram.transfer({ fromPubkey: w.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000 })] }).compileToV0Message();
      const foreign = new VersionedTransaction(message);
      foreign.sign([w]);
      for (const [signedTransaction, code] of [[Buffer.from(foreign.serialize()).toString('base64'), 'transaction_not_found'], [Buffer.from('hello').toString('base64'), 'invalid_transaction']] as const) {
        const err = await jup.prediction.executePredictionOrder({ signedTransaction }).then(() => undefined, (e: unknown) => e);
        expect(err).toBeInstanceOf(PredictionExecuteError);
        expect(err).toMatchObject({ httpStatus: 400, serviceCode: code });
      }
      await refused(raw('/execute', { signedTransaction: '%%%' }), BadRequestError, { code: 'invalid_transaction' });
    });

    it('takes the CLI shape on POST /orders/execute: {signedTransaction} in, {signature} out', async () => {
      const w = await wallet(20n);
      const m = await freshMarket();
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: true, depositAmount: 5_000_000n });
      const res = await fetch(`${sim.url}/prediction/v1/orders/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ signedTransaction: signBase64(build.transaction, w) }) });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { signature: string };
      expect(Object.keys(body)).toEqual(['signature']);
      expect((await rpc.status(body.signature)).value?.err).toBeNull();
      expect((await jup.prediction.getPredictionOrders({ ownerPubkey: key(w) })).data.map((o) => o.pubkey)).toEqual([build.order.orderPubkey]);
    });
  });

  describe("an order's life", () => {
    it('is listed pending while open, reports created then filled, and its account is gone once filled', async () => {
      const w = await wallet(20n);
      const m = await freshMarket();
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: true, depositAmount: 7_000_000n });
      const orderPubkey = build.order.orderPubkey!;
      await refused(jup.prediction.getPredictionOrderStatus({ orderPubkey }), NotFoundError, { message: 'no order history found' });
      const created = await send(build.transaction, w);
      const { data } = await jup.prediction.getPredictionOrders({ ownerPubkey: key(w) });
      expect(data).toMatchObject([{ pubkey: orderPubkey, ownerPubkey: key(w), marketId: m.marketId, position: build.order.positionPubkey, status: 'pending', isBuy: true, isYes: true, filledAt: 0, filledContracts: 0n, settled: false, sizeUsd: 7_000_000n, maxBuyPriceUsd: build.order.maxBuyPriceUsd }]);
      expect(await jup.prediction.getPredictionOrder({ orderPubkey })).toEqual(data[0]);
      expect(await jup.prediction.getPredictionOrderStatus({ orderPubkey })).toMatchObject({ status: 'created', latestEventType: 'order_created', latestSignature: created, history: [{ eventType: 'order_created', signature: created }] });
      await fill(orderPubkey);
      const fillSig = (await ledger(sim)).filter((t) => t.kind === 'prediction-fill' && t.wallet === key(w)).map((t) => t.signature);
      expect(fillSig).toHaveLength(1);
      const status = await jup.prediction.getPredictionOrderStatus({ orderPubkey });
      expect(status).toMatchObject({ status: 'filled', latestEventType: 'order_filled', latestSignature: fillSig[0] });
      expect(status.history.map((h) => [h.eventType, h.status])).toEqual([['order_created', 'created'], ['order_filled', 'filled']]);
      await refused(jup.prediction.getPredictionOrder({ orderPubkey }), BadRequestError, { code: 'order_closed' });
      expect((await jup.prediction.getPredictionOrders({ ownerPubkey: key(w) })).data).toEqual([]);
    });

    it('is closed by its owner with the whole deposit refunded, once, and by nobody else', async () => {
      const w = await wallet(20n);
      const other = await wallet();
      const m = await freshMarket();
      const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: m.marketId, isYes: false, depositAmount: 8_000_000n });
      const orderPubkey = build.order.orderPubkey!;
      await send(build.transaction, w);
      expect(await usdc(w)).toBe(12_000_000n);
      await refused(jup.prediction.closePredictionOrder({ ownerPubkey: key(other), orderPubkey }), BadRequestError, { code: 'owner_mismatch' });
      const close = await jup.prediction.closePredictionOrder({ ownerPubkey: key(w), orderPubkey });
      await send(close.transaction, w);
      expect(await usdc(w)).toBe(20_000_000n);
      expect(await jup.prediction.getPredictionOrderStatus({ orderPubkey })).toMatchObject({ latestEventType: 'order_closed', status: 'failed' });
      await refused(jup.prediction.closePredictionOrder({ ownerPubkey: key(w), orderPubkey }), BadRequestError, { code: 'order_closed' });
    });
  });

  describe('selling', () => {
    it('builds a sell at the best bid with the documented fee, and refuses what the position cannot sell', async () => {
      const w = await wallet();
      const m = await freshMarket(midPriced);
      const p = await holding(w, m, true);
      const bid = m.pricing.sellYesPriceUsd!;
      const half = (p.contractsMicro! / 2n / CENT) * CENT;
      const sell = await jup.prediction.createPredictionOrder({ isBuy: false, ownerPubkey: key(w), positionPubkey: p.pubkey, isYes: true, contractsMicro: half });
      expect(sell.order).toMatchObject({ isBuy: false, isYes: true, maxBuyPriceUsd: null, contractsMicro: half, newContractsMicro: p.contractsMicro! - half, orderCostUsd: (half * bid) / MICRO, estimatedVenueFeeUsd: documentedFee([[bid, half]]) });
      expect(sell.order.payoutUsd).toBe(sell.order.orderCostUsd - sell.order.estimatedVenueFeeUsd);
      expect(sell.order.minSellPriceUsd! <= bid && sell.order.minSellPriceUsd! > 0n).toBe(true);
      const other = await wallet();
      const body = { isBuy: false as const, ownerPubkey: key(w), positionPubkey: p.pubkey, isYes: true };
      await refused(jup.prediction.createPredictionOrder({ ...body, contractsMicro: p.contractsMicro! + CENT }), BadRequestError, { code: 'insufficient_contracts' });
      await refused(jup.prediction.createPredictionOrder({ ...body, ownerPubkey: key(other), contractsMicro: half }), BadRequestError, { code: 'owner_mismatch' });
      await refused(raw('/orders', { ...body, contractsMicro: half.toString(), contractsDecimal: '1' }), BadRequestError, { message: 'Give exactly one of contracts, contractsMicro, contractsDecimal' });
      await refused(raw('/orders', body), BadRequestError, { message: 'Give exactly one of contracts, contractsMicro, contractsDecimal' });
      // contractsDecimal may be a JSON number (CreateOrderRequest: anyOf string, number).
      expect(await raw('/orders', { ...body, contractsDecimal: 1.5 })).toMatchObject({ order: { contractsMicro: '1500000' } });
    });

    it('closes a position by selling all of it: the USDC arrives and the sale comes off the YES bids', async () => {
      const w = await wallet();
      const m = await freshMarket(midPriced);
      const p = await holding(w, m, true);
      const bid = m.pricing.sellYesPriceUsd!;
      const bidSize = (await jup.prediction.getOrderbook({ marketId: m.marketId }))!.yes.at(-1)!.size;
      const close = await jup.prediction.closePredictionPosition({ positionPubkey: p.pubkey, ownerPubkey: key(w) });
      expect(close.order).toMatchObject({ isBuy: false, positionPubkey: p.pubkey, contractsMicro: p.contractsMicro, newContractsMicro: 0n });
      const net = (p.contractsMicro! * bid) / MICRO - documentedFee([[bid, p.contractsMicro!]]);
      expect(close.order.payoutUsd).toBe(net);
      const before = await usdc(w);
      await send(close.transaction, w);
      await fill(close.order.orderPubkey!);
      expect((await usdc(w)) - before).toBe(net);
      expect((await jup.prediction.getPredictionPositions({ ownerPubkey: key(w) })).data).toEqual([]);
      expect(await jup.prediction.getPredictionPosition({ positionPubkey: p.pubkey })).toMatchObject({ contractsMicro: 0n, openOrders: 0 });
      const book = (await jup.prediction.getOrderbook({ marketId: m.marketId }))!;
      // Sizes are contracts, fractional once a fill took part of a level.
      expect(book.yes.at(-1)!.priceCents).toBe(Number(bid / CENT));
      expect(Math.round(book.yes.at(-1)!.size * 1e6)).toBe(Math.round(bidSize * 1e6) - Number(p.contractsMicro));
    });
  });

  describe('settlement', () => {
    it('pays a winner exactly $1 a contract once, refuses the loser, and history and ledger tell the story', async () => {
      const w = await wallet();
      const m = await freshMarket();
      const yes = await holding(w, m, true, 6_000_000n);
      const no = await holding(w, m, false, 5_000_000n);
      const all = await jup.prediction.getPredictionPositions({ ownerPubkey: key(w) });
      expect(all.data.map((p) => p.pubkey).sort()).toEqual([yes.pubkey, no.pubkey].sort());
      expect((await jup.prediction.getPredictionPositions({ ownerPubkey: key(w), marketId: 'POLY-1' })).data).toEqual([]);
      // An order left open in another market, closed by its owner.
      const other = await freshMarket();
      const open = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: key(w), marketId: other.marketId, isYes: true, depositAmount: 5_000_000n });
      await send(open.transaction, w);
      await send((await jup.prediction.closePredictionOrder({ ownerPubkey: key(w), orderPubkey: open.order.orderPubkey! })).transaction, w);
      await expect(jup.prediction.claimPredictionPosition({ positionPubkey: yes.pubkey, ownerPubkey: key(w) })).rejects.toBeInstanceOf(MarketNotSettledError);
      await control(sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });
      const settled = await jup.prediction.getPredictionPosition({ positionPubkey: yes.pubkey });
      expect(settled).toMatchObject({ settlementDate: await nowSec(), claimableAt: await nowSec(), valueUsd: null, markPriceUsd: null, sellPriceUsd: null, pnlUsd: null, pnlUsdPercent: null, pnlUsdAfterFees: null, claimable: true, marketMetadata: { status: 'closed', result: 'yes' } });
      expect((await jup.prediction.getPredictionPositions({ ownerPubkey: key(w) })).data.map((p) => p.pubkey)).toEqual([yes.pubkey]);
      await refused(jup.prediction.claimPredictionPosition({ positionPubkey: no.pubkey, ownerPubkey: key(w) }), BadRequestError, { code: 'position_lost' });
      // The market names the result account the keeper wrote on chain when it settled it.
      const { marketResultPubkey } = await jup.prediction.getMarket({ marketId: m.marketId });
      const [account] = (await rpc.accountsAt([new PublicKey(marketResultPubkey!)])).accounts;
      expect(account?.owner.equals(PREDICTION_PROGRAM)).toBe(true);
      expect(decodeMarketResultAccount(account!.data)).toMatchObject({ marketId: m.marketId, outcome: 'yes', claimsEnabled: true });
      const claim = await jup.prediction.claimPredictionPosition({ positionPubkey: yes.pubkey, ownerPubkey: key(w) });
      expect(claim.position).toMatchObject({ positionPubkey: yes.pubkey, isYes: true, contractsMicro: yes.contractsMicro, payoutAmountUsd: yes.contractsMicro });
      const before = await usdc(w);
      await send(claim.transaction, w);
      expect((await usdc(w)) - before).toBe(yes.contractsMicro);
      await refused(jup.prediction.claimPredictionPosition({ positionPubkey: yes.pubkey, ownerPubkey: key(w) }), AlreadyClaimedError, { code: 'already_claimed' });
      expect(await jup.prediction.getPredictionPosition({ positionPubkey: yes.pubkey })).toMatchObject({ claimed: true, claimedUsd: yes.contractsMicro, claimable: false });
      const history = (await jup.prediction.getPredictionHistory({ ownerPubkey: key(w) })).data;
      expect(history.map((h) => [h.eventType, h.positionPubkey])).toEqual([
        ['payout_claimed', yes.pubkey],
        ['position_lost', no.pubkey],
        ['order_closed', open.order.positionPubkey],
        ['order_created', open.order.positionPubkey],
        ['order_filled', no.pubkey],
        ['order_created', no.pubkey],
        ['order_filled', yes.pubkey],
        ['order_created', yes.pubkey],
      ]);
      expect(history.map((h) => h.id)).toEqual([...history.map((h) => h.id)].sort((a, b) => b - a));
      expect(history[0]).toMatchObject({ payoutAmountUsd: yes.contractsMicro, transferAmountToken: yes.contractsMicro, contractsSettledMicro: yes.contractsMicro });
      expect(history[2]).toMatchObject({ orderPubkey: open.order.orderPubkey, transferAmountToken: 5_000_000n });
      expect((await jup.prediction.getPredictionHistory({ positionPubkey: yes.pubkey })).data.map((h) => h.eventType)).toEqual(['payout_claimed', 'order_filled', 'order_created']);
      expect((await jup.prediction.getPredictionHistory({ id: history[1]!.id })).data).toEqual([history[1]]);
      const kinds = (await ledger(sim)).filter((t) => t.kind.startsWith('prediction-') && history.some((h) => h.signature === t.signature));
      expect(kinds.every((t) => t.wallet === key(w))).toBe(true);
      expect(kinds.map((t) => t.kind).sort()).toEqual(['prediction-claim', 'prediction-close', 'prediction-close', 'prediction-fill', 'prediction-fill', 'prediction-order', 'prediction-order', 'prediction-order']);
    });

    it('closes everything at once: a sell for an open position, a claim for a won settled one', async () => {
      const w = await wallet();
      const [openMarket, wonMarket] = [await freshMarket(), await freshMarket()];
      const open = await holding(w, openMarket, true);
      const won = await holding(w, wonMarket, false);
      await control(sim, '/prediction/resolve', { marketId: wonMarket.marketId, result: 'no' });
      const { data } = await jup.prediction.closeAllPredictionPositions({ ownerPubkey: key(w), minSellPriceSlippageBps: 300 });
      expect(data.map((d) => d.kind).sort()).toEqual(['claim', 'sell']);
      const sell = data.find((d): d is Extract<CloseAllItem, { kind: 'sell' }> => d.kind === 'sell')!;
      const claim = data.find((d): d is Extract<CloseAllItem, { kind: 'claim' }> => d.kind === 'claim')!;
      expect(sell.order).toMatchObject({ isBuy: false, positionPubkey: open.pubkey, contractsMicro: open.contractsMicro, newContractsMicro: 0n });
      expect(claim.position).toMatchObject({ positionPubkey: won.pubkey, isYes: false, payoutAmountUsd: won.contractsMicro });
      // The sell takes the slippage asked for: a floor 3% under the best bid (to the cent), and says so.
      const bid = openMarket.pricing.sellYesPriceUsd!;
      expect(sell.order.minSellPriceUsd).toBe(((bid * 9_700n) / 10_000n / CENT) * CENT);
      expect(sell.order.slippageBps, 'slippageBps of a sell built with minSellPriceSlippageBps 300').toBeGreaterThanOrEqual(300);
    });
  });
});
