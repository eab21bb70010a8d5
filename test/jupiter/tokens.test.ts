import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import {
  bindTokens,
  getRecentTokens,
  getTokensByCategory,
  getTokensByTag,
  searchTokens,
  type TokenCategory,
  type TokenInterval,
  type TokenTag,
} from '../../src/jupiter/tokens/index.js';
import { BadRequestError, LimitError, SchemaError, ServerError } from '../../src/jupiter/errors.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';

/** Real USDC object (jupiter-api.md §4), with the observed undocumented fields and one unknown field. */
const USDC_TOKEN = {
  id: USDC, name: 'USD Coin', symbol: 'USDC', icon: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/logo.png',
  decimals: 6, circSupply: 10387657805.6465, totalSupply: 10387657805.6465, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  mintAuthority: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG', freezeAuthority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar',
  firstPool: { id: '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2', createdAt: '2021-03-29T10:05:48Z' }, holderCount: 4197146,
  fdv: 10387626196.0422, mcap: 10387626196.0422, usdPrice: 0.999996957003698, liquidity: 25241539.3744423,
  stats24h: { priceChange: 0.00288, liquidityChange: 1.385, volumeChange: 91.86, buyVolume: 1536269995.05, sellVolume: 1528228432.17,
    buyOrganicVolume: 72625078.33, sellOrganicVolume: 67297123.94, numBuys: 2045547, numSells: 2119116, numTraders: 123111,
    numOrganicBuyers: 10824, numNetBuyers: 20153 },
  audit: { topHoldersPercentage: 42.1893635408922 }, organicScore: 100, organicScoreLabel: 'high', ctLikes: 14, smartCtLikes: 3,
  isVerified: true, cexes: ['Binance', 'Bybit'], tags: ['community', 'strict', 'verified'], updatedAt: '2025-05-05T21:50:25.173880359Z',
  someFutureField: { x: 1 },
};

/** The spec's JUP search example (tokens-v2.yaml), with nulls where the service sends them. */
const JUP_TOKEN = {
  id: JUP, name: 'Jupiter', symbol: 'JUP', icon: 'https://static.jup.ag/jup/icon.png', decimals: 6,
  tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', createdAt: '2024-06-07T10:56:42.584Z',
  twitter: 'https://twitter.com/JupiterExchange', telegram: null, website: 'https://jup.ag', dev: 'JUPhop9E8ZfdJ5FNHhxQt4uAih822Vs4QpqsWcewFbq',
  circSupply: 3243891294.88, totalSupply: 6863982654.38, launchpad: null, graduatedPool: null,
  firstPool: { id: '2pspvjWWaf3dNgt3jsgSzFCNvMGPb7t8FrEYvLGjvcCe', createdAt: '2024-01-29T17:33:29Z' }, holderCount: 857254,
  audit: { mintAuthorityDisabled: true, freezeAuthorityDisabled: true, topHoldersPercentage: 15.45, devMints: 1 },
  organicScore: 97.98, organicScoreLabel: 'high', isVerified: true, tags: ['community', 'strict', 'verified'],
  fdv: 971593450.82, mcap: 459171256.1, usdPrice: 0.1415, priceBlockId: 402118601, liquidity: 2992387.89, apy: null,
  stats5m: null, stats1h: { priceChange: null, numBuys: 120 },
  stats24h: { priceChange: -8.27, holderChange: -0.03, liquidityChange: -6.96, volumeChange: 30.39, buyVolume: 1821969.64,
    sellVolume: 2016195.15, numBuys: 33979, numSells: 31608, numTraders: 5174 },
  updatedAt: '2026-02-23T04:55:12.461Z',
};

/** A distinct, valid base58 mint address for index i. */
const mintAt = (i: number): string => bs58.encode(Uint8Array.from({ length: 32 }, (_, j) => (i * 11 + j * 17 + 3) % 256));
/** A minimal token object for a mint, as /search returns for mints it knows. */
const tokenFor = (id: string) => ({ id, name: `Token ${id.slice(0, 4)}`, symbol: id.slice(0, 4).toUpperCase(), decimals: 6, usdPrice: null });

describe('the Tokens V2 endpoints', () => {
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

  describe('tokens.search (GET /tokens/v2/search)', () => {
    it('sends free text as is and parses the tokens, keeping observed extra fields and dropping unknown ones', async () => {
      server.on('GET', '/tokens/v2/search', { body: [USDC_TOKEN, JUP_TOKEN] });
      const tokens = await searchTokens(testTransport(server.url), { query: 'usd coin' });
      const [req] = server.requestsTo('/tokens/v2/search', 'GET');
      expect(req!.query.get('query')).toBe('usd coin');
      expect(tokens).toHaveLength(2);
      const usdc = tokens[0]!;
      expect(usdc).toMatchObject({ id: USDC, symbol: 'USDC', decimals: 6, organicScore: 100, ctLikes: 14, cexes: ['Binance', 'Bybit'] });
      expect(usdc.stats24h?.numBuys).toBe(2045547);
      expect(usdc.audit?.topHoldersPercentage).toBeCloseTo(42.189, 3);
      expect(usdc.audit?.isSus).toBeUndefined();
      expect(usdc).not.toHaveProperty('someFutureField');
      const jup = tokens[1]!;
      expect(jup.telegram).toBeNull();
      expect(jup.stats5m).toBeNull();
      expect(jup.stats1h).toEqual({ priceChange: null, numBuys: 120 });
      expect(jup.audit).toEqual({ mintAuthorityDisabled: true, freezeAuthorityDisabled: true, topHoldersPercentage: 15.45, devMints: 1 });
    });

    it('returns [] when nothing matches', async () => {
      server.on('GET', '/tokens/v2/search', { body: [] });
      await expect(searchTokens(testTransport(server.url), { query: 'zzzz-no-such-token' })).resolves.toEqual([]);
    });

    it('sends a comma-separated mint string in one request when it holds at most 100 mints', async () => {
      server.on('GET', '/tokens/v2/search', { body: [JUP_TOKEN, USDC_TOKEN] });
      const tokens = await bindTokens(testTransport(server.url)).searchTokens({ query: `${USDC}, ${JUP},${USDC}` });
      const reqs = server.requestsTo('/tokens/v2/search');
      expect(reqs).toHaveLength(1);
      expect(reqs[0]!.query.get('query')).toBe(`${USDC},${JUP}`);
      expect(tokens.map((t) => t.id)).toEqual([JUP, USDC]);
    });

    it('splits 250 mints into batches of 100 and merges the results, each token once', async () => {
      server.on('GET', '/tokens/v2/search', (req: RecordedRequest) => {
        const ids = req.query.get('query')!.split(',');
        // The service answers SOL for every batch here, to show the merge keeps one copy.
        return { body: [...ids.map(tokenFor), { id: SOL, name: 'Wrapped SOL', symbol: 'SOL', decimals: 9 }] };
      });
      const mints = Array.from({ length: 250 }, (_, i) => mintAt(i));
      expect(new Set(mints).size).toBe(250);
      const tokens = await searchTokens(testTransport(server.url), { query: [...mints, mints[0]!] });
      const batches = server.requestsTo('/tokens/v2/search').map((r) => r.query.get('query')!.split(','));
      expect(batches.map((b) => b.length).sort((a, b) => b - a)).toEqual([100, 100, 50]);
      expect(new Set(batches.flat())).toEqual(new Set(mints));
      expect(tokens).toHaveLength(251);
      expect(tokens.filter((t) => t.id === SOL)).toHaveLength(1);
    });

    it('throws a LimitError and sends nothing when a listed mint is not an address', async () => {
      const err = await searchTokens(testTransport(server.url), { query: [USDC, 'not-a-mint'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('tokens.search.mints.address');
      expect(server.requests).toHaveLength(0);
    });

    it('throws a LimitError and sends nothing for an empty query', async () => {
      const err = await searchTokens(testTransport(server.url), { query: '   ' }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('tokens.search.query.empty');
      expect(server.requests).toHaveLength(0);
    });

    it('fails with a SchemaError naming the field when a token lacks decimals', async () => {
      const { decimals: _d, ...noDecimals } = JUP_TOKEN;
      server.on('GET', '/tokens/v2/search', { body: [USDC_TOKEN, noDecimals] });
      const err = await searchTokens(testTransport(server.url), { query: 'jup' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['1.decimals']);
    });

    it('fails with a SchemaError when a token id is not a mint address', async () => {
      server.on('GET', '/tokens/v2/search', { body: [{ ...JUP_TOKEN, id: 'TokenMintAddressExample111111111111111111111' }] });
      const err = await searchTokens(testTransport(server.url), { query: 'jup' }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['0.id']);
    });

    it('maps HTTP 400 {error} to BadRequestError', async () => {
      server.on('GET', '/tokens/v2/search', { status: 400, body: { error: 'query is required' } });
      const err = await searchTokens(testTransport(server.url), { query: 'x' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).message).toContain('query is required');
    });
  });

  describe('tokens.tag (GET /tokens/v2/tag)', () => {
    it('sends the tag as query and parses the list', async () => {
      server.on('GET', '/tokens/v2/tag', { body: [{ id: SOL, name: 'Wrapped SOL', symbol: 'SOL', decimals: 9, isVerified: true, tags: ['verified'] }, USDC_TOKEN] });
      const tokens = await getTokensByTag(testTransport(server.url), { tag: 'verified' });
      const [req] = server.requestsTo('/tokens/v2/tag', 'GET');
      expect(req!.query.get('query')).toBe('verified');
      expect(tokens.map((t) => t.symbol)).toEqual(['SOL', 'USDC']);
      expect(tokens[0]!.usdPrice).toBeUndefined();
    });

    it('throws a LimitError for an undocumented tag and sends nothing', async () => {
      const err = await getTokensByTag(testTransport(server.url), { tag: 'memes' as TokenTag }).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe('tokens.tag.query.enum');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('tokens.category (GET /tokens/v2/{category}/{interval})', () => {
    it('puts category and interval in the path and sends the limit', async () => {
      server.on('GET', '/tokens/v2/toptraded/1h', { body: [JUP_TOKEN] });
      const tokens = await getTokensByCategory(testTransport(server.url), { category: 'toptraded', interval: '1h', limit: 10 });
      const [req] = server.requestsTo('/tokens/v2/toptraded/1h', 'GET');
      expect(req!.query.get('limit')).toBe('10');
      expect(tokens[0]!.stats24h?.volumeChange).toBe(30.39);
    });

    it('leaves the limit out when not given', async () => {
      server.on('GET', '/tokens/v2/toporganicscore/24h', { body: [] });
      await getTokensByCategory(testTransport(server.url), { category: 'toporganicscore', interval: '24h' });
      expect(server.requestsTo('/tokens/v2/toporganicscore/24h')[0]!.query.has('limit')).toBe(false);
    });

    it.each([0, 101, 2.5])('throws a LimitError for limit %s and sends nothing', async (limit) => {
      const err = await getTokensByCategory(testTransport(server.url), { category: 'toptrending', interval: '5m', limit }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('tokens.category.limit.range');
      expect(server.requests).toHaveLength(0);
    });

    it('throws a LimitError for an unknown category or interval', async () => {
      const t = testTransport(server.url);
      const badCategory = await getTokensByCategory(t, { category: 'topmemes' as TokenCategory, interval: '1h' }).catch((e: unknown) => e);
      const badInterval = await getTokensByCategory(t, { category: 'toptraded', interval: '7d' as TokenInterval }).catch((e: unknown) => e);
      expect((badCategory as LimitError).rule).toBe('tokens.category.category.enum');
      expect((badInterval as LimitError).rule).toBe('tokens.category.interval.enum');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('tokens.recent (GET /tokens/v2/recent)', () => {
    // The spec example's mint ("TokenMintAddressExample…") is not base58; a real-looking mint replaces it.
    const NEW_TOKEN = {
      id: '9BB6NFEcjBCtnNLFko2FqVQBq8HHM13kCyYcdQbgpump', name: 'New Token', symbol: 'NEW', decimals: 6, holderCount: 150,
      usdPrice: 0.001, liquidity: 5000, organicScore: 20, organicScoreLabel: 'low', isVerified: false,
      firstPool: { id: '7yW4ANqGg2DxyzGaGVWw1wjY7iq5Uc9ZwFqRrW8CJBkp', createdAt: '2025-03-15T10:30:00.000Z' },
      bondingCurve: 42.5, launchpad: 'pump.fun',
    };

    it('parses the recently listed tokens', async () => {
      server.on('GET', '/tokens/v2/recent', { body: [NEW_TOKEN] });
      const tokens = await getRecentTokens(testTransport(server.url));
      expect(server.requestsTo('/tokens/v2/recent', 'GET')).toHaveLength(1);
      expect(tokens).toEqual([NEW_TOKEN]);
    });

    it('retries a 500 and reports a ServerError when it persists', async () => {
      server.on('GET', '/tokens/v2/recent', { status: 500, body: { error: 'Internal server error' } });
      const err = await bindTokens(testTransport(server.url)).getRecentTokens().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ServerError);
      expect(server.requestsTo('/tokens/v2/recent')).toHaveLength(3);
    });
  });
});
