import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, ExecuteError, LimitError, NotFoundError, SchemaError, ServerError, UnauthorizedError } from '../../src/jupiter/errors.js';
import type { JupiterTransport } from '../../src/jupiter/transport.js';
import {
  PredictionExecuteError,
  closePredictionOrder,
  createPredictionOrder,
  executePredictionOrder,
  getPredictionOrder,
  getPredictionOrderStatus,
  getPredictionOrders,
  type CreatePredictionBuyParams,
  type CreatePredictionSellParams,
} from '../../src/jupiter/prediction/index.js';

const BASE = '/prediction/v1';
const OWNER = 'B6i3jk5NkXtiifCxtckWSkG3LPJG3varfjDBEyjVjrof';
const POSITION = 'iREhDiDWmM8vStQFkQ75AywTfRZUqbPEZytUTWJzxh5e';
const ORDER = 'Yp1GK1k6ZVZVUZeye3Vp9s6c76H93Br6LDBHsTdo35An';
const ORDER_ATA = 'tVY7bqm381rVnjvC4R8HUn9neAhXn8VsKRPacZTqV5Gp';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==';
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUPUSD = 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD';

/** A CreateOrderResponse as the service sends it for a $10 YES buy at most $0.70. */
const createResponse = (over: Record<string, unknown> = {}, orderOver: Record<string, unknown> = {}) => ({
  transaction: TX,
  txMeta: { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: 279132640 },
  externalOrderId: 'ext-1',
  requiredSigners: [OWNER],
  execution: { endpoint: '/api/v1/execute', context: { type: 'create_order', orderPubkey: ORDER } },
  executionModel: null,
  settlement: null,
  jupiterSwapRequestId: null,
  order: {
    orderPubkey: ORDER,
    orderAtaPubkey: ORDER_ATA,
    userPubkey: OWNER,
    marketId: 'POLY-1345531-YES',
    marketIdHash: '8f2c',
    positionPubkey: POSITION,
    isBuy: true,
    isYes: true,
    contracts: '14',
    contractsMicro: '14285714',
    contractsDecimal: '14.285714',
    newContracts: '14',
    newContractsMicro: '14285714',
    newContractsDecimal: '14.285714',
    maxBuyPriceUsd: '700000',
    minSellPriceUsd: null,
    externalOrderId: 'ext-1',
    orderCostUsd: '9850000',
    newAvgPriceUsd: '689655',
    newSizeUsd: '9850000',
    newPayoutUsd: '14285714',
    payoutUsd: '14285714',
    estimatedProtocolFeeUsd: '0',
    estimatedVenueFeeUsd: '150000',
    estimatedTotalFeeUsd: '150000',
    slippageBps: 40,
    maxSlippageBps: null,
    ...orderOver,
  },
  ...over,
});

const buy = (over: Partial<CreatePredictionBuyParams> = {}): CreatePredictionBuyParams => ({
  isBuy: true,
  ownerPubkey: OWNER,
  marketId: 'POLY-1345531-YES',
  isYes: true,
  depositAmount: 10_000_000n,
  ...over,
});

const sell = (over: Partial<CreatePredictionSellParams> = {}): CreatePredictionSellParams => ({
  isBuy: false,
  ownerPubkey: OWNER,
  positionPubkey: POSITION,
  isYes: true,
  contractsMicro: 5_500_000n,
  ...over,
});

/** An order account as GET /orders lists it. */
const orderAccount = (over: Record<string, unknown> = {}) => ({
  pubkey: ORDER,
  owner: OWNER,
  ownerPubkey: OWNER,
  market: 'tVY7bqm381rVnjvC4R8HUn9neAhXn8VsKRPacZTqV5Gp',
  marketId: 'POLY-1345531-YES',
  marketIdHash: '8f2c',
  eventId: 'POLY-351731',
  position: POSITION,
  status: 'pending',
  isYes: true,
  isBuy: true,
  createdAt: 1767300000,
  updatedAt: 1767300005,
  contracts: '14',
  maxFillPriceUsd: '700000',
  maxBuyPriceUsd: '700000',
  minSellPriceUsd: null,
  filledAt: 0,
  filledContracts: '0',
  avgFillPriceUsd: '0',
  settled: false,
  orderId: '',
  sizeUsd: '9850000',
  eventMetadata: { eventId: 'POLY-351731', title: 'Bitcoin price on Dec 31' },
  marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'open', result: null, closeTime: 1798761600 },
  externalOrderId: 'ext-1',
  bump: 254,
  ...over,
});

describe('the prediction order endpoints', () => {
  let server: FixtureServer;
  let t: JupiterTransport;
  beforeAll(async () => {
    server = await startFixtureServer();
    t = testTransport(server.url);
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  describe('when creating a buy', () => {
    it('posts the body the live service takes (no price limit) and parses the limit the build reports', async () => {
      server.on('POST', `${BASE}/orders`, { body: createResponse() });
      const build = await createPredictionOrder(t, buy());
      const [req] = server.requestsTo(`${BASE}/orders`, 'POST');
      expect(req!.body).toEqual({
        ownerPubkey: OWNER,
        marketId: 'POLY-1345531-YES',
        isYes: true,
        isBuy: true,
        depositAmount: '10000000',
        depositMint: USDC,
      });
      expect(build.transaction).toBe(TX);
      expect(build.txMeta.lastValidBlockHeight).toBe(279132640);
      expect(build.execution?.context).toEqual({ type: 'create_order', orderPubkey: ORDER });
      expect(build.order).toMatchObject({
        orderPubkey: ORDER,
        contracts: 14n,
        contractsMicro: 14_285_714n,
        maxBuyPriceUsd: 700_000n,
        minSellPriceUsd: null,
        orderCostUsd: 9_850_000n,
        newAvgPriceUsd: 689_655n,
        estimatedTotalFeeUsd: 150_000n,
        slippageBps: 40,
      });
    });

    it('accepts lastValidBlockHeight as a string (the CLI type) and JupUSD as the deposit mint', async () => {
      server.on('POST', `${BASE}/orders`, { body: createResponse({ txMeta: { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: '279132640' } }) });
      const build = await createPredictionOrder(t, buy({ depositMint: JUPUSD, depositAmount: 5_000_000n }));
      expect(build.txMeta.lastValidBlockHeight).toBe(279132640);
      expect(server.requests[0]!.body).toEqual({ ownerPubkey: OWNER, marketId: 'POLY-1345531-YES', isYes: true, isBuy: true, depositMint: JUPUSD, depositAmount: '5000000' });
    });

    it.each([
      [buy({ depositAmount: 4_999_999n }), 'prediction.depositAmount.min'],
      [buy({ depositMint: 'So11111111111111111111111111111111111111112' }), 'prediction.depositMint.allowed'],
      [buy({ marketId: '' }), 'prediction.marketId.required'],
      [buy({ ownerPubkey: 'not-a-key' }), 'prediction.ownerPubkey.address'],
    ])('refuses a broken buy (%#) with %s and sends nothing', async (params, rule) => {
      const err = await createPredictionOrder(t, params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });

    it('maps the service refusal of a small order to BadRequestError without retrying', async () => {
      server.on('POST', `${BASE}/orders`, { status: 400, body: { type: 'invalid_request_error', message: 'Minimum order is $5', request_id: 'req_1' } });
      const err = await createPredictionOrder(t, buy()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('Minimum order is $5');
      expect(server.requests).toHaveLength(1);
    });

    it('rejects a build without a transaction to sign', async () => {
      server.on('POST', `${BASE}/orders`, { body: createResponse({ transaction: null, txMeta: null }) });
      const err = await createPredictionOrder(t, buy()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('transaction');
    });

    it('rejects a dollar-denominated price where micro-USD is due', async () => {
      server.on('POST', `${BASE}/orders`, { body: createResponse({}, { maxBuyPriceUsd: '0.7' }) });
      const err = await createPredictionOrder(t, buy()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('order.maxBuyPriceUsd');
    });
  });

  describe('when creating a sell', () => {
    it('posts the position and one quantity (no floor price) and parses the floor the build reports', async () => {
      server.on('POST', `${BASE}/orders`, {
        body: createResponse({}, { isBuy: false, maxBuyPriceUsd: null, minSellPriceUsd: '600000', contractsMicro: '5500000', newContractsMicro: '8785714' }),
      });
      const build = await createPredictionOrder(t, sell());
      expect(server.requests[0]!.body).toEqual({
        ownerPubkey: OWNER,
        positionPubkey: POSITION,
        isYes: true,
        isBuy: false,
        contractsMicro: '5500000',
      });
      expect(build.order).toMatchObject({ isBuy: false, minSellPriceUsd: 600_000n, maxBuyPriceUsd: null, contractsMicro: 5_500_000n });
    });

    it.each([
      [sell({ contracts: 2n }), 'prediction.contracts.exactlyOne'],
      [sell({ contractsMicro: undefined }), 'prediction.contracts.exactlyOne'],
      [sell({ contractsMicro: 0n }), 'prediction.contracts.positive'],
      [sell({ contractsMicro: undefined, contractsDecimal: '5.1234567' }), 'prediction.contractsDecimal.format'],
      [sell({ positionPubkey: undefined as never }), 'prediction.positionPubkey.required'],
    ])('refuses a broken sell (%#) with %s and sends nothing', async (params, rule) => {
      const err = await createPredictionOrder(t, params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when executing a signed build', () => {
    it('posts the transaction with the context unchanged and returns the signature', async () => {
      server.on('POST', `${BASE}/execute`, { body: { status: 'Success', signature: SIGNATURE, error: null, requestId: 'corr-1' } });
      const res = await executePredictionOrder(t, { signedTransaction: TX, context: { type: 'bisonfi_swap', jupiterSwapRequestId: 'abc' }, requestId: 'corr-1' });
      expect(res).toEqual({ status: 'Success', signature: SIGNATURE, error: null, requestId: 'corr-1' });
      expect(server.requests[0]!.body).toEqual({ signedTransaction: TX, context: { type: 'bisonfi_swap', jupiterSwapRequestId: 'abc' }, requestId: 'corr-1' });
    });

    it('throws an ExecuteError carrying the signature when the status is Failed', async () => {
      server.on('POST', `${BASE}/execute`, { body: { status: 'Failed', signature: SIGNATURE, error: 'Transaction simulation failed' } });
      const err = await executePredictionOrder(t, { signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect(err).toBeInstanceOf(PredictionExecuteError);
      expect((err as ExecuteError).signature).toBe(SIGNATURE);
      expect((err as ExecuteError).message).toContain('Transaction simulation failed');
    });

    it('surfaces the type and message of a 400 ErrorResponse as an ExecuteError', async () => {
      server.on('POST', `${BASE}/execute`, {
        status: 400,
        body: { type: 'invalid_request_error', message: 'Execution context does not match the transaction', code: 'context_mismatch', request_id: 'req_9' },
      });
      const err = await executePredictionOrder(t, { signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PredictionExecuteError);
      const e = err as PredictionExecuteError;
      expect(e.errorType).toBe('invalid_request_error');
      expect(e.serviceMessage).toBe('Execution context does not match the transaction');
      expect(e.serviceCode).toBe('context_mismatch');
      expect(e.requestId).toBe('req_9');
      expect(e.httpStatus).toBe(400);
      expect(e.message).toContain('invalid_request_error: Execution context does not match the transaction');
    });

    it('never retries, even a server error', async () => {
      server.on('POST', `${BASE}/execute`, { status: 503, body: { type: 'api_error', message: 'unavailable', request_id: 'r' } });
      const err = await executePredictionOrder(t, { signedTransaction: TX }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(server.requestsTo(`${BASE}/execute`)).toHaveLength(1);
    });

    it('keeps a 401 an UnauthorizedError', async () => {
      server.on('POST', `${BASE}/execute`, { status: 401, body: { code: 401, message: 'Unauthorized' } });
      await expect(executePredictionOrder(t, { signedTransaction: TX })).rejects.toBeInstanceOf(UnauthorizedError);
    });

    it('refuses a transaction that is not base64 without sending it', async () => {
      const err = await executePredictionOrder(t, { signedTransaction: 'not base64!' }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('prediction.signedTransaction.base64');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when reading orders', () => {
    it('lists the wallet orders with micro-USD values as bigint', async () => {
      server.on('GET', `${BASE}/orders`, { body: { data: [orderAccount()], pagination: { start: 0, end: 10, total: 1, hasNext: false } } });
      const page = await getPredictionOrders(t, { ownerPubkey: OWNER, start: 0, end: 10 });
      expect(Object.fromEntries(server.requests[0]!.query)).toEqual({ ownerPubkey: OWNER, start: '0', end: '10' });
      expect(page.data[0]).toMatchObject({ pubkey: ORDER, status: 'pending', contracts: 14n, maxBuyPriceUsd: 700_000n, minSellPriceUsd: null, sizeUsd: 9_850_000n, filledAt: 0 });
    });

    it('refuses a malformed owner without sending a request', async () => {
      const err = await getPredictionOrders(t, { ownerPubkey: '0xdeadbeef' }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('prediction.ownerPubkey.address');
      expect(server.requests).toHaveLength(0);
    });

    it('reads one order account', async () => {
      server.on('GET', `${BASE}/orders/:orderPubkey`, { body: orderAccount({ status: 'filled', filledAt: 1767300100, filledContracts: '14', avgFillPriceUsd: '689655' }) });
      const order = await getPredictionOrder(t, { orderPubkey: ORDER });
      expect(server.requestsTo(`${BASE}/orders/${ORDER}`, 'GET')).toHaveLength(1);
      expect(order).toMatchObject({ status: 'filled', filledContracts: 14n, avgFillPriceUsd: 689_655n });
    });

    it('reports a closed order account (400) as BadRequestError', async () => {
      server.on('GET', `${BASE}/orders/:orderPubkey`, { status: 400, body: { type: 'invalid_request_error', message: 'Failed to fetch order', request_id: 'r' } });
      await expect(getPredictionOrder(t, { orderPubkey: ORDER })).rejects.toBeInstanceOf(BadRequestError);
    });

    it('reads the fill status and its history', async () => {
      server.on('GET', `${BASE}/orders/status/:orderPubkey`, {
        body: {
          orderPubkey: ORDER,
          status: 'partiallyfilled',
          latestEventType: 'order_filled',
          latestSignature: SIGNATURE,
          externalOrderId: 'ext-1',
          orderId: 'order-1906029',
          history: [
            { eventType: 'order_created', status: 'created', rawStatus: 'Created', timestamp: 1767300000, signature: SIGNATURE, externalOrderId: 'ext-1', orderId: '' },
            { eventType: 'order_filled', status: 'partiallyfilled', rawStatus: 'PartiallyFilled', timestamp: 1767300060, signature: SIGNATURE, externalOrderId: 'ext-1', orderId: 'order-1906029', fillInfo: {} },
          ],
        },
      });
      const status = await getPredictionOrderStatus(t, { orderPubkey: ORDER });
      expect(server.requestsTo(`${BASE}/orders/status/${ORDER}`)).toHaveLength(1);
      expect(status.status).toBe('partiallyfilled');
      expect(status.history.map((h) => h.status)).toEqual(['created', 'partiallyfilled']);
    });

    it('reports "no order history found" (404) as NotFoundError', async () => {
      server.on('GET', `${BASE}/orders/status/:orderPubkey`, { status: 404, body: { type: 'invalid_request_error', message: 'no order history found', request_id: 'r' } });
      await expect(getPredictionOrderStatus(t, { orderPubkey: ORDER })).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('when closing an order', () => {
    it('sends DELETE /orders with the owner and the order and returns the transaction', async () => {
      server.on('DELETE', `${BASE}/orders`, { body: { transaction: TX, txMeta: { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: 279132700 } } });
      const build = await closePredictionOrder(t, { ownerPubkey: OWNER, orderPubkey: ORDER });
      const [req] = server.requestsTo(`${BASE}/orders`, 'DELETE');
      expect(req!.body).toEqual({ ownerPubkey: OWNER, orderPubkey: ORDER });
      expect(build.transaction).toBe(TX);
      expect(build.txMeta?.lastValidBlockHeight).toBe(279132700);
    });

    it('rejects an answer without a transaction', async () => {
      server.on('DELETE', `${BASE}/orders`, { body: { txMeta: null } });
      const err = await closePredictionOrder(t, { ownerPubkey: OWNER, orderPubkey: ORDER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('transaction');
    });
  });
});
