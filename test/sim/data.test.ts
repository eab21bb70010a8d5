import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, control, JUP, SOL, startTestSim, USDC } from '../helpers/sim.js';

const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';

interface ListedToken {
  symbol: string;
  mint: string;
  decimals: number;
}

describe('the simulator data products, through the project client', () => {
  let sim: RunningSimulator;
  let client: JupiterClient;
  let listed: ListedToken[];
  const paths: string[] = [];
  const bySymbol = (s: string): ListedToken => listed.find((t) => t.symbol === s)!;

  beforeAll(async () => {
    sim = await startTestSim();
    const countingFetch: typeof fetch = (input, init) => {
      paths.push(new URL(input instanceof Request ? input.url : String(input)).pathname);
      return fetch(input, init);
    };
    client = createJupiterClient({ baseUrl: sim.url, tier: 'off', fetch: countingFetch });
    listed = (await control<{ tokens: ListedToken[] }>(sim, '/tokens', undefined, 'GET')).tokens;
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('Tokens V2', () => {
    it('finds tokens by symbol, best match first, each with live price and stats', async () => {
      const found = await client.tokens.searchTokens({ query: 'jup' });
      expect(found[0]!.symbol).toBe('JUP');
      for (const t of found) expect(`${t.symbol} ${t.name}`.toLowerCase()).toContain('jup');
      expect(found[0]!.usdPrice).toBeGreaterThan(0);
      expect(found[0]!.stats24h?.buyVolume).toBeGreaterThan(0);
      expect(found[0]!.organicScoreLabel).toBe('high');
      expect(found[0]!.audit?.mintAuthorityDisabled).toBe(true);
      expect(found[0]!.mintAuthority).toBeUndefined();
    });

    it('answers a comma-separated mint list in request order, leaving unknown mints out', async () => {
      const unknown = Keypair.generate().publicKey.toBase58();
      const found = await client.tokens.searchTokens({ query: [USDT, unknown, SOL] });
      expect(found.map((t) => t.id)).toEqual([USDT, SOL]);
    });

    it('gives [] when nothing matches', async () => {
      expect(await client.tokens.searchTokens({ query: 'no-such-token-anywhere' })).toEqual([]);
    });

    it('lists tokens by tag and an unlisted tag as []', async () => {
      const lst = await client.tokens.getTokensByTag({ tag: 'lst' });
      expect(lst.map((t) => t.symbol).sort()).toEqual(['jupSOL', 'mSOL']);
      const verified = await client.tokens.getTokensByTag({ tag: 'verified' });
      expect(verified.every((t) => t.isVerified)).toBe(true);
      expect(verified.map((t) => t.symbol)).not.toContain('RISK');
      expect(await client.tokens.getTokensByTag({ tag: 'stocks' })).toEqual([]);
    });

    it('ranks the top traded tokens by volume, leaving SOL and stablecoins out', async () => {
      const top = await client.tokens.getTokensByCategory({ category: 'toptraded', interval: '1h', limit: 5 });
      expect(top).toHaveLength(5);
      expect(top.map((t) => t.id)).not.toContain(SOL);
      expect(top.map((t) => t.id)).not.toContain(USDC);
      const volumes = top.map((t) => (t.stats1h?.buyVolume ?? 0) + (t.stats1h?.sellVolume ?? 0));
      expect([...volumes].sort((a, b) => b - a)).toEqual(volumes);
    });

    it('ranks by organic score and returns every ranked token under the default limit', async () => {
      const top = await client.tokens.getTokensByCategory({ category: 'toporganicscore', interval: '24h' });
      const scores = top.map((t) => t.organicScore ?? 0);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(top.length).toBe(listed.filter((t) => !['SOL', 'USDC', 'USDT', 'JupUSD', 'PYUSD'].includes(t.symbol)).length);
      const trending = await client.tokens.getTokensByCategory({ category: 'toptrending', interval: '5m', limit: 3 });
      expect(trending).toHaveLength(3);
    });

    it('lists recent tokens newest first pool first', async () => {
      const recent = await client.tokens.getRecentTokens();
      expect(recent[0]!.symbol).toBe('NEWT');
      const times = recent.map((t) => Date.parse(t.firstPool!.createdAt!));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
    });

    it('serves approved content, feeds, summaries and the cooking list of trending tokens', async () => {
      const content = await client.tokens.getContent({ mints: [JUP, SOL] });
      expect(content.data.map((d) => d.mint)).toEqual([JUP, SOL]);
      for (const item of content.data[0]!.contents) {
        expect(item.status).toBe('approved');
        expect(item.contentType).toBe('text');
      }
      const page = await client.tokens.getContentFeed({ mint: JUP, page: 2, limit: 2 });
      expect(page.data.pagination).toMatchObject({ page: 2, limit: 2 });
      expect(page.data.contents.length).toBeLessThanOrEqual(2);
      expect(page.data.pagination.totalPages).toBe(Math.ceil(page.data.pagination.total / 2));

      const cooking = await client.tokens.getCookingContent();
      const trending = await client.tokens.getTokensByCategory({ category: 'toptrending', interval: '24h', limit: 10 });
      expect(cooking.data.map((d) => d.mint)).toEqual(trending.map((t) => t.id));
      expect(cooking.data[0]!.tokenSummary?.summaryShort).toContain(trending[0]!.symbol);

      const summaries = await client.tokens.getContentSummaries({ mints: [USDC] });
      expect(summaries.data[0]!.tokenSummary?.summaryFull).toContain('USDC');
    });
  });

  describe('Price V3', () => {
    it('prices USDC near 1 with the documented fields', async () => {
      const prices = await client.price.getPrices({ ids: [USDC, SOL] });
      expect(Math.abs(prices[USDC]!.usdPrice - 1)).toBeLessThan(0.01);
      expect(prices[USDC]!.decimals).toBe(6);
      expect(prices[SOL]!.decimals).toBe(9);
      expect(prices[SOL]!.blockId).toBeGreaterThan(0);
      expect(prices[SOL]!.liquidity).toBeGreaterThan(0);
      expect(Date.parse(prices[SOL]!.createdAt!)).toBeLessThan(Date.now());
    });

    it('sends 120 mints as 3 requests and prices every listed one', async () => {
      const unknown = Array.from({ length: 120 - listed.length }, () => Keypair.generate().publicKey.toBase58());
      const before = paths.length;
      const prices = await client.price.getPrices({ ids: [...listed.map((t) => t.mint), ...unknown] });
      expect(paths.slice(before).filter((p) => p === '/price/v3')).toHaveLength(3);
      expect(Object.keys(prices).sort()).toEqual(listed.map((t) => t.mint).sort());
    });

    it('agrees with the tokens API on the price and its 24 h change', async () => {
      await control(sim, '/clock', { advanceMs: 3 * 3_600_000 });
      const [price] = Object.values(await client.price.getPrices({ ids: [JUP] }));
      const [info] = await client.tokens.searchTokens({ query: [JUP] });
      expect(price!.usdPrice).toBe(info!.usdPrice);
      expect(price!.priceChange24h).toBe(info!.stats24h?.priceChange);
      expect(price!.priceChange24h).not.toBe(0);
    });

    it('answers 51 ids in one raw request with 400 {error}', async () => {
      const ids = Array.from({ length: 51 }, () => Keypair.generate().publicKey.toBase58());
      const res = await fetch(`${sim.url}/price/v3?ids=${ids.join(',')}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: expect.any(String) });
    });
  });

  describe('Ultra data', () => {
    it('searches with the Ultra extras', async () => {
      const [usdc] = await client.ultra.searchTokens({ query: 'USDC' });
      expect(usdc).toMatchObject({ id: USDC, issuer: 'Circle', isVerified: true });
      expect(usdc!.stats7d).toHaveProperty('priceChange');
      const byMints = await client.ultra.searchTokens({ mints: [JUP, USDC] });
      expect(byMints.map((t) => t.id)).toEqual([JUP, USDC]);
    });

    it('shows airdropped SOL and tokens in the holdings, amounts as bigint', async () => {
      const wallet = Keypair.generate().publicKey.toBase58();
      const empty = await client.ultra.getHoldings({ address: wallet });
      expect(empty).toMatchObject({ amount: 0n, tokens: {} });
      await airdrop(sim, wallet, SOL, 2_500_000_000n);
      await airdrop(sim, wallet, JUP, 1_234_567n);
      const holdings = await client.ultra.getHoldings({ address: wallet });
      expect(holdings.amount).toBe(2_500_000_000n);
      expect(holdings.uiAmountString).toBe('2.5');
      const [account] = holdings.tokens[JUP]!;
      expect(account).toMatchObject({ amount: 1_234_567n, uiAmount: 1.234567, uiAmountString: '1.234567', decimals: 6, isFrozen: false, isAssociatedTokenAccount: true });
      expect(account!.programId).toBe('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
      const native = await client.ultra.getNativeHoldings({ address: wallet });
      expect(native.amount).toBe(2_500_000_000n);
    });

    it('rejects an address that is not a wallet with 400 {"error":"Invalid address"}', async () => {
      const err = await client.ultra.getHoldings({ address: '1'.repeat(43) }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).body).toEqual({ error: 'Invalid address' });
      const raw = await fetch(`${sim.url}/ultra/v1/holdings/not-an-address`);
      expect(raw.status).toBe(400);
      expect(await raw.json()).toEqual({ error: 'Invalid address' });
    });

    it('warns about the risky token and not about SOL', async () => {
      const risk = bySymbol('RISK').mint;
      const newt = bySymbol('NEWT').mint;
      const unknown = Keypair.generate().publicKey.toBase58();
      const shield = await client.ultra.getShield({ mints: [risk, SOL, USDC, newt, unknown] });
      const types = (mint: string) => shield[mint]!.map((w) => w.type);
      expect(types(risk)).toEqual(expect.arrayContaining(['HAS_FREEZE_AUTHORITY', 'HAS_MINT_AUTHORITY', 'NOT_VERIFIED', 'LOW_LIQUIDITY', 'LOW_ORGANIC_ACTIVITY']));
      expect(shield[risk]!.find((w) => w.type === 'HAS_FREEZE_AUTHORITY')).toMatchObject({
        severity: 'warning',
        message: "The authority's owner has the ability to freeze your token account, preventing you from further trading",
      });
      // RugCheck's critical flag, the one the risk gate refuses by default.
      expect(shield[risk]!.find((w) => w.type === 'SUSPICIOUS_DEV_ACTIVITY')?.severity).toBe('critical');
      expect(types(USDC)).toEqual(['HAS_FREEZE_AUTHORITY', 'HAS_MINT_AUTHORITY']);
      expect(types(newt)).toContain('NEW_LISTING');
      expect(types(risk)).not.toContain('HAS_PERMANENT_DELEGATE');
      expect(shield[SOL]).toEqual([]);
      expect(shield[unknown]).toEqual([]);
    });

    it('lists the four routers', async () => {
      const routers = await client.ultra.getRouters();
      expect(routers.map((r) => r.id)).toEqual(['metis', 'jupiterz', 'dflow', 'okx']);
      expect(routers.map((r) => r.name)).toEqual(['Metis', 'JupiterZ', 'DFlow', 'OKX DEX Router']);
    });

    it('drops NEW_LISTING once the token is a day old in simulated time', async () => {
      const newt = bySymbol('NEWT').mint;
      await control(sim, '/clock', { advanceMs: 86_400_000 });
      const shield = await client.ultra.getShield({ mints: [newt] });
      expect(shield[newt]!.map((w) => w.type)).not.toContain('NEW_LISTING');
    });
  });
});
