import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { LimitError, NotFoundError, SchemaError, ServerError } from '../../src/jupiter/errors.js';
import type { JupiterTransport } from '../../src/jupiter/transport.js';
import {
  bindPrediction,
  getEvent,
  getEvents,
  getMarket,
  getOrderbook,
  getTradingStatus,
  searchEvents,
} from '../../src/jupiter/prediction/index.js';

const BASE = '/prediction/v1';

/** A market in the flat 2026 shape (jupiter-api.md §8). */
const flatMarket = (over: Record<string, unknown> = {}) => ({
  marketId: 'POLY-1345531-YES',
  eventId: 'POLY-351731',
  provider: 'polymarket',
  title: 'Bitcoin above $90k on Dec 31?',
  status: 'open',
  result: null,
  openTime: 1767225600,
  closeTime: 1798761600,
  resolveAt: null,
  marketResultPubkey: null,
  imageUrl: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/btc.png',
  rulesPrimary: 'Resolves YES if ...',
  rulesSecondary: '',
  outcomes: ['Yes', 'No'],
  marketOptions: [{ label: 'Yes', buyYes: true }],
  clobTokenIds: ['7177'],
  isTeamMarket: false,
  team: null,
  sportsLine: null,
  sportsMarketType: null,
  pricing: { buyYesPriceUsd: 650000, buyNoPriceUsd: 380000, sellYesPriceUsd: 620000, sellNoPriceUsd: 350000, volume: 450000 },
  ...over,
});

/** The same market in the February 2026 shape, with a nested `metadata`. */
const nestedMarket = (over: Record<string, unknown> = {}) => ({
  marketId: 'KXF1-25-LN',
  status: 'open',
  result: null,
  openTime: 1767225600,
  closeTime: 1798761600,
  resolveAt: null,
  settlementTime: null,
  metadata: {
    marketId: 'KXF1-25-LN',
    eventId: 'KXF1-25',
    title: 'Lando Norris wins the 2025 F1 title?',
    subtitle: '',
    status: 'open',
    result: null,
    closeTime: 1798761600,
    openTime: 1767225600,
    isTradable: false,
    rulesPrimary: 'Resolves YES if ...',
  },
  pricing: { buyYesPriceUsd: '420000', buyNoPriceUsd: '590000', sellYesPriceUsd: null, sellNoPriceUsd: null, volume: 1200 },
  ...over,
});

const event = (markets: unknown[]) => ({
  eventId: 'POLY-351731',
  isActive: true,
  isLive: false,
  category: 'crypto',
  subcategory: 'bitcoin',
  tags: ['bitcoin', 'price'],
  metadata: {
    eventId: 'POLY-351731',
    title: 'Bitcoin price on Dec 31',
    subtitle: '',
    slug: 'bitcoin-price-dec-31',
    series: 'btc',
    closeTime: '2026-12-31T00:00:00Z',
    imageUrl: 'https://polymarket-upload.s3.us-east-2.amazonaws.com/btc.png',
    isLive: false,
  },
  markets,
  volumeUsd: '1523000000',
  volume24hr: '25000000',
  liveScore: null,
  closeCondition: 'Resolves at close',
  beginAt: '1767225600',
  rulesPdf: 'https://example.org/rules.pdf',
});

const pagination = { start: 0, end: 1, total: 1, hasNext: false };

describe('the prediction discovery endpoints', () => {
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

  describe('when listing events', () => {
    it('sends the filters as query parameters and parses markets, volumes and pagination', async () => {
      server.on('GET', `${BASE}/events`, { body: { data: [event([flatMarket()])], pagination } });
      const page = await getEvents(t, {
        provider: 'polymarket',
        includeMarkets: true,
        category: 'crypto',
        filter: 'trending',
        sortBy: 'volume',
        sortDirection: 'desc',
        tags: ['bitcoin', 'price'],
        start: 0,
        end: 20,
      });
      const [req] = server.requestsTo(`${BASE}/events`, 'GET');
      expect(Object.fromEntries(req!.query)).toEqual({
        provider: 'polymarket',
        includeMarkets: 'true',
        category: 'crypto',
        filter: 'trending',
        sortBy: 'volume',
        sortDirection: 'desc',
        tags: 'bitcoin,price',
        start: '0',
        end: '20',
      });
      expect(page.pagination).toEqual(pagination);
      const ev = page.data[0]!;
      expect(ev.volumeUsd).toBe(1_523_000_000n);
      expect(ev.volume24hr).toBe(25_000_000n);
      expect(ev.beginAt).toBe(1767225600);
      expect(ev.markets[0]).toMatchObject({
        marketId: 'POLY-1345531-YES',
        eventId: 'POLY-351731',
        title: 'Bitcoin above $90k on Dec 31?',
        status: 'open',
        result: null,
        isTradable: true,
        closeTime: 1798761600,
        shape: 'flat',
        pricing: { buyYesPriceUsd: 650_000n, buyNoPriceUsd: 380_000n, sellYesPriceUsd: 620_000n, sellNoPriceUsd: 350_000n, volume: 450000 },
      });
    });

    it('normalises the older nested-metadata market shape to the same flat type', async () => {
      server.on('GET', `${BASE}/events`, { body: { data: [event([nestedMarket(), flatMarket({ status: 'closed', result: 'yes' })])], pagination } });
      const page = await getEvents(t, { includeMarkets: true });
      const [nested, closed] = page.data[0]!.markets;
      expect(nested).toMatchObject({
        marketId: 'KXF1-25-LN',
        eventId: 'KXF1-25',
        title: 'Lando Norris wins the 2025 F1 title?',
        status: 'open',
        result: null,
        isTradable: false,
        closeTime: 1798761600,
        shape: 'nested',
        pricing: { buyYesPriceUsd: 420_000n, buyNoPriceUsd: 590_000n, sellYesPriceUsd: null, sellNoPriceUsd: null },
      });
      expect(closed).toMatchObject({ status: 'closed', result: 'yes', isTradable: false });
    });

    it('gives an empty market list when markets were not requested', async () => {
      const { markets: _omit, ...bare } = event([]);
      server.on('GET', `${BASE}/events`, { body: { data: [bare], pagination } });
      const page = await getEvents(t);
      expect(page.data[0]!.markets).toEqual([]);
    });

    it('rejects a price that is not an integer number of micro-USD, naming the field', async () => {
      server.on('GET', `${BASE}/events`, { body: { data: [event([flatMarket({ pricing: { buyYesPriceUsd: '0.65', buyNoPriceUsd: null, sellYesPriceUsd: null, sellNoPriceUsd: null, volume: 1 } })])], pagination } });
      const err = await getEvents(t).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).endpoint).toBe('prediction.getEvents');
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('data.0.markets.0.pricing.buyYesPriceUsd');
    });

    it('rejects a price beyond 2^53 that lost precision in JSON', async () => {
      server.on('GET', `${BASE}/events`, { raw: JSON.stringify({ data: [event([flatMarket()])], pagination }).replace('650000', '9007199254740993') });
      const err = await getEvents(t).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.some((i) => i.path === 'data.0.markets.0.pricing.buyYesPriceUsd')).toBe(true);
    });

    it('refuses an unknown category without sending a request', async () => {
      const err = await getEvents(t, { category: 'weather' as never }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('prediction.category.allowed');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when searching events', () => {
    it('sends the query and limit and parses the events', async () => {
      server.on('GET', `${BASE}/events/search`, { body: { data: [event([flatMarket()])] } });
      const res = await searchEvents(t, { query: 'bitcoin', limit: 5 });
      const [req] = server.requestsTo(`${BASE}/events/search`);
      expect(req!.query.get('query')).toBe('bitcoin');
      expect(req!.query.get('limit')).toBe('5');
      expect(res.data[0]!.markets[0]!.pricing.buyYesPriceUsd).toBe(650_000n);
      expect(res.pagination).toBeUndefined();
    });

    it.each([
      [{ query: '' }, 'prediction.search.query.length'],
      [{ query: 'x'.repeat(201) }, 'prediction.search.query.length'],
      [{ query: 'btc', limit: 0 }, 'prediction.search.limit.range'],
      [{ query: 'btc', limit: 21 }, 'prediction.search.limit.range'],
    ])('refuses %j before sending anything', async (params, rule) => {
      const err = await searchEvents(t, params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });

    it('accepts the boundaries: 200 characters and limit 20', async () => {
      server.on('GET', `${BASE}/events/search`, { body: { data: [] } });
      await expect(searchEvents(t, { query: 'y'.repeat(200), limit: 20 })).resolves.toEqual({ data: [] });
    });
  });

  describe('when fetching one event', () => {
    it('encodes the id in the path and parses the event', async () => {
      server.on('GET', `${BASE}/events/:eventId`, { body: event([nestedMarket()]) });
      const ev = await getEvent(t, { eventId: 'POLY-351731', includeMarkets: true });
      const [req] = server.requestsTo(`${BASE}/events/POLY-351731`);
      expect(req!.query.get('includeMarkets')).toBe('true');
      expect(ev.eventId).toBe('POLY-351731');
      expect(ev.markets[0]!.marketId).toBe('KXF1-25-LN');
    });

    it('maps a 404 ErrorResponse to NotFoundError', async () => {
      server.on('GET', `${BASE}/events/:eventId`, {
        status: 404,
        body: { type: 'invalid_request_error', message: 'Event not found', code: 'event_not_found', request_id: 'req_123' },
      });
      const err = await getEvent(t, { eventId: 'POLY-0' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(NotFoundError);
      expect((err as NotFoundError).message).toContain('Event not found');
      expect(server.requestsTo(`${BASE}/events/POLY-0`)).toHaveLength(1);
    });
  });

  describe('when fetching one market', () => {
    it('parses the flat shape with Forecast fields', async () => {
      server.on('GET', `${BASE}/markets/:marketId`, {
        body: flatMarket({ provider: 'bisonfi', tradable: false, lifecycleStatus: 'resolving', outcomeMint: 'B6i3jk5NkXtiifCxtckWSkG3LPJG3varfjDBEyjVjrof', outcomeSide: 'up' }),
      });
      const m = await getMarket(t, { marketId: 'POLY-1345531-YES' });
      expect(server.requestsTo(`${BASE}/markets/POLY-1345531-YES`, 'GET')).toHaveLength(1);
      expect(m).toMatchObject({ provider: 'bisonfi', status: 'open', isTradable: false, lifecycleStatus: 'resolving', outcomeSide: 'up' });
    });

    it('parses the nested shape and tolerates an unknown status', async () => {
      server.on('GET', `${BASE}/markets/:marketId`, { body: nestedMarket({ status: 'paused', metadata: { ...nestedMarket().metadata, status: 'paused', isTradable: true } }) });
      const m = await getMarket(t, { marketId: 'KXF1-25-LN' });
      expect(m).toMatchObject({ status: 'paused', isTradable: false, title: 'Lando Norris wins the 2025 F1 title?' });
    });

    it('rejects a market with no marketId in either shape', async () => {
      const { marketId: _a, ...noId } = nestedMarket();
      const { marketId: _b, ...metaNoId } = nestedMarket().metadata;
      server.on('GET', `${BASE}/markets/:marketId`, { body: { ...noId, metadata: metaNoId } });
      const err = await getMarket(t, { marketId: 'KXF1-25-LN' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('marketId');
    });

    it('reads a result of "pending" (seen in January 2026) as pending, in either market shape', async () => {
      server.on('GET', `${BASE}/markets/:marketId`, { body: flatMarket({ status: 'closed', result: 'pending' }) });
      expect(await getMarket(t, { marketId: 'POLY-1345531-YES' })).toMatchObject({ status: 'closed', result: 'pending' });
      const nested = nestedMarket();
      server.on('GET', `${BASE}/markets/:marketId`, { body: { ...nested, metadata: { ...nested.metadata, result: 'pending' } } });
      expect((await getMarket(t, { marketId: 'KXF1-25-LN' })).result).toBe('pending');
    });

    it('rejects a result other than yes, no, pending or null', async () => {
      server.on('GET', `${BASE}/markets/:marketId`, { body: flatMarket({ status: 'closed', result: 'maybe' }) });
      const err = await getMarket(t, { marketId: 'POLY-1345531-YES' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('result');
    });
  });

  describe('when fetching an orderbook', () => {
    it('parses cent levels and exact micro-USD levels', async () => {
      server.on('GET', `${BASE}/orderbook/:marketId`, {
        body: { yes: [[1, 346014], [65, 120.5]], no: [[35, 219]], yes_dollars: [['0.0100', 346014], ['0.6500', 120.5]], no_dollars: [['0.3500', 219]] },
      });
      const book = await getOrderbook(t, { marketId: 'KXF1-25-LN' });
      expect(server.requestsTo(`${BASE}/orderbook/KXF1-25-LN`)).toHaveLength(1);
      expect(book).toEqual({
        yes: [{ priceCents: 1, size: 346014 }, { priceCents: 65, size: 120.5 }],
        no: [{ priceCents: 35, size: 219 }],
        yes_dollars: [{ priceMicroUsd: 10_000n, size: 346014 }, { priceMicroUsd: 650_000n, size: 120.5 }],
        no_dollars: [{ priceMicroUsd: 350_000n, size: 219 }],
      });
    });

    it('returns null when the service has no book', async () => {
      server.on('GET', `${BASE}/orderbook/:marketId`, { body: null });
      await expect(getOrderbook(t, { marketId: 'KXF1-25-LN' })).resolves.toBeNull();
    });

    it('reports an upstream 502 as ServerError after the retries', async () => {
      server.on('GET', `${BASE}/orderbook/:marketId`, { status: 502, body: { type: 'api_error', message: 'Failed to fetch orderbook data', request_id: 'r' } });
      const err = await getOrderbook(t, { marketId: 'KXF1-25-LN' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(server.requestsTo(`${BASE}/orderbook/KXF1-25-LN`)).toHaveLength(3);
    });
  });

  describe('when asking whether trading is open', () => {
    it('returns trading_active', async () => {
      server.on('GET', `${BASE}/trading-status`, { body: { trading_active: true } });
      await expect(getTradingStatus(t)).resolves.toEqual({ trading_active: true });
      await expect(bindPrediction(t).getTradingStatus()).resolves.toEqual({ trading_active: true });
      expect(server.requestsTo(`${BASE}/trading-status`, 'GET')).toHaveLength(2);
    });

    it('rejects a body without trading_active', async () => {
      server.on('GET', `${BASE}/trading-status`, { body: { tradingActive: true } });
      const err = await getTradingStatus(t).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe('trading_active');
    });
  });
});
