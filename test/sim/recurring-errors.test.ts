import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import type { JupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { fundedWallet, JUP, signBase64, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { openRecurringOrder, recurringClient } from './recurringKit.js';

const PYUSD = '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo';

// What the Recurring API refuses, and the shapes of its listing, over HTTP. The client checks the documented
// minimums itself before sending; to reach the venue's own checks, some requests give the client a price that
// passes them, or go out as raw HTTP where the client would never send them.
describe('the recurring API of the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = recurringClient(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sim.url}/recurring/v1/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const get = async (query: string) => {
    const res = await fetch(`${sim.url}/recurring/v1/getRecurringOrders?${query}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  /** USDC's value at the venue's price, as the service words it (two decimals, rounded down). */
  const cents = (usdc: number) => (Math.floor(usdc * sim.ctx.state.venue.prices.usd(USDC)! * 100) / 100).toFixed(2);
  const refusal = async (p: Promise<unknown>) => {
    const err = await p.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadRequestError);
    return (err as BadRequestError).body;
  };

  describe('when an order is refused', () => {
    const user = Keypair.generate().publicKey.toBase58();
    const order = (inputMint: string, outputMint: string, inAmount: bigint, numberOfOrders = 2) =>
      jup.recurring.createOrder({ user, inputMint, outputMint, params: { inAmount, numberOfOrders, interval: 86_400 }, inputUsdPrice: 1_000_000, inputDecimals: 6 });

    it('answers the documented minimum of 100 USD in the service error shape', async () => {
      expect(await refusal(order(USDC, SOL, 5_000_000n))).toEqual({ code: 400, error: `Order is valued at ${cents(5)} USDC, minimum is 100.00 USDC`, status: 'Bad Request' });
    });

    it('refuses cycles under 50 USD each', async () => {
      expect(await refusal(order(USDC, SOL, 120_000_000n, 3))).toMatchObject({ error: `Each order is valued at ${cents(40)} USDC, minimum is 50.00 USDC` });
    });

    it('refuses Token-2022 mints on either side', async () => {
      expect(await refusal(order(PYUSD, SOL, 500_000_000n))).toMatchObject({ code: 400, error: 'Token-2022 tokens are not supported' });
      expect(await refusal(order(USDC, PYUSD, 500_000_000n))).toMatchObject({ error: 'Token-2022 tokens are not supported' });
    });

    it('refuses what the client would never send: one cycle, an interval under the program minimum, deprecated price params, bad JSON', async () => {
      const base = { user, inputMint: USDC, outputMint: SOL };
      expect((await post('createOrder', { ...base, params: { time: { inAmount: 500_000_000, numberOfOrders: 1, interval: 86_400 } } })).body).toMatchObject({ error: 'numberOfOrders must be at least 2' });
      expect((await post('createOrder', { ...base, params: { time: { inAmount: 500_000_000, numberOfOrders: 2, interval: 10 } } })).body).toMatchObject({ error: 'interval must be at least 30 seconds' });
      const deprecated = await post('createOrder', { ...base, params: { price: { depositAmount: 110_000_000, incrementUsdcValue: 10_000_000, interval: 86_400 } } });
      expect(deprecated).toEqual({ status: 400, body: { code: 400, error: expect.stringMatching(/^Price-based recurring orders are deprecated/), status: 'Bad Request' } });
      const broken = await post('createOrder', '{"user":');
      expect(broken.status).toBe(400);
      expect(broken.body).toMatchObject({ code: 400, status: 'Bad Request' });
      expect((await post('createOrder', { ...base, params: { time: { inAmount: '500000000', numberOfOrders: 2, interval: 86_400 } } })).status).toBe(400);
    });

    it('answers the deprecated price-based endpoints as deprecated', async () => {
      const order = Keypair.generate().publicKey.toBase58();
      expect(await refusal(jup.recurring.priceDeposit({ user, order, amount: 1_000_000n }))).toMatchObject({ error: expect.stringMatching(/deprecated/) });
      expect(await refusal(jup.recurring.priceWithdraw({ user, order, inputOrOutput: 'In' }))).toMatchObject({ error: expect.stringMatching(/deprecated/) });
    });
  });

  describe('when a cancel or execute does not match an order', () => {
    it('refuses an unknown order, a price-type cancel of a time order, and another user', async () => {
      const owner = await fundedWallet(sim, 100_000_000n, [[USDC, 150_000_000n]]);
      const { order } = await openRecurringOrder(sim, jup, owner, { inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, interval: 86_400 });
      const notAnOrder = { code: 400, error: 'Failed to deserialize account data: failed to fill whole buffer', status: 'Bad Request' };
      expect(await refusal(jup.recurring.cancelOrder({ order: Keypair.generate().publicKey.toBase58(), user: owner.publicKey.toBase58() }))).toEqual(notAnOrder);
      expect(await refusal(jup.recurring.cancelOrder({ order, user: owner.publicKey.toBase58(), recurringType: 'price' }))).toEqual(notAnOrder);
      expect(await refusal(jup.recurring.cancelOrder({ order, user: Keypair.generate().publicKey.toBase58() }))).toMatchObject({ code: 400 });
    });

    it('refuses an unknown request id and a transaction other than the one handed out', async () => {
      const user = await fundedWallet(sim, 100_000_000n, [[USDC, 300_000_000n]]);
      const a = await jup.recurring.createOrder({ user: user.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, params: { inAmount: 150_000_000n, numberOfOrders: 2, interval: 86_400 }, inputUsdPrice: 1, inputDecimals: 6 });
      const b = await jup.recurring.createOrder({ user: user.publicKey.toBase58(), inputMint: USDC, outputMint: JUP, params: { inAmount: 150_000_000n, numberOfOrders: 2, interval: 86_400 }, inputUsdPrice: 1, inputDecimals: 6 });
      expect(await refusal(jup.recurring.execute({ requestId: 'not-a-request', signedTransaction: signBase64(a.transaction, user) }))).toMatchObject({ code: 400 });
      expect(await refusal(jup.recurring.execute({ requestId: a.requestId, signedTransaction: signBase64(b.transaction, user) }))).toMatchObject({ code: 400 });
    });
  });

  describe('when listing orders', () => {
    let user: Keypair;
    let orders: string[];
    beforeAll(async () => {
      user = await fundedWallet(sim, 100_000_000n, [[USDC, 11n * 110_000_000n]]);
      orders = [];
      for (let i = 0; i < 11; i += 1) {
        orders.push((await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: i === 0 ? JUP : SOL, inAmount: 110_000_000n, numberOfOrders: 2, interval: 86_400 })).order);
      }
    });
    const query = (extra: string) => `user=${user.publicKey.toBase58()}&orderStatus=active&includeFailedTx=false&${extra}`;

    it('answers 400 when recurringType or includeFailedTx is missing', async () => {
      const noType = await get(`user=${user.publicKey.toBase58()}&orderStatus=active&includeFailedTx=false`);
      expect(noType).toEqual({ status: 400, body: { code: 400, error: 'Failed to deserialize query string: missing field `recurringType`', status: 'Bad Request' } });
      const noFailed = await get(`user=${user.publicKey.toBase58()}&orderStatus=active&recurringType=time`);
      expect(noFailed.body).toMatchObject({ error: 'Failed to deserialize query string: missing field `includeFailedTx`' });
      expect((await get(query('recurringType=weekly'))).status).toBe(400);
    });

    it('keys the list by the requested type, 10 a page, with strings for amounts and cycleFrequency', async () => {
      const first = await get(query('recurringType=time'));
      expect(first.status).toBe(200);
      expect(Object.keys(first.body).sort()).toEqual(['orderStatus', 'page', 'time', 'totalPages', 'user']);
      expect(first.body).toMatchObject({ user: user.publicKey.toBase58(), orderStatus: 'active', totalPages: 2, page: 1 });
      const item = (first.body.time as Array<Record<string, unknown>>)[0]!;
      expect(item).toMatchObject({ cycleFrequency: '86400', closeTx: '', userClosed: false, inDeposited: '110', rawInDeposited: '110000000', inAmountPerCycle: '55', rawMinOutAmount: '0', maxOutAmount: '0' });
      expect(item.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
      const second = await get(query('recurringType=time&page=2'));
      expect((second.body.time as unknown[]).length).toBe(1);
      const all = await get(query('recurringType=all'));
      expect((all.body.all as Array<Record<string, unknown>>).every((o) => o.recurringType === 'time')).toBe(true);
      expect((await get(query('recurringType=price'))).body).toMatchObject({ price: [], totalPages: 1 });
      expect((await get(query(`recurringType=time&mint=${JUP}`))).body.time).toEqual([expect.objectContaining({ orderKey: orders[0], outputMint: JUP })]);
    });

    it('reads back through the client, every page, in one tagged list', async () => {
      const p1 = await jup.recurring.getOrders({ user: user.publicKey.toBase58(), orderStatus: 'active', recurringType: 'all' });
      const p2 = await jup.recurring.getOrders({ user: user.publicKey.toBase58(), orderStatus: 'active', recurringType: 'all', page: 2 });
      expect(p1.hasMore).toBe(true);
      expect(p2.hasMore).toBe(false);
      expect([...p1.orders, ...p2.orders].map((o) => o.orderKey).sort()).toEqual([...orders].sort());
      expect(await jup.recurring.getOrders({ user: user.publicKey.toBase58(), orderStatus: 'history', recurringType: 'time' })).toMatchObject({ orders: [], hasMore: false });
    });
  });
});
