import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { LimitError, SchemaError } from '../../src/jupiter/errors.js';
import { getRecurringOrders } from '../../src/jupiter/recurring/index.js';

const USER = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
// The spec example's orderKey holds an "I", which base58 never does; a real order account is used instead.
const ORDER = '4DWzP4TdTsuwvYMaMWrRqzya4UTFKFoVjfUWNWh8zhzd';

const trade = {
  orderKey: ORDER,
  keeper: 'J1TnP8zvVxbtF5KFp5xRmWuvG9McnhzmBd9XGfCyuxFP',
  inputMint: USDC,
  outputMint: SOL,
  inputAmount: '10.0',
  outputAmount: '0.058',
  rawInputAmount: '10000000',
  rawOutputAmount: '58000000',
  feeMint: SOL,
  feeAmount: '0.000058',
  rawFeeAmount: '58000',
  txId: '3PDo3pMJLqvAfNXwYjY7BSP57ZNQ5DgYDeK6xYszUVMneHzAZBQzsBSskym8uveMoLC4G8N8DjPaLBY726ZsBZvT',
  confirmedAt: '2025-03-15T11:30:00.000Z',
  action: 'Fill',
  productMeta: null,
};

/** A running time order as the 2025 docs show it: `cycleFrequency` a string, `closeTx` empty. */
const timeOrder = {
  userPubkey: USER,
  orderKey: ORDER,
  inputMint: USDC,
  outputMint: SOL,
  inDeposited: '100.0',
  inWithdrawn: '0.0',
  rawInDeposited: '100000000',
  rawInWithdrawn: '0',
  cycleFrequency: '60',
  outWithdrawn: '0.0',
  inAmountPerCycle: '10.0',
  minOutAmount: '0',
  maxOutAmount: '0',
  inUsed: '10.0',
  outReceived: '0.058',
  rawOutWithdrawn: '0',
  rawInAmountPerCycle: '10000000',
  rawMinOutAmount: '0',
  rawMaxOutAmount: '0',
  rawInUsed: '10000000',
  rawOutReceived: '58000000',
  openTx: '466G3XxE4NzxCj136SXe4BSjXzCVBQdvn6RsHMNGN2DGCS9PSceJSACqEWCxx22hsCXcEskvEFdm44wsHCF1auvL',
  closeTx: '',
  userClosed: false,
  createdAt: '2025-03-15T10:30:00.000Z',
  updatedAt: '2025-03-15T11:30:00.000Z',
  trades: [trade],
};

const priceOrder = {
  userPubkey: USER,
  orderKey: '7nE9GJoYHNmtaQvTQpota3KV2oz4pQ2dA6nvYK8EUJHV',
  inputMint: USDC,
  outputMint: SOL,
  inDeposited: '200.0',
  inWithdrawn: '0',
  inLeft: '150.0',
  inUsed: '50.0',
  outReceived: '0.3',
  outWithdrawn: '0',
  orderInterval: '86400',
  incrementalUsdValue: '50.0',
  supposedUsdValue: '50.0',
  estimatedUsdcValueSpent: '50.0',
  rawInDeposited: '200000000',
  rawInWithdrawn: '0',
  rawInLeft: '150000000',
  rawInUsed: '50000000',
  rawOutReceived: '300000000',
  rawOutWithdrawn: '0',
  rawIncrementalUsdValue: '50000000',
  rawSupposedUsdValue: '50000000',
  rawEstimatedUsdcValueSpent: '50000000',
  status: 'Open',
  closedBy: '',
  openTx: '466G3XxE4NzxCj136SXe4BSjXzCVBQdvn6RsHMNGN2DGCS9PSceJSACqEWCxx22hsCXcEskvEFdm44wsHCF1auvL',
  closeTx: '',
  createdAt: '2025-03-15T10:30:00.000Z',
  startAt: '2025-03-15T10:30:00.000Z',
  updatedAt: '2025-03-15T11:30:00.000Z',
  trades: [],
};

describe('listing recurring orders', () => {
  let server: FixtureServer;
  beforeAll(async () => {
    server = await startFixtureServer();
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });
  const t = () => testTransport(server.url);

  describe('when asking for time orders', () => {
    it('sends the query and normalises the `time` list with bigint raw amounts', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { user: USER, orderStatus: 'active', time: [timeOrder], totalPages: 2, page: 1 } });
      const page = await getRecurringOrders(t(), { user: USER, orderStatus: 'active', mint: SOL });
      const [req] = server.requestsTo('/recurring/v1/getRecurringOrders', 'GET');
      expect(Object.fromEntries(req!.query)).toEqual({ user: USER, orderStatus: 'active', recurringType: 'time', mint: SOL, includeFailedTx: 'false' });
      expect(page).toMatchObject({ user: USER, orderStatus: 'active', totalPages: 2, page: 1, hasMore: true });
      expect(page.orders).toHaveLength(1);
      const order = page.orders[0]!;
      expect(order.recurringType).toBe('time');
      if (order.recurringType !== 'time') throw new Error('expected a time order');
      expect(order).toMatchObject({
        cycleFrequency: 60,
        closeTx: null,
        inDeposited: '100.0',
        rawInDeposited: 100_000_000n,
        rawInAmountPerCycle: 10_000_000n,
        rawOutReceived: 58_000_000n,
        userClosed: false,
      });
      expect(order.trades[0]).toMatchObject({ action: 'Fill', rawOutputAmount: 58_000_000n, rawFeeAmount: 58_000n });
    });

    it('accepts the spec example shape: a numeric cycleFrequency, null closeTx, and empty price/all lists beside', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', {
        body: { user: USER, orderStatus: 'active', time: [{ ...timeOrder, cycleFrequency: 60, closeTx: null }], price: [], all: [], totalPages: 1, page: 1 },
      });
      const page = await getRecurringOrders(t(), { user: USER, orderStatus: 'active', recurringType: 'time', page: 1, includeFailedTx: true });
      expect(page.hasMore).toBe(false);
      expect(page.orders.map((o) => o.orderKey)).toEqual([ORDER]);
      expect(page.orders[0]).toMatchObject({ cycleFrequency: 60, closeTx: null });
      expect(server.requests[0]!.query.get('page')).toBe('1');
      expect(server.requests[0]!.query.get('includeFailedTx')).toBe('true');
    });
  });

  describe('when asking for all orders', () => {
    it('keeps the type each item carries', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', {
        body: { user: USER, orderStatus: 'history', all: [{ ...timeOrder, recurringType: 'time' }, { ...priceOrder, recurringType: 'price' }], totalPages: 1, page: 1 },
      });
      const page = await getRecurringOrders(t(), { user: USER, orderStatus: 'history', recurringType: 'all' });
      expect(page.orders.map((o) => o.recurringType)).toEqual(['time', 'price']);
      expect(page.orders[1]).toMatchObject({ orderInterval: 86_400, rawInLeft: 150_000_000n, rawIncrementalUsdValue: 50_000_000n });
    });

    it('falls back to the time and price lists when there is no `all` key', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { time: [timeOrder], price: [priceOrder], totalPages: 1, page: 1 } });
      const page = await getRecurringOrders(t(), { user: USER, orderStatus: 'active', recurringType: 'all' });
      expect(page.orders.map((o) => o.recurringType)).toEqual(['time', 'price']);
    });
  });

  describe('when the service sends price-order history as it did in 2025', () => {
    // Real rows (DOCS@2025-10 get-recurring-orders): deposits with empty keeper, outputMint and feeMint, and no
    // inLeft or estimatedUsdcValueSpent on the order.
    const deposit = { ...trade, keeper: '', outputMint: '', inputAmount: '1', outputAmount: '0', rawInputAmount: '1000000', rawOutputAmount: '0', feeMint: '', feeAmount: '0', rawFeeAmount: '0', action: 'Deposit' };
    const { inLeft: _l, rawInLeft: _r, estimatedUsdcValueSpent: _e, rawEstimatedUsdcValueSpent: _re, ...closed } = priceOrder;
    const real = { ...closed, status: 'Close', closedBy: USER, closeTx: '4x6vgTp1tLtVo7QEXsx2LmpMsotr2RJso2DztPfREm5R7zqSUecHNmGBuf88KTvz2PhDJhvBYtmvvymypkhdh2Ej', trades: [deposit, { ...trade, productMeta: { new_actual_usdc_value: '9987143', value: '10000000' } }] };

    it('reads the page: deposit rows keep their empty mints, and the missing fields stay undefined', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { user: USER, orderStatus: 'history', price: [real], totalPages: 1, page: 1 } });
      const page = await getRecurringOrders(t(), { user: USER, orderStatus: 'history', recurringType: 'price' });
      const order = page.orders[0]!;
      if (order.recurringType !== 'price') throw new Error('expected a price order');
      expect(order.inLeft).toBeUndefined();
      expect(order.trades.map((x) => [x.action, x.keeper, x.outputMint, x.feeMint, x.rawInputAmount])).toEqual([
        ['Deposit', '', '', '', 1_000_000n],
        ['Fill', trade.keeper, SOL, SOL, 10_000_000n],
      ]);
    });
  });

  describe('when the body is broken', () => {
    it('names the missing list', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { user: USER, orderStatus: 'active', all: [], totalPages: 1, page: 1 } });
      const err = await getRecurringOrders(t(), { user: USER, orderStatus: 'active', recurringType: 'price' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('price');
    });

    it('names a non-numeric raw amount', async () => {
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { time: [{ ...timeOrder, rawInUsed: 'ten' }], totalPages: 1, page: 1 } });
      const err = await getRecurringOrders(t(), { user: USER, orderStatus: 'active' }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('time.0.rawInUsed');
    });
  });

  describe('when the query is wrong', () => {
    it('refuses a bad mint address without sending', async () => {
      const err = await getRecurringOrders(t(), { user: USER, orderStatus: 'active', mint: 'SOL' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('recurring.mint.address');
      expect(server.requests).toHaveLength(0);
    });
  });
});
