import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, ExecuteError, LimitError, OrderError, ServerError } from '../../src/jupiter/errors.js';
import { bindUltra, type GetOrderParams } from '../../src/jupiter/ultra/index.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const TAKER = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const REFERRAL = 'DkiqsTrw1u1bYFumumC7sCG2S8K25qc2vemJFHyW2wJc';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAAEN';
const SIG = '5UfDuX7hXbTiKFJqS1MzGsNpbXTzMKJe2bZP1zrd7DnFBSChKvF2FVDNAuqz7SJpaHXTB9E5DP6tMjfZmVDMJRs';
const REQUEST_ID = '019974a8-5fbb-7395-9355-9ebf8f844884';

/** The Metis order of jupiter-api.md §1.2 (USDC -> SOL), with or without a taker. */
function orderBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    mode: 'ultra',
    inputMint: USDC,
    outputMint: SOL,
    inAmount: '100000000',
    outAmount: '461208958',
    otherAmountThreshold: '460024271',
    swapMode: 'ExactIn',
    slippageBps: 26,
    priceImpactPct: '-0.0001311599520149334',
    routePlan: [
      {
        swapInfo: {
          ammKey: 'HTvjzsfX3yU6BUodCjZ5vZkUrAxMDTrBs3CJaq43ashR',
          label: 'MeteoraDLMM',
          inputMint: USDC,
          outputMint: SOL,
          inAmount: '100000000',
          outAmount: '461208958',
          feeAmount: '0',
          feeMint: '11111111111111111111111111111111',
        },
        percent: 100,
        bps: 10000,
      },
    ],
    feeMint: SOL,
    feeBps: 2,
    platformFee: { amount: '92050', feeBps: 2 },
    taker: null,
    gasless: false,
    signatureFeeLamports: 5000,
    signatureFeePayer: null,
    transaction: null,
    prioritizationFeeLamports: 696237,
    prioritizationFeePayer: null,
    rentFeeLamports: 0,
    rentFeePayer: null,
    swapType: 'aggregator',
    router: 'metis',
    requestId: REQUEST_ID,
    inUsdValue: 99.96761068334662,
    outUsdValue: 99.95449893632635,
    priceImpact: -0.013115995201493341,
    swapUsdValue: 99.96761068334662,
    totalTime: 359,
    ...overrides,
  };
}

describe('the Ultra order and execute endpoints', () => {
  let server: FixtureServer;
  let ultra: ReturnType<typeof bindUltra>;
  beforeAll(async () => {
    server = await startFixtureServer();
    ultra = bindUltra(testTransport(server.url));
  });
  afterAll(async () => {
    await server.close();
  });
  beforeEach(() => {
    server.requests.length = 0;
  });

  const base: GetOrderParams = { inputMint: USDC, outputMint: SOL, amount: 100_000_000n };

  describe('when no taker is given', () => {
    it('returns a quote with a null transaction and bigint amounts', async () => {
      server.on('GET', '/ultra/v1/order', { body: orderBody() });
      const order = await ultra.getOrder(base);
      expect(order.transaction).toBeNull();
      expect(order.inAmount).toBe(100_000_000n);
      expect(order.outAmount).toBe(461_208_958n);
      expect(order.otherAmountThreshold).toBe(460_024_271n);
      expect(order.routePlan[0]!.swapInfo.outAmount).toBe(461_208_958n);
      expect(order.platformFee).toEqual({ amount: 92_050n, feeBps: 2 });
      expect(order.requestId).toBe(REQUEST_ID);
      const [req] = server.requestsTo('/ultra/v1/order', 'GET');
      expect(Object.fromEntries(req!.query)).toEqual({ inputMint: USDC, outputMint: SOL, amount: '100000000' });
    });
  });

  describe('when a taker is given', () => {
    it('returns the unsigned transaction and sends the taker and the options', async () => {
      server.on('GET', '/ultra/v1/order', { body: orderBody({ taker: TAKER, transaction: TX }) });
      const order = await ultra.getOrder({ ...base, taker: TAKER, excludeRouters: ['jupiterz', 'okx'], slippageBps: 50 });
      expect(order.transaction).toBe(TX);
      expect(order.taker).toBe(TAKER);
      const query = server.requestsTo('/ultra/v1/order')[0]!.query;
      expect(query.get('taker')).toBe(TAKER);
      expect(query.get('excludeRouters')).toBe('jupiterz,okx');
      expect(query.get('slippageBps')).toBe('50');
    });
  });

  describe('when the service answers with an errorCode', () => {
    it.each([
      [1, 'Insufficient funds', 'insufficient funds'],
      [2, 'Top up `0.01` SOL for gas', 'insufficient SOL for gas'],
      [3, 'Minimum `10` for gasless', 'below the gasless minimum'],
    ] as const)('turns errorCode %i into OrderError with its documented meaning', async (code, message, meaning) => {
      server.on('GET', '/ultra/v1/order', { body: orderBody({ taker: TAKER, transaction: '', errorCode: code, errorMessage: message }) });
      const err = await ultra.getOrder({ ...base, taker: TAKER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OrderError);
      expect((err as OrderError).errorCode).toBe(code);
      expect((err as OrderError).meaning).toBe(meaning);
      expect((err as OrderError).code).toBe(`JUP_ORDER_${code}`);
      expect((err as OrderError).endpoint).toBe('ultra.order');
    });

    it('uses the JupiterZ meaning when the router is jupiterz', async () => {
      server.on('GET', '/ultra/v1/order', {
        body: orderBody({ taker: TAKER, transaction: '', errorCode: 2, errorMessage: 'x', router: 'jupiterz', swapType: 'rfq' }),
      });
      const err = await ultra.getOrder({ ...base, taker: TAKER }).catch((e: unknown) => e);
      expect((err as OrderError).meaning).toBe('missing associated token account');
    });

    it.each([4, 0, -1, '7'])('reads an undocumented errorCode (%j) as the service refusing the order, not as a broken body', async (code) => {
      server.on('GET', '/ultra/v1/order', { body: orderBody({ taker: TAKER, transaction: '', errorCode: code, errorMessage: 'Route not available' }) });
      const err = await ultra.getOrder({ ...base, taker: TAKER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OrderError);
      expect(err).toMatchObject({ errorCode: Number(code), code: 'JUP_ORDER_UNDOCUMENTED', action: 'abandon', meaning: 'an undocumented order error' });
      expect((err as OrderError).details).toMatchObject({ serviceMessage: 'Route not available' });
    });
  });

  describe('when no route exists', () => {
    it('throws BadRequestError with the service body, without retrying', async () => {
      server.on('GET', '/ultra/v1/order', { status: 400, body: { error: 'Failed to get quotes' } });
      const err = await ultra.getOrder(base).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).body).toEqual({ error: 'Failed to get quotes' });
      expect(server.requestsTo('/ultra/v1/order')).toHaveLength(1);
    });
  });

  describe('when the parameters break a documented limit', () => {
    it.each([
      ['referralFee below 50', { referralAccount: REFERRAL, referralFee: 49 }, 'order.referralFee.range'],
      ['referralFee above 255', { referralAccount: REFERRAL, referralFee: 256 }, 'order.referralFee.range'],
      ['payer without referral', { payer: TAKER }, 'order.payer.referral'],
      ['payer with only a referralAccount', { payer: TAKER, referralAccount: REFERRAL }, 'order.referralAccount.fee'],
      ['amount 0', { amount: 0n }, 'order.amount.positive'],
    ] as const)('throws LimitError for %s and sends nothing', async (_name, extra, rule) => {
      const err = await ultra.getOrder({ ...base, ...extra }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when execute succeeds', () => {
    it('returns bigint amounts and swap events, and posts the signed transaction', async () => {
      server.on('POST', '/ultra/v1/execute', {
        body: {
          status: 'Success',
          signature: SIG,
          slot: '324307186',
          code: 0,
          totalInputAmount: '100000000',
          totalOutputAmount: '17057460',
          inputAmountResult: '100000000',
          outputAmountResult: '17057460',
          swapEvents: [{ inputMint: SOL, inputAmount: '100000000', outputMint: USDC, outputAmount: '17057460' }],
        },
      });
      const result = await ultra.executeOrder({ signedTransaction: TX, requestId: REQUEST_ID });
      expect(result.status).toBe('Success');
      expect(result.signature).toBe(SIG);
      expect(result.totalOutputAmount).toBe(17_057_460n);
      expect(result.swapEvents).toEqual([{ inputMint: SOL, inputAmount: 100_000_000n, outputMint: USDC, outputAmount: 17_057_460n }]);
      const [req] = server.requestsTo('/ultra/v1/execute', 'POST');
      expect(req!.body).toEqual({ signedTransaction: TX, requestId: REQUEST_ID });
    });
  });

  describe('when execute reports Failed', () => {
    it('throws ExecuteError -1005 carrying the signature', async () => {
      server.on('POST', '/ultra/v1/execute', { body: { status: 'Failed', slot: '0', signature: SIG, code: -1005, error: 'Transaction expired' } });
      const err = await ultra.executeOrder({ signedTransaction: TX, requestId: REQUEST_ID }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-1005);
      expect((err as ExecuteError).signature).toBe(SIG);
      expect((err as ExecuteError).meaning).toBe('transaction expired');
      expect((err as ExecuteError).codeClass).toBe('landing');
    });

    it('throws ExecuteError 6001 as a slippage program error', async () => {
      server.on('POST', '/ultra/v1/execute', {
        body: {
          status: 'Failed',
          signature: SIG,
          slot: '324307190',
          code: 6001,
          error: 'Slippage tolerance exceeded',
          totalInputAmount: '100000000',
          totalOutputAmount: '0',
          inputAmountResult: '100000000',
          outputAmountResult: '0',
          swapEvents: [],
        },
      });
      const err = await ultra.executeOrder({ signedTransaction: TX, requestId: REQUEST_ID }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(6001);
      expect((err as ExecuteError).signature).toBe(SIG);
      expect((err as ExecuteError).meaning).toBe('slippage tolerance exceeded');
      expect((err as ExecuteError).codeClass).toBe('program');
    });
  });

  describe('when the order expired', () => {
    it('maps HTTP 400 with code -1 to ExecuteError -1', async () => {
      server.on('POST', '/ultra/v1/execute', { status: 400, body: { code: -1, error: 'Order not found, it might have expired' } });
      const err = await ultra.executeOrder({ signedTransaction: TX, requestId: REQUEST_ID }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-1);
      expect((err as ExecuteError).meaning).toBe('missing cached order (requestId expired or not found)');
      expect((err as ExecuteError).codeClass).toBe('request');
      expect((err as ExecuteError).signature).toBeUndefined();
    });
  });

  describe('when execute meets a 503', () => {
    it('does not retry: exactly one request is sent', async () => {
      server.on('POST', '/ultra/v1/execute', { status: 503, body: { error: 'Service Unavailable' } });
      const err = await ultra.executeOrder({ signedTransaction: TX, requestId: REQUEST_ID }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(server.requestsTo('/ultra/v1/execute')).toHaveLength(1);
    });
  });
});
