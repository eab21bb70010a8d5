import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { LimitError, SchemaError } from '../../src/jupiter/errors.js';
import { getTriggerOrders } from '../../src/jupiter/trigger/index.js';

const USER = 'jdocuPgEAjMfihABsPgKEvYtsmMzjUHeq9LX4Hvs7f3';
const SOL = 'So11111111111111111111111111111111111111112';
const HELP = 'HeLp6NuQkmYB4pYWo2zYs22mESHXPQYzXbB8n4V98jwC';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

/** The spec's real "history" example (trailing newlines of its YAML block scalars removed). */
const completedOrder = {
  userPubkey: USER,
  orderKey: '99uWTWukow8k7dqcpbYoHxTAWGvn1YkT1VMmnEeTjuDr',
  inputMint: SOL,
  outputMint: HELP,
  makingAmount: '0.05',
  takingAmount: '32.071840924',
  remainingMakingAmount: '0',
  remainingTakingAmount: '0',
  rawMakingAmount: '50000000',
  rawTakingAmount: '32071840924',
  rawRemainingMakingAmount: '0',
  rawRemainingTakingAmount: '0',
  slippageBps: '0',
  expiredAt: null,
  createdAt: '2025-03-17T08:07:25Z',
  updatedAt: '2025-03-17T08:09:37Z',
  status: 'Completed',
  openTx: '466G3XxE4NzxCj136SXe4BSjXzCVBQdvn6RsHMNGN2DGCS9PSceJSACqEWCxx22hsCXcEskvEFdm44wsHCF1auvL',
  closeTx: '3PDo3pMJLqvAfNXwYjY7BSP57ZNQ5DgYDeK6xYszUVMneHzAZBQzsBSskym8uveMoLC4G8N8DjPaLBY726ZsBZvT',
  programVersion: 'j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X',
  trades: [
    {
      orderKey: '99uWTWukow8k7dqcpbYoHxTAWGvn1YkT1VMmnEeTjuDr',
      keeper: 'j1oAbxxiDUWvoHxEDhWE7THLjEkDQW2cSHYn2vttxTF',
      inputMint: SOL,
      outputMint: HELP,
      inputAmount: '0.05',
      outputAmount: '32.071840924',
      rawInputAmount: '50000000',
      rawOutputAmount: '32071840924',
      feeMint: 'DtL4JtjXwsJQndqXyd6ytJSmWDLWLESoXc7MkYNRQF9J',
      feeAmount: '0',
      rawFeeAmount: '0',
      txId: '3PDo3pMJLqvAfNXwYjY7BSP57ZNQ5DgYDeK6xYszUVMneHzAZBQzsBSskym8uveMoLC4G8N8DjPaLBY726ZsBZvT',
      confirmedAt: '2025-03-17T08:09:37Z',
      action: 'Fill',
      productMeta: null,
    },
  ],
};

/** An open order as the service really sends it: `closeTx: ""` (the spec example's null and "open" status are wrong). */
const openOrder = {
  ...completedOrder,
  orderKey: '7nE9GJoYHNmtaQvTQpota3KV2oz4pQ2dA6nvYK8EUJHV',
  inputMint: SOL,
  outputMint: USDC,
  makingAmount: '1.0',
  takingAmount: '200.0',
  remainingMakingAmount: '1.0',
  remainingTakingAmount: '200.0',
  rawMakingAmount: '1000000000',
  rawTakingAmount: '200000000',
  rawRemainingMakingAmount: '1000000000',
  rawRemainingTakingAmount: '200000000',
  slippageBps: '50',
  expiredAt: '1767225600',
  status: 'Open',
  closeTx: '',
  trades: [],
};

describe('listing trigger orders', () => {
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

  describe('when asking for history', () => {
    it('sends the query and parses raw amounts to bigint, keeping UI amounts as decimal strings', async () => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { user: USER, orderStatus: 'history', orders: [completedOrder], totalPages: 1, page: 1 } });
      const page = await getTriggerOrders(t(), { user: USER, orderStatus: 'history', page: 1, includeFailedTx: false, inputMint: SOL });
      const [req] = server.requestsTo('/trigger/v1/getTriggerOrders', 'GET');
      expect(Object.fromEntries(req!.query)).toEqual({ user: USER, orderStatus: 'history', page: '1', includeFailedTx: 'false', inputMint: SOL });
      expect(page.hasMore).toBe(false);
      const order = page.orders[0]!;
      expect(order).toMatchObject({
        status: 'Completed',
        makingAmount: '0.05',
        takingAmount: '32.071840924',
        rawMakingAmount: 50_000_000n,
        rawTakingAmount: 32_071_840_924n,
        rawRemainingMakingAmount: 0n,
        slippageBps: 0,
        expiredAt: null,
        closeTx: completedOrder.closeTx,
      });
      expect(order.trades[0]).toMatchObject({ action: 'Fill', rawInputAmount: 50_000_000n, rawOutputAmount: 32_071_840_924n, rawFeeAmount: 0n });
    });
  });

  describe('when asking for active orders', () => {
    it('turns an empty closeTx into null and says when more pages exist', async () => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { user: USER, orderStatus: 'active', orders: [openOrder], totalPages: 3, page: 1 } });
      const page = await getTriggerOrders(t(), { user: USER, orderStatus: 'active' });
      expect(page.hasMore).toBe(true);
      expect(page.orders[0]).toMatchObject({ status: 'Open', closeTx: null, slippageBps: 50, expiredAt: '1767225600', rawTakingAmount: 200_000_000n, trades: [] });
    });

    it('keeps a status it does not know as is', async () => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { orders: [{ ...openOrder, status: 'PendingCancel' }], totalPages: 1, page: 1 } });
      const page = await getTriggerOrders(t(), { user: USER, orderStatus: 'active' });
      expect(page.orders[0]!.status).toBe('PendingCancel');
    });

    it('tolerates the old format with hasMoreData instead of totalPages', async () => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { user: USER, orderStatus: 'active', orders: [openOrder], hasMoreData: true } });
      const page = await getTriggerOrders(t(), { user: USER, orderStatus: 'active' });
      expect(page.hasMore).toBe(true);
      expect(page.totalPages).toBeUndefined();
    });
  });

  describe('when the body is broken', () => {
    it('names a non-numeric raw amount', async () => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { orders: [{ ...openOrder, rawMakingAmount: '1.5' }], totalPages: 1, page: 1 } });
      const err = await getTriggerOrders(t(), { user: USER, orderStatus: 'active' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('orders.0.rawMakingAmount');
    });
  });

  describe('when the query is wrong', () => {
    it('refuses a bad user address or page without sending', async () => {
      const a = await getTriggerOrders(t(), { user: 'nope', orderStatus: 'active' }).catch((e: unknown) => e);
      const b = await getTriggerOrders(t(), { user: USER, orderStatus: 'active', page: 0 }).catch((e: unknown) => e);
      expect(a).toBeInstanceOf(LimitError);
      expect((a as LimitError).rule).toBe('trigger.user.address');
      expect((b as LimitError).rule).toBe('trigger.page.min');
      expect(server.requests).toHaveLength(0);
    });
  });
});
