import bs58 from 'bs58';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import {
  bindTokens,
  CONTENT_SUMMARIES_PATH,
  getContent,
  getContentFeed,
  getContentSummaries,
  getCookingContent,
} from '../../src/jupiter/tokens/index.js';
import { LimitError, SchemaError, ServerError } from '../../src/jupiter/errors.js';

const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const SOL = 'So11111111111111111111111111111111111111112';

const TWEET = {
  contentId: 'c6f1b2a0-3c1e-4d8e-9a55-0d0b6a1f2e10',
  content: 'https://x.com/JupiterExchange/status/1890000000000000000',
  contentType: 'tweet',
  status: 'approved',
  source: 'x.com',
  submittedAt: '2026-02-20T09:12:44.000Z',
  submittedBy: { id: 'u_81', username: 'kash', role: 'verifier' },
  updatedAt: null,
  updatedBy: { id: null, username: null, role: null },
  postedAt: '2026-02-20T08:58:00.000Z',
};
const TEXT = { ...TWEET, contentId: 'a1', content: 'Jupiter DAO vote #12 passed.', contentType: 'text', source: null, postedAt: null };
const SUMMARY = {
  summaryFull: 'Jupiter is the main swap aggregator on Solana; JUP is its governance token.',
  summaryShort: 'Solana swap aggregator governance token.',
  updatedAt: '2026-02-22T00:00:00.000Z',
  citations: ['https://jup.ag', 'https://x.com/JupiterExchange'],
};
const JUP_ENTRY = { mint: JUP, contents: [TWEET, TEXT], tokenSummary: SUMMARY, newsSummary: null };

const mintAt = (i: number): string => bs58.encode(Uint8Array.from({ length: 32 }, (_, j) => (i * 5 + j * 29 + 7) % 256));
const entriesFor = (req: RecordedRequest) => ({
  body: { data: req.query.get('mints')!.split(',').map((mint) => ({ mint, contents: [], tokenSummary: null, newsSummary: null })) },
});

describe('the Content endpoints (/tokens/v2/content*)', () => {
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

  describe('tokens.cooking (GET /tokens/v2/content/cooking)', () => {
    it('returns {data: TokenContentEntry[]} with items, summaries and null users', async () => {
      server.on('GET', '/tokens/v2/content/cooking', { body: { data: [JUP_ENTRY] } });
      const res = await getCookingContent(testTransport(server.url));
      expect(server.requestsTo('/tokens/v2/content/cooking', 'GET')).toHaveLength(1);
      expect(res.data).toHaveLength(1);
      const entry = res.data[0]!;
      expect(entry.mint).toBe(JUP);
      expect(entry.contents.map((c) => c.contentType)).toEqual(['tweet', 'text']);
      expect(entry.contents[0]!.updatedBy).toEqual({ id: null, username: null, role: null });
      expect(entry.tokenSummary?.citations).toHaveLength(2);
      expect(entry.newsSummary).toBeNull();
    });

    it('fails with a SchemaError naming the field when an entry lacks contents', async () => {
      server.on('GET', '/tokens/v2/content/cooking', { body: { data: [{ mint: JUP, tokenSummary: null, newsSummary: null }] } });
      const err = await bindTokens(testTransport(server.url)).getCookingContent().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['data.0.contents']);
    });

    it('reports a persistent 500 {error} as a ServerError', async () => {
      server.on('GET', '/tokens/v2/content/cooking', { status: 500, body: { error: 'Failed to fetch content' } });
      await expect(getCookingContent(testTransport(server.url))).rejects.toBeInstanceOf(ServerError);
    });
  });

  describe('tokens.content (GET /tokens/v2/content)', () => {
    it('sends the mints comma-separated and parses each mint content', async () => {
      server.on('GET', '/tokens/v2/content', { body: { data: [JUP_ENTRY, { mint: SOL, contents: [], tokenSummary: null, newsSummary: null }] } });
      const res = await getContent(testTransport(server.url), { mints: [JUP, SOL, JUP] });
      expect(server.requestsTo('/tokens/v2/content')[0]!.query.get('mints')).toBe(`${JUP},${SOL}`);
      expect(res.data.map((e) => e.mint)).toEqual([JUP, SOL]);
      expect(res.data[0]!.contents[1]!.content).toBe('Jupiter DAO vote #12 passed.');
    });

    it('splits 60 mints into a request of 50 and one of 10, concatenating the data', async () => {
      server.on('GET', '/tokens/v2/content', entriesFor);
      const mints = Array.from({ length: 60 }, (_, i) => mintAt(i));
      const res = await getContent(testTransport(server.url), { mints });
      const sizes = server.requestsTo('/tokens/v2/content').map((r) => r.query.get('mints')!.split(',').length);
      expect(sizes).toEqual([50, 10]);
      expect(res.data.map((e) => e.mint)).toEqual(mints);
    });

    it('throws a LimitError and sends nothing when a mint is not an address', async () => {
      const err = await getContent(testTransport(server.url), { mints: ['JUP'] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('tokens.content.mints.address');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('tokens.contentFeed (GET /tokens/v2/content/feed)', () => {
    it('sends mint, page and limit and parses the page', async () => {
      server.on('GET', '/tokens/v2/content/feed', {
        body: { data: { contents: [TWEET], tokenSummary: SUMMARY, newsSummary: SUMMARY, pagination: { limit: 1, total: 2, page: 2, totalPages: 2 } } },
      });
      const feed = await getContentFeed(testTransport(server.url), { mint: JUP, page: 2, limit: 1 });
      const q = server.requestsTo('/tokens/v2/content/feed')[0]!.query;
      expect([q.get('mint'), q.get('page'), q.get('limit')]).toEqual([JUP, '2', '1']);
      expect(feed.data.pagination).toEqual({ limit: 1, total: 2, page: 2, totalPages: 2 });
      expect(feed.data.contents[0]!.contentId).toBe(TWEET.contentId);
    });

    it.each([
      [{ mint: JUP, limit: 101 }, 'tokens.contentFeed.limit.range'],
      [{ mint: JUP, page: 0 }, 'tokens.contentFeed.page.min'],
      [{ mint: 'jup' }, 'tokens.contentFeed.mint.address'],
    ])('throws a LimitError for %o and sends nothing', async (params, rule) => {
      const err = await getContentFeed(testTransport(server.url), params).catch((e: unknown) => e);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });

    it('fails with a SchemaError when pagination is missing', async () => {
      server.on('GET', '/tokens/v2/content/feed', { body: { data: { contents: [], tokenSummary: null, newsSummary: null } } });
      const err = await getContentFeed(testTransport(server.url), { mint: JUP }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['data.pagination']);
    });
  });

  describe('tokens.summaries (GET content summaries)', () => {
    it('sends the mints to the spec path and parses the summaries', async () => {
      server.on('GET', CONTENT_SUMMARIES_PATH, { body: { data: [{ mint: JUP, tokenSummary: SUMMARY, newsSummary: null }] } });
      const res = await getContentSummaries(testTransport(server.url), { mints: [JUP] });
      const [req] = server.requestsTo('/tokens/v2/v1/content/summaries', 'GET');
      expect(req!.query.get('mints')).toBe(JUP);
      expect(res.data[0]!.tokenSummary?.summaryShort).toBe('Solana swap aggregator governance token.');
      expect(res.data[0]!.newsSummary).toBeNull();
    });

    it('fails with a SchemaError when a summary has a non-string citation', async () => {
      server.on('GET', CONTENT_SUMMARIES_PATH, { body: { data: [{ mint: JUP, tokenSummary: { ...SUMMARY, citations: [1] }, newsSummary: null }] } });
      const err = await getContentSummaries(testTransport(server.url), { mints: [JUP] }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['data.0.tokenSummary.citations.0']);
    });
  });
});
