import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, LimitError, NotFoundError, SchemaError } from '../../src/jupiter/errors.js';
import type { JupiterTransport } from '../../src/jupiter/transport.js';
import {
  ALREADY_CLAIMED_CODE,
  AlreadyClaimedError,
  ClaimNotRequiredError,
  MARKET_NOT_SETTLED_CODE,
  MarketNotSettledError,
  bindPrediction,
  claimPredictionPosition,
  closeAllPredictionPositions,
  closePredictionPosition,
  getPredictionHistory,
  getPredictionPosition,
  getPredictionPositions,
} from '../../src/jupiter/prediction/index.js';

const BASE = '/prediction/v1';
const OWNER = 'B6i3jk5NkXtiifCxtckWSkG3LPJG3varfjDBEyjVjrof';
const POSITION = 'iREhDiDWmM8vStQFkQ75AywTfRZUqbPEZytUTWJzxh5e';
const MARKET_PDA = 'bDsTYHQk6Tuw5aKd2srBQA6D5mDFftuuCUr76Qq4Jqha';
const ORDER = 'Yp1GK1k6ZVZVUZeye3Vp9s6c76H93Br6LDBHsTdo35An';
const KEEPER = 'Cw3sYhSRSy3TAAX4sYEAj8EiK8F8twMMLvsiknGWBjAV';
const TX = 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==';
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';
const TX_META = { blockhash: 'GHtXQBsoZHVnNFa9YevAzFr17DJjgHXk3ycTKD5xD3Zi', lastValidBlockHeight: 279132640 };

/** An open position in a losing state (negative unrealized P&L). */
const position = (over: Record<string, unknown> = {}) => ({
  pubkey: POSITION,
  owner: OWNER,
  ownerPubkey: OWNER,
  market: MARKET_PDA,
  marketId: 'POLY-1345531-YES',
  marketIdHash: '8f2c',
  isYes: true,
  contracts: '14',
  contractsMicro: '14285714',
  contractsDecimal: '14.285714',
  source: 'program',
  maxSlippageBps: 250,
  totalCostUsd: '9850000',
  sizeUsd: '9850000',
  valueUsd: '8857142',
  avgPriceUsd: '689655',
  markPriceUsd: '620000',
  sellPriceUsd: '620000',
  pnlUsd: '-992858',
  pnlUsdPercent: -10.08,
  pnlUsdAfterFees: '-1142858',
  pnlUsdAfterFeesPercent: -11.6,
  openOrders: 0,
  feesPaidUsd: '150000',
  realizedPnlUsd: -250000,
  claimed: false,
  claimedUsd: '0',
  openedAt: 1767300060,
  updatedAt: 1767300060,
  claimableAt: null,
  payoutUsd: '14285714',
  bump: 253,
  eventId: 'POLY-351731',
  eventMetadata: { eventId: 'POLY-351731', title: 'Bitcoin price on Dec 31', slug: 'bitcoin-price-dec-31', imageUrl: 'https://x/btc.png', isLive: false },
  marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'open', result: null, closeTime: 1798761600, openTime: 1767225600 },
  settlementDate: null,
  claimable: false,
  ...over,
});

/** A settled winner: the P&L fields are null once the market is closed. */
const settledWinner = position({
  valueUsd: null,
  markPriceUsd: null,
  sellPriceUsd: null,
  pnlUsd: null,
  pnlUsdPercent: null,
  pnlUsdAfterFees: null,
  pnlUsdAfterFeesPercent: null,
  claimable: true,
  claimableAt: 1798848000,
  settlementDate: 1798848000,
  marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'closed', result: 'yes', closeTime: 1798761600 },
});

const sellBuild = {
  transaction: TX,
  txMeta: TX_META,
  externalOrderId: 'ext-2',
  requiredSigners: [OWNER],
  execution: { endpoint: '/api/v1/execute', context: { type: 'create_order' } },
  executionModel: null,
  settlement: null,
  jupiterSwapRequestId: null,
  order: {
    orderPubkey: ORDER,
    orderAtaPubkey: null,
    userPubkey: OWNER,
    marketId: 'POLY-1345531-YES',
    marketIdHash: '8f2c',
    positionPubkey: POSITION,
    isBuy: false,
    isYes: true,
    contracts: '14',
    contractsMicro: '14285714',
    newContracts: '0',
    newContractsMicro: '0',
    maxBuyPriceUsd: null,
    minSellPriceUsd: '465000',
    externalOrderId: 'ext-2',
    orderCostUsd: '0',
    newAvgPriceUsd: '0',
    newSizeUsd: '0',
    newPayoutUsd: '0',
    estimatedProtocolFeeUsd: '0',
    estimatedVenueFeeUsd: '140000',
    estimatedTotalFeeUsd: '140000',
    slippageBps: 50,
    maxSlippageBps: 2500,
  },
};

const claimBuild = {
  transaction: TX,
  txMeta: { ...TX_META, lastValidBlockHeight: '279132650' },
  position: {
    positionPubkey: POSITION,
    marketPubkey: MARKET_PDA,
    userPubkey: OWNER,
    ownerPubkey: OWNER,
    isYes: true,
    contracts: '14',
    contractsMicro: '14285714',
    contractsDecimal: '14.285714',
    payoutAmountUsd: '14285714',
  },
};

describe('the prediction position endpoints', () => {
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

  describe('when listing positions', () => {
    it('sends the filters and parses money as micro-USD bigint, negative P&L included', async () => {
      server.on('GET', `${BASE}/positions`, { body: { data: [position(), settledWinner], pagination: { start: 0, end: 2, total: 2, hasNext: false } } });
      const page = await getPredictionPositions(t, { ownerPubkey: OWNER, marketId: 'POLY-1345531-YES', isYes: false });
      expect(Object.fromEntries(server.requestsTo(`${BASE}/positions`, 'GET')[0]!.query)).toEqual({ ownerPubkey: OWNER, marketId: 'POLY-1345531-YES', isYes: 'false' });
      const [open, won] = page.data;
      expect(open).toMatchObject({
        contracts: 14n,
        contractsMicro: 14_285_714n,
        totalCostUsd: 9_850_000n,
        valueUsd: 8_857_142n,
        pnlUsd: -992_858n,
        pnlUsdAfterFees: -1_142_858n,
        realizedPnlUsd: -250_000n,
        payoutUsd: 14_285_714n,
        openedAt: 1767300060,
      });
      expect(won).toMatchObject({ valueUsd: null, markPriceUsd: null, pnlUsd: null, claimable: true, claimableAt: 1798848000 });
    });

    it('refuses a missing owner without sending a request', async () => {
      const err = await getPredictionPositions(t, { ownerPubkey: undefined as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('prediction.ownerPubkey.required');
      expect(server.requests).toHaveLength(0);
    });

    it('rejects a P&L sent as a fraction, naming the field', async () => {
      server.on('GET', `${BASE}/positions`, { body: { data: [position({ realizedPnlUsd: -0.25 })], pagination: { start: 0, end: 1, total: 1, hasNext: false } } });
      const err = await getPredictionPositions(t, { ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('data.0.realizedPnlUsd');
    });
  });

  describe('when reading one position', () => {
    it('parses it', async () => {
      server.on('GET', `${BASE}/positions/:positionPubkey`, { body: position() });
      const p = await getPredictionPosition(t, { positionPubkey: POSITION });
      expect(server.requestsTo(`${BASE}/positions/${POSITION}`, 'GET')).toHaveLength(1);
      expect(p.avgPriceUsd).toBe(689_655n);
    });

    it('maps 404 position_not_found to NotFoundError', async () => {
      server.on('GET', `${BASE}/positions/:positionPubkey`, { status: 404, body: { type: 'invalid_request_error', message: 'Position not found', code: 'position_not_found', request_id: 'r' } });
      await expect(getPredictionPosition(t, { positionPubkey: POSITION })).rejects.toBeInstanceOf(NotFoundError);
    });
  });

  describe('when closing a position', () => {
    it('sends DELETE with the owner in the body and returns the sell build', async () => {
      server.on('DELETE', `${BASE}/positions/:positionPubkey`, { body: sellBuild });
      const build = await closePredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER });
      const [req] = server.requestsTo(`${BASE}/positions/${POSITION}`, 'DELETE');
      expect(req!.body).toEqual({ ownerPubkey: OWNER });
      expect(build.order).toMatchObject({ isBuy: false, newContracts: 0n, minSellPriceUsd: 465_000n, estimatedTotalFeeUsd: 140_000n, maxSlippageBps: 2500 });
      expect(build.txMeta.lastValidBlockHeight).toBe(279132640);
    });

    it('refuses a malformed position key without sending a request', async () => {
      const err = await closePredictionPosition(t, { positionPubkey: 'position-pubkey-789', ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('prediction.positionPubkey.address');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when closing all positions', () => {
    it('sends the owner and the slippage and tags each build as a sell or a claim', async () => {
      server.on('DELETE', `${BASE}/positions`, { body: { data: [sellBuild, claimBuild] } });
      const res = await closeAllPredictionPositions(t, { ownerPubkey: OWNER, minSellPriceSlippageBps: 200 });
      expect(server.requestsTo(`${BASE}/positions`, 'DELETE')[0]!.body).toEqual({ ownerPubkey: OWNER, minSellPriceSlippageBps: 200 });
      const [first, second] = res.data;
      expect(first!.kind).toBe('sell');
      expect(second!.kind).toBe('claim');
      if (first!.kind === 'sell') expect(first!.order.minSellPriceUsd).toBe(465_000n);
      if (second!.kind === 'claim') expect(second!.position.payoutAmountUsd).toBe(14_285_714n);
    });

    it('names the broken field inside an item', async () => {
      server.on('DELETE', `${BASE}/positions`, { body: { data: [sellBuild, { ...claimBuild, position: { ...claimBuild.position, payoutAmountUsd: 'lots' } }] } });
      const err = await closeAllPredictionPositions(t, { ownerPubkey: OWNER, minSellPriceSlippageBps: 200 }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('data.1.position.payoutAmountUsd');
    });

    it.each([undefined, -1, 10_001, 2.5])('refuses minSellPriceSlippageBps=%s without sending a request', async (bps) => {
      const err = await closeAllPredictionPositions(t, { ownerPubkey: OWNER, minSellPriceSlippageBps: bps as number }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('prediction.minSellPriceSlippageBps.range');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when claiming a position', () => {
    it('posts the owner and parses the payout', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { body: claimBuild });
      const build = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER });
      expect(server.requestsTo(`${BASE}/positions/${POSITION}/claim`, 'POST')[0]!.body).toEqual({ ownerPubkey: OWNER });
      expect(build.position).toMatchObject({ contracts: 14n, contractsMicro: 14_285_714n, payoutAmountUsd: 14_285_714n });
      expect(build.txMeta.lastValidBlockHeight).toBe(279132650);
    });

    it('reads the live shape of a claim, whose position has no ownerPubkey (the docs\' example since e2e27f60)', async () => {
      const { ownerPubkey: _owner, ...position } = claimBuild.position;
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { body: { ...claimBuild, position } });
      const build = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER });
      expect(build.position).toMatchObject({ positionPubkey: POSITION, userPubkey: OWNER, payoutAmountUsd: 14_285_714n });
      expect(build.position.ownerPubkey).toBeUndefined();
    });

    it('turns "Market not settled yet" into MarketNotSettledError, recognisable by its code', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'Market not settled yet', request_id: 'req_5' } });
      const err = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(MarketNotSettledError);
      expect((err as MarketNotSettledError).code).toBe(MARKET_NOT_SETTLED_CODE);
      expect((err as MarketNotSettledError).action).toBe('abandon');
      expect(server.requests).toHaveLength(1);
    });

    it('turns "no claim required" into ClaimNotRequiredError', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'No claim required', request_id: 'r' } });
      await expect(claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER })).rejects.toBeInstanceOf(ClaimNotRequiredError);
    });

    it('turns "already claimed" into AlreadyClaimedError (the payout was made: a keeper counts it done)', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'Position already claimed', code: 'already_claimed', request_id: 'r' } });
      const err = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AlreadyClaimedError);
      expect(err).toMatchObject({ code: ALREADY_CLAIMED_CODE, action: 'abandon', status: 400 });
    });

    it('leaves other refusals as BadRequestError', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { status: 400, body: { type: 'invalid_request_error', message: 'Position did not win: losing contracts pay nothing', request_id: 'r' } });
      const err = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(err).not.toBeInstanceOf(MarketNotSettledError);
      expect(err).not.toBeInstanceOf(AlreadyClaimedError);
    });

    it('rejects a claim build without a transaction', async () => {
      server.on('POST', `${BASE}/positions/:positionPubkey/claim`, { body: { ...claimBuild, transaction: '' } });
      const err = await claimPredictionPosition(t, { positionPubkey: POSITION, ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('transaction');
    });
  });

  describe('when reading history', () => {
    const row = {
      id: 48213,
      eventType: 'order_filled',
      signature: SIGNATURE,
      slot: '361234567',
      timestamp: 1767300060,
      orderPubkey: ORDER,
      positionPubkey: POSITION,
      marketId: 'POLY-1345531-YES',
      ownerPubkey: OWNER,
      keeperPubkey: KEEPER,
      externalOrderId: 'ext-2',
      orderId: 'order-1906030',
      isBuy: false,
      isYes: true,
      contracts: '14',
      contractsMicro: '14285714',
      contractsDecimal: '14.285714',
      filledContracts: '14',
      filledContractsMicro: '14285714',
      filledContractsDecimal: '14.285714',
      contractsSettled: '0',
      maxFillPriceUsd: '465000',
      avgFillPriceUsd: '610000',
      maxBuyPriceUsd: null,
      minSellPriceUsd: '465000',
      depositAmountUsd: '0',
      totalCostUsd: '9850000',
      feeUsd: '140000',
      grossProceedsUsd: '8714285',
      netProceedsUsd: '8574285',
      transferAmountToken: '8574285',
      realizedPnl: '-1275715',
      realizedPnlBeforeFees: '-1135715',
      payoutAmountUsd: '0',
      eventId: 'POLY-351731',
      marketMetadata: { marketId: 'POLY-1345531-YES', title: 'Bitcoin above $90k?', status: 'open', result: null },
      eventMetadata: { eventId: 'POLY-351731', title: 'Bitcoin price on Dec 31' },
    };

    it('sends the filters and parses signed micro-USD P&L', async () => {
      server.on('GET', `${BASE}/history`, { body: { data: [row, { ...row, id: 48214, eventType: 'order_created', feeUsd: null, realizedPnl: null, transferAmountToken: null }], pagination: { start: 0, end: 2, total: 2, hasNext: true } } });
      const page = await bindPrediction(t).getPredictionHistory({ ownerPubkey: OWNER, positionPubkey: POSITION, start: 0, end: 2 });
      expect(Object.fromEntries(server.requestsTo(`${BASE}/history`, 'GET')[0]!.query)).toEqual({ ownerPubkey: OWNER, positionPubkey: POSITION, start: '0', end: '2' });
      expect(page.pagination.hasNext).toBe(true);
      expect(page.data[0]).toMatchObject({
        slot: 361_234_567n,
        filledContractsMicro: 14_285_714n,
        avgFillPriceUsd: 610_000n,
        feeUsd: 140_000n,
        netProceedsUsd: 8_574_285n,
        realizedPnl: -1_275_715n,
        transferAmountToken: 8_574_285n,
      });
      expect(page.data[1]).toMatchObject({ eventType: 'order_created', feeUsd: null, realizedPnl: null, transferAmountToken: null });
    });

    it('refuses a non-positive id without sending a request', async () => {
      const err = await getPredictionHistory(t, { id: 0 }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('prediction.id.range');
      expect(server.requests).toHaveLength(0);
    });

    it('rejects a row without an owner', async () => {
      const { ownerPubkey: _o, ...noOwner } = row;
      server.on('GET', `${BASE}/history`, { body: { data: [noOwner], pagination: { start: 0, end: 1, total: 1, hasNext: false } } });
      const err = await getPredictionHistory(t, { ownerPubkey: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('data.0.ownerPubkey');
    });
  });
});
