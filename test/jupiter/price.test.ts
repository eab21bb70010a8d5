import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { bindPrice, getPrices, PRICE_IDS_PER_REQUEST } from '../../src/jupiter/price/index.js';
import { BadRequestError, LimitError, SchemaError } from '../../src/jupiter/errors.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const UNKNOWN = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';

/** The documented /price/v3 example (jupiter-api.md §3). */
const PRICES = {
  [SOL]: { createdAt: '2024-06-05T08:55:25.527Z', liquidity: 621679197.67, usdPrice: 147.48, blockId: 348004023, decimals: 9, priceChange24h: 1.29 },
  [USDC]: { createdAt: '2024-06-05T08:55:25.527Z', liquidity: 522175174.66, usdPrice: 0.9999, blockId: 348004025, decimals: 6, priceChange24h: -0.003 },
};

/** A distinct, valid base58 mint address for index i. */
const mintAt = (i: number): string => bs58.encode(Uint8Array.from({ length: 32 }, (_, j) => (i * 7 + j * 13 + 1) % 256));

/** Prices every requested id, as the service would for mints it knows. */
const priceEveryId = (req: RecordedRequest) => ({
  body: Object.fromEntries(
    (req.query.get('ids') ?? '').split(',').map((id, n) => [id, { usdPrice: n + 1, blockId: 1, decimals: 6, priceChange24h: null, createdAt: '2025-01-01T00:00:00Z', liquidity: 1000 }]),
  ),
});

describe('price.getPrices (GET /price/v3)', () => {
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

  describe('when every mint is priced', () => {
    it('returns the parsed prices keyed by mint and sends the ids comma-separated', async () => {
      server.on('GET', '/price/v3', { body: PRICES });
      const prices = await getPrices(testTransport(server.url), { ids: [SOL, USDC] });
      expect(prices[SOL]).toEqual(PRICES[SOL]);
      expect(prices[USDC]!.usdPrice).toBe(0.9999);
      expect(prices[USDC]!.decimals).toBe(6);
      const [req] = server.requestsTo('/price/v3', 'GET');
      expect(req!.query.get('ids')).toBe(`${SOL},${USDC}`);
    });

    it('accepts the 2025 shape without createdAt and liquidity, and a null blockId', async () => {
      server.on('GET', '/price/v3', { body: { [SOL]: { usdPrice: 147.48, blockId: null, decimals: 9, priceChange24h: null } } });
      const prices = await bindPrice(testTransport(server.url)).getPrices({ ids: [SOL] });
      expect(prices[SOL]).toEqual({ usdPrice: 147.48, blockId: null, decimals: 9, priceChange24h: null });
    });
  });

  describe('when the service does not price a mint', () => {
    it('leaves an omitted mint out of the result', async () => {
      server.on('GET', '/price/v3', { body: { [SOL]: PRICES[SOL] } });
      const prices = await getPrices(testTransport(server.url), { ids: [SOL, UNKNOWN] });
      expect(Object.keys(prices)).toEqual([SOL]);
      expect(prices[UNKNOWN]).toBeUndefined();
    });

    it('drops a mint whose value is null', async () => {
      server.on('GET', '/price/v3', { body: { [SOL]: PRICES[SOL], [UNKNOWN]: null } });
      const prices = await getPrices(testTransport(server.url), { ids: [SOL, UNKNOWN] });
      expect(Object.keys(prices)).toEqual([SOL]);
    });
  });

  describe('when more than 50 mints are asked for', () => {
    it('sends exactly 3 requests for 120 distinct mints, at most 50 ids each, and merges the results', async () => {
      server.on('GET', '/price/v3', priceEveryId);
      const ids = Array.from({ length: 120 }, (_, i) => mintAt(i));
      expect(new Set(ids).size).toBe(120);
      const prices = await getPrices(testTransport(server.url), { ids });
      const reqs = server.requestsTo('/price/v3', 'GET');
      expect(reqs).toHaveLength(3);
      const sent = reqs.map((r) => r.query.get('ids')!.split(','));
      for (const batch of sent) expect(batch.length).toBeLessThanOrEqual(PRICE_IDS_PER_REQUEST);
      expect(sent.map((b) => b.length).sort((a, b) => b - a)).toEqual([50, 50, 20]);
      expect(new Set(sent.flat())).toEqual(new Set(ids));
      expect(Object.keys(prices).sort()).toEqual([...ids].sort());
    });

    it('removes duplicates before batching', async () => {
      server.on('GET', '/price/v3', priceEveryId);
      const distinct = Array.from({ length: 50 }, (_, i) => mintAt(i));
      const prices = await getPrices(testTransport(server.url), { ids: [...distinct, ...distinct, distinct[0]!] });
      const reqs = server.requestsTo('/price/v3', 'GET');
      expect(reqs).toHaveLength(1);
      expect(reqs[0]!.query.get('ids')!.split(',')).toEqual(distinct);
      expect(Object.keys(prices)).toHaveLength(50);
    });
  });

  describe('when an id is not a mint address', () => {
    it('throws a LimitError and sends no request', async () => {
      server.on('GET', '/price/v3', { body: PRICES });
      const err = await getPrices(testTransport(server.url), { ids: [SOL, 'SOL'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('price.ids.address');
      expect(server.requests).toHaveLength(0);
    });

    it('throws a LimitError for an empty list', async () => {
      const err = await getPrices(testTransport(server.url), { ids: [] }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('price.ids.empty');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when a price breaks the schema', () => {
    it('names <mint>.usdPrice when the price is a string', async () => {
      server.on('GET', '/price/v3', { body: { [SOL]: { ...PRICES[SOL], usdPrice: '147.48' } } });
      const err = await getPrices(testTransport(server.url), { ids: [SOL] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual([`${SOL}.usdPrice`]);
      expect((err as SchemaError).message).toContain('price.get');
    });

    it('names <mint>.decimals when decimals is missing', async () => {
      const { decimals: _decimals, ...noDecimals } = PRICES[USDC];
      server.on('GET', '/price/v3', { body: { [SOL]: PRICES[SOL], [USDC]: noDecimals } });
      const err = await getPrices(testTransport(server.url), { ids: [SOL, USDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual([`${USDC}.decimals`]);
    });
  });

  describe('when the service rejects the request', () => {
    it('maps HTTP 400 to BadRequestError without retrying', async () => {
      server.on('GET', '/price/v3', { status: 400, body: { error: 'Invalid ids' } });
      const err = await getPrices(testTransport(server.url), { ids: [SOL] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect(server.requestsTo('/price/v3')).toHaveLength(1);
    });
  });
});
