import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, ExecuteError, LimitError, SchemaError, ServerError } from '../../src/jupiter/errors.js';
import {
  bindTrigger,
  cancelTriggerOrder,
  cancelTriggerOrders,
  createTriggerOrder,
  executeTriggerOrder,
  type CreateTriggerOrderParams,
} from '../../src/jupiter/trigger/index.js';

const MAKER = 'jdocuPgEAjMfihABsPgKEvYtsmMzjUHeq9LX4Hvs7f3';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const SOL = 'So11111111111111111111111111111111111111112';
const ORDER = 'CFG9Bmppz7eZbna96UizACJPYT3UgVgps3KkMNNo6P4k';
const ORDER_2 = '9jwzPKHxcrSozdrTYzPnTqy7psRvNGxaYUAiiyxwZKjj';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAABAAkOCWPK8t5w2W1nIsonBw2T/TCNCKkrgBQia9/YVlLEcjM9zTXA2aZIqK0k40U/eCZ0Zu1176lxIuHLsY6UyQjTdash6wigo20Auc3RVYRWME9Fjnpbdg==';
const SIG = '5UfDuX7hXbTiKFJqS1MzGsNpbXTzMKJe2bZP1zrd7DnFBSChKvF2FVDNAuqz7SJpaHXTB9E5DP6tMjfZmVDMJRs';
const REQUEST_ID = '370100dd-1a85-421b-9278-27f0961ae5f4';

const baseOrder = (over: Partial<CreateTriggerOrderParams['params']> = {}, top: Partial<CreateTriggerOrderParams> = {}): CreateTriggerOrderParams => ({
  inputMint: USDC,
  outputMint: SOL,
  maker: MAKER,
  payer: MAKER,
  params: { makingAmount: 100_000_000n, takingAmount: 50_000_000n, ...over },
  ...top,
});

describe('the Trigger V1 client', () => {
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

  describe('when creating an order', () => {
    it('sends the amounts as digit strings and returns the requestId, transaction and order account', async () => {
      server.on('POST', '/trigger/v1/createOrder', { body: { order: ORDER, transaction: TX, requestId: REQUEST_ID } });
      const created = await createTriggerOrder(t(), baseOrder({ expiredAt: 1_767_225_600, slippageBps: 0 }, { computeUnitPrice: 'auto' }));
      expect(created).toEqual({ order: ORDER, transaction: TX, requestId: REQUEST_ID });
      const [req] = server.requestsTo('/trigger/v1/createOrder', 'POST');
      expect(req!.body).toEqual({
        inputMint: USDC,
        outputMint: SOL,
        maker: MAKER,
        payer: MAKER,
        params: { makingAmount: '100000000', takingAmount: '50000000', expiredAt: '1767225600', slippageBps: '0' },
        computeUnitPrice: 'auto',
      });
    });

    it('sends feeBps as a string with its fee account', async () => {
      server.on('POST', '/trigger/v1/createOrder', { body: { transaction: TX, requestId: REQUEST_ID } });
      const created = await createTriggerOrder(t(), baseOrder({ feeBps: 20 }, { feeAccount: ORDER_2, wrapAndUnwrapSol: false }));
      expect(created.order).toBeUndefined();
      const body = server.requestsTo('/trigger/v1/createOrder')[0]!.body as Record<string, unknown>;
      expect(body.params).toMatchObject({ feeBps: '20' });
      expect(body).toMatchObject({ feeAccount: ORDER_2, wrapAndUnwrapSol: false });
    });

    it('shows the cause of a refusal (the 5 USD minimum) in the error message, without retrying', async () => {
      const refusal = { error: 'invalid create order request', cause: 'input mint making amount must be at least 5 USD, received: 2', code: 400 };
      server.on('POST', '/trigger/v1/createOrder', { status: 400, body: refusal });
      const err = await createTriggerOrder(t(), baseOrder({ makingAmount: 2_000_000n })).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('must be at least 5 USD');
      expect((err as BadRequestError).endpoint).toBe('trigger.createOrder');
      expect(server.requestsTo('/trigger/v1/createOrder')).toHaveLength(1);
    });

    it('retries a 5xx, since it only builds an unsigned transaction', async () => {
      server.on('POST', '/trigger/v1/createOrder', { status: 500, body: { error: 'unable to get latest blockhash', code: 500 } });
      const err = await createTriggerOrder(t(), baseOrder()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(server.requestsTo('/trigger/v1/createOrder')).toHaveLength(3);
    });

    it.each([
      ['a missing transaction', { requestId: REQUEST_ID }, 'transaction'],
      ['an empty transaction', { requestId: REQUEST_ID, transaction: '' }, 'transaction'],
      ['a missing requestId', { transaction: TX }, 'requestId'],
    ])('rejects %s', async (_what, body, field) => {
      server.on('POST', '/trigger/v1/createOrder', { body });
      const err = await createTriggerOrder(t(), baseOrder()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain(field);
    });

    it.each([
      ['trigger.makingAmount.positive', baseOrder({ makingAmount: 0n })],
      ['trigger.takingAmount.positive', baseOrder({ takingAmount: -1n })],
      ['trigger.mints.distinct', baseOrder({}, { outputMint: USDC })],
      ['trigger.maker.address', baseOrder({}, { maker: 'not-a-wallet' })],
      ['trigger.feeAccount.address', baseOrder({ feeBps: 10 }, { feeAccount: '0OIl' })],
      ['trigger.slippageBps.range', baseOrder({ slippageBps: 10_001 })],
      ['trigger.slippageBps.range', baseOrder({ slippageBps: -1 })],
      ['trigger.feeBps.feeAccount', baseOrder({ feeBps: 10 })],
      ['trigger.expiredAt.seconds', baseOrder({ expiredAt: 1_767_225_600_000 })],
      ['trigger.computeUnitPrice.integer', baseOrder({}, { computeUnitPrice: 1.5 })],
    ])('refuses %s before sending anything', async (rule, params) => {
      const err = await createTriggerOrder(t(), params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when executing a signed transaction', () => {
    it('sends requestId and signedTransaction once and returns the signature', async () => {
      server.on('POST', '/trigger/v1/execute', { body: { status: 'Success', signature: SIG, code: 0 } });
      const result = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX });
      expect(result).toEqual({ status: 'Success', signature: SIG, code: 0 });
      expect(server.requestsTo('/trigger/v1/execute', 'POST')[0]!.body).toEqual({ requestId: REQUEST_ID, signedTransaction: TX });
    });

    it('accepts the documented success body without a code (jupiter-api.md §13 item 10)', async () => {
      server.on('POST', '/trigger/v1/execute', { body: { status: 'Success', signature: SIG } });
      expect(await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX })).toEqual({ status: 'Success', signature: SIG });
      server.on('POST', '/trigger/v1/execute', { body: { status: 'Failed', signature: SIG } });
      const err = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect((err as ExecuteError).executeCode).toBe(-1001);
    });

    it('maps a failure body to ExecuteError carrying the signature, and never retries it', async () => {
      server.on('POST', '/trigger/v1/execute', {
        status: 500,
        body: { error: 'custom program error code: 1', code: 500, signature: SIG, status: 'Failed' },
      });
      const err = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).signature).toBe(SIG);
      expect((err as ExecuteError).executeCode).toBe(-1001);
      expect((err as ExecuteError).details.serviceError).toBe('custom program error code: 1');
      expect(server.requestsTo('/trigger/v1/execute')).toHaveLength(1);
    });

    it('keeps the cause of a 400 failure in the service error text', async () => {
      server.on('POST', '/trigger/v1/execute', { status: 400, body: { error: 'invalid transaction', cause: 'signature verification failed', code: 400, status: 'Failed' } });
      const err = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).signature).toBeUndefined();
      expect((err as ExecuteError).details.serviceError).toBe('invalid transaction: signature verification failed');
    });

    it('treats a 200 Failed status as ExecuteError, using -1001 when the code says 0', async () => {
      server.on('POST', '/trigger/v1/execute', { body: { status: 'Failed', signature: SIG, code: 0 } });
      const err = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-1001);
      expect((err as ExecuteError).signature).toBe(SIG);
    });

    it('refuses a missing requestId or a non-base64 transaction before sending', async () => {
      const a = await executeTriggerOrder(t(), { requestId: '', signedTransaction: TX }).catch((e: unknown) => e);
      const b = await executeTriggerOrder(t(), { requestId: REQUEST_ID, signedTransaction: 'not base64!' }).catch((e: unknown) => e);
      expect((a as LimitError).rule).toBe('trigger.requestId.required');
      expect((b as LimitError).rule).toBe('trigger.signedTransaction.base64');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when cancelling one order', () => {
    it('sends maker and order and returns the unsigned transaction', async () => {
      server.on('POST', '/trigger/v1/cancelOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      await expect(cancelTriggerOrder(t(), { maker: MAKER, order: ORDER, computeUnitPrice: 50_000 })).resolves.toEqual({ requestId: REQUEST_ID, transaction: TX });
      expect(server.requestsTo('/trigger/v1/cancelOrder', 'POST')[0]!.body).toEqual({ maker: MAKER, order: ORDER, computeUnitPrice: '50000' });
    });

    it('reports "no matching orders found" as a bad request', async () => {
      server.on('POST', '/trigger/v1/cancelOrder', { status: 400, body: { error: 'no matching orders found', code: 400 } });
      const err = await cancelTriggerOrder(t(), { maker: MAKER, order: ORDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('no matching orders found');
    });
  });

  describe('when cancelling several orders', () => {
    it('sends the listed orders and returns every transaction under one requestId', async () => {
      server.on('POST', '/trigger/v1/cancelOrders', { body: { requestId: REQUEST_ID, transactions: [TX, TX] } });
      const res = await cancelTriggerOrders(t(), { maker: MAKER, orders: [ORDER, ORDER_2, ORDER] });
      expect(res).toEqual({ requestId: REQUEST_ID, transactions: [TX, TX] });
      expect(server.requestsTo('/trigger/v1/cancelOrders')[0]!.body).toEqual({ maker: MAKER, orders: [ORDER, ORDER_2] });
    });

    it('leaves orders out of the body to cancel all open orders', async () => {
      server.on('POST', '/trigger/v1/cancelOrders', { body: { requestId: REQUEST_ID, transactions: [TX] } });
      await cancelTriggerOrders(t(), { maker: MAKER });
      expect(server.requestsTo('/trigger/v1/cancelOrders')[0]!.body).toEqual({ maker: MAKER });
    });

    it('refuses an empty list, which the service would read as "cancel all"', async () => {
      const err = await cancelTriggerOrders(t(), { maker: MAKER, orders: [] }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('trigger.orders.empty');
      expect(server.requests).toHaveLength(0);
    });

    it('rejects a non-base64 transaction in the list, naming its index', async () => {
      server.on('POST', '/trigger/v1/cancelOrders', { body: { requestId: REQUEST_ID, transactions: [TX, 'not base64!'] } });
      const err = await cancelTriggerOrders(t(), { maker: MAKER }).catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('transactions.1');
    });
  });

  describe('when bound to a transport', () => {
    it('exposes the endpoints without the transport argument', async () => {
      server.on('POST', '/trigger/v1/cancelOrder', { body: { requestId: REQUEST_ID, transaction: TX } });
      const api = bindTrigger(t());
      await expect(api.cancelOrder({ maker: MAKER, order: ORDER })).resolves.toMatchObject({ requestId: REQUEST_ID });
      expect(Object.keys(api).sort()).toEqual(['cancelOrder', 'cancelOrders', 'createOrder', 'execute', 'getOrders']);
    });
  });
});
