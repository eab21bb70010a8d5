import { ServerError } from '../../src/jupiter/errors.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, ExecuteError, LimitError, SchemaError } from '../../src/jupiter/errors.js';
import {
  TOKEN_2022_PROGRAM_ID,
  bindRecurring,
  cancelRecurringOrder,
  createRecurringOrder,
  executeRecurringOrder,
  priceDeposit,
  priceWithdraw,
  type CreateRecurringOrderParams,
} from '../../src/jupiter/recurring/index.js';

const USER = 'jdocuPgEAjMfihABsPgKEvYtsmMzjUHeq9LX4Hvs7f3';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
const ORDER = '4DWzP4TdTsuwvYMaMWrRqzya4UTFKFoVjfUWNWh8zhzd';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAkOCWPK8t5w2W1nIsonBw2T/TCNCKkrgBQia9/YVlLEcjM9zTXA2aZIqK0k40U/eCZ0Zu1176lxIuHLsY6UyQjTdash6wigo20Auc3RVYRWME9Fjnpbdg==';
const SIG = '5UfDuX7hXbTiKFJqS1MzGsNpbXTzMKJe2bZP1zrd7DnFBSChKvF2FVDNAuqz7SJpaHXTB9E5DP6tMjfZmVDMJRs';
const REQUEST_ID = 'a1b2c3d4-e5f6-7890-abcd-ef1234567890';

/** 104 USDC over 2 daily cycles: just above both USD minimums. */
const dca = (over: Partial<CreateRecurringOrderParams['params']> = {}, top: Partial<CreateRecurringOrderParams> = {}): CreateRecurringOrderParams => ({
  user: USER,
  inputMint: USDC,
  outputMint: SOL,
  params: { inAmount: 104_000_000n, numberOfOrders: 2, interval: 86_400, ...over },
  inputUsdPrice: 1,
  inputDecimals: 6,
  ...top,
});

describe('the Recurring V1 client', () => {
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

  describe('when creating a time-based order', () => {
    it('sends the time params as JSON integers and returns the unsigned transaction', async () => {
      server.on('POST', '/recurring/v1/createOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      const created = await createRecurringOrder(t(), dca({ minPrice: 100, maxPrice: 300, startAt: 1_767_225_600 }));
      expect(created).toEqual({ requestId: REQUEST_ID, transaction: TX });
      const [req] = server.requestsTo('/recurring/v1/createOrder', 'POST');
      expect(req!.body).toEqual({
        user: USER,
        inputMint: USDC,
        outputMint: SOL,
        params: { time: { inAmount: 104000000, numberOfOrders: 2, interval: 86400, minPrice: 100, maxPrice: 300, startAt: 1767225600 } },
      });
    });

    it('sends null for absent price bounds and start time (start now)', async () => {
      server.on('POST', '/recurring/v1/createOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      await createRecurringOrder(t(), dca());
      const body = server.requestsTo('/recurring/v1/createOrder')[0]!.body as { params: { time: Record<string, unknown> } };
      expect(body.params.time).toMatchObject({ minPrice: null, maxPrice: null, startAt: null });
    });

    it('values a non-USD input with its price and decimals (1 SOL at 150 USD, 2 cycles)', async () => {
      server.on('POST', '/recurring/v1/createOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      await createRecurringOrder(t(), dca({ inAmount: 1_000_000_000n }, { inputMint: SOL, outputMint: USDC, inputUsdPrice: 150, inputDecimals: 9 }));
      expect(server.requestsTo('/recurring/v1/createOrder')).toHaveLength(1);
    });

    it.each([
      ['recurring.numberOfOrders.min', dca({ numberOfOrders: 1 })],
      ['recurring.numberOfOrders.min', dca({ numberOfOrders: 2.5 })],
      ['recurring.total.minUsd', dca({ inAmount: 99_990_000n })],
      ['recurring.perOrder.minUsd', dca({ inAmount: 150_000_000n, numberOfOrders: 4 })],
      ['recurring.total.minUsd', dca({ inAmount: 1_000_000_000n }, { inputMint: SOL, outputMint: USDC, inputUsdPrice: 90, inputDecimals: 9 })],
      ['recurring.token2022', dca({}, { inputTokenProgram: TOKEN_2022_PROGRAM_ID })],
      ['recurring.token2022', dca({}, { outputTokenProgram: TOKEN_2022_PROGRAM_ID })],
      ['recurring.interval.min', dca({ interval: 0 })],
      ['recurring.interval.min', dca({ interval: 1.5 })],
      ['recurring.inAmount.positive', dca({ inAmount: 0n })],
      ['recurring.inAmount.safeInteger', dca({ inAmount: 2n ** 53n })],
      ['recurring.mints.distinct', dca({}, { outputMint: USDC })],
      ['recurring.user.address', dca({}, { user: 'not-a-wallet' })],
      ['recurring.inputUsdPrice.positive', dca({}, { inputUsdPrice: Number.NaN })],
      ['recurring.priceRange.order', dca({ minPrice: 300, maxPrice: 100 })],
      ['recurring.startAt.seconds', dca({ startAt: 1_767_225_600_000 })],
    ])('refuses %s before sending anything', async (rule, params) => {
      const err = await createRecurringOrder(t(), params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect((err as LimitError).endpoint).toBe('recurring.createOrder');
      expect(server.requests).toHaveLength(0);
    });

    it('reports the service minimum message as a bad request', async () => {
      server.on('POST', '/recurring/v1/createOrder', {
        status: 400,
        body: { code: 400, error: 'Order is valued at 2.99 USDC, minimum is 100.00 USDC', status: 'Bad Request' },
      });
      const err = await createRecurringOrder(t(), dca()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('minimum is 100.00 USDC');
    });

    it('rejects a body without a transaction', async () => {
      server.on('POST', '/recurring/v1/createOrder', { body: { requestId: REQUEST_ID } });
      const err = await createRecurringOrder(t(), dca()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['transaction']);
    });
  });

  describe('when executing a signed transaction', () => {
    it('returns the signature and the order account', async () => {
      server.on('POST', '/recurring/v1/execute', { body: { signature: SIG, status: 'Success', order: ORDER, error: null } });
      const result = await executeRecurringOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX });
      expect(result).toEqual({ signature: SIG, status: 'Success', order: ORDER, error: null });
      expect(server.requestsTo('/recurring/v1/execute', 'POST')[0]!.body).toEqual({ requestId: REQUEST_ID, signedTransaction: TX });
    });

    it('turns a Failed status into ExecuteError -1001 with the service text and the signature', async () => {
      server.on('POST', '/recurring/v1/execute', {
        body: { signature: SIG, status: 'Failed', order: null, error: 'Insufficient funds for the operation requested.' },
      });
      const err = await executeRecurringOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-1001);
      expect((err as ExecuteError).code).toBe('JUP_EXECUTE_-1001');
      expect((err as ExecuteError).signature).toBe(SIG);
      expect((err as ExecuteError).details.serviceError).toBe('Insufficient funds for the operation requested.');
    });

    it('reports an HTTP 500 body with an HTTP-style code as a ServerError and sends it only once', async () => {
      server.on('POST', '/recurring/v1/execute', { status: 500, body: { code: 500, error: 'failed to send transaction', status: 'Internal Server Error' } });
      const err = await executeRecurringOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect((err as ServerError).message).toContain('failed to send transaction');
      expect(server.requestsTo('/recurring/v1/execute')).toHaveLength(1);
    });

    it('refuses an empty signed transaction before sending', async () => {
      const err = await executeRecurringOrder(t(), { requestId: REQUEST_ID, signedTransaction: '' }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('recurring.signedTransaction.base64');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when cancelling an order', () => {
    it('sends order, user and the time type by default', async () => {
      server.on('POST', '/recurring/v1/cancelOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      await expect(cancelRecurringOrder(t(), { order: ORDER, user: USER })).resolves.toEqual({ requestId: REQUEST_ID, transaction: TX });
      expect(server.requestsTo('/recurring/v1/cancelOrder', 'POST')[0]!.body).toEqual({ order: ORDER, user: USER, recurringType: 'time' });
    });

    it('reports an unknown order account as a bad request', async () => {
      server.on('POST', '/recurring/v1/cancelOrder', {
        status: 400,
        body: { code: 400, error: 'Failed to deserialize account data: failed to fill whole buffer', status: 'Bad Request' },
      });
      const err = await cancelRecurringOrder(t(), { order: ORDER, user: USER, recurringType: 'price' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(server.requestsTo('/recurring/v1/cancelOrder')[0]!.body).toMatchObject({ recurringType: 'price' });
    });
  });

  describe('when using the deprecated price-based endpoints', () => {
    it('deposits an integer amount', async () => {
      server.on('POST', '/recurring/v1/priceDeposit', { body: { requestId: REQUEST_ID, transaction: TX } });
      await expect(priceDeposit(t(), { user: USER, order: ORDER, amount: 5_000_000n })).resolves.toEqual({ requestId: REQUEST_ID, transaction: TX });
      expect(server.requestsTo('/recurring/v1/priceDeposit', 'POST')[0]!.body).toEqual({ user: USER, order: ORDER, amount: 5000000 });
    });

    it('refuses a zero deposit before sending', async () => {
      const err = await priceDeposit(t(), { user: USER, order: ORDER, amount: 0n }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('recurring.amount.positive');
      expect(server.requests).toHaveLength(0);
    });

    it('withdraws a string amount, or everything when the amount is left out', async () => {
      server.on('POST', '/recurring/v1/priceWithdraw', { body: { requestId: REQUEST_ID, transaction: TX } });
      await priceWithdraw(t(), { user: USER, order: ORDER, inputOrOutput: 'Out', amount: 18_446_744_073_709_551_615n });
      await priceWithdraw(t(), { user: USER, order: ORDER, inputOrOutput: 'In' });
      const [a, b] = server.requestsTo('/recurring/v1/priceWithdraw', 'POST');
      expect(a!.body).toEqual({ user: USER, order: ORDER, inputOrOutput: 'Out', amount: '18446744073709551615' });
      expect(b!.body).toEqual({ user: USER, order: ORDER, inputOrOutput: 'In' });
    });
  });

  describe('when bound to a transport', () => {
    it('exposes every endpoint without the transport argument', async () => {
      server.on('POST', '/recurring/v1/cancelOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      const api = bindRecurring(t());
      await expect(api.cancelOrder({ order: ORDER, user: USER })).resolves.toMatchObject({ requestId: REQUEST_ID });
      expect(Object.keys(api).sort()).toEqual(['cancelOrder', 'createOrder', 'execute', 'getOrders', 'priceDeposit', 'priceWithdraw']);
    });
  });
});
