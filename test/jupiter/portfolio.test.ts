import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { bindPortfolio, getPlatforms, getPositions, getStakedJup, type PortfolioElement } from '../../src/jupiter/portfolio/index.js';
import { ForbiddenError, LimitError, SchemaError } from '../../src/jupiter/errors.js';

const OWNER = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';

const token = (address: string, amount: number, price: number | null, value: number | null) => ({
  networkId: 'solana', type: 'token', value, attributes: {}, data: { address, amount, price },
});

/** One element of each known type, shaped like the service's (Sonar Watch) model, and one of an unknown type. */
const ELEMENTS = [
  {
    networkId: 'solana', platformId: 'jupiter-governance', type: 'multiple', label: 'Staked', name: 'Staked JUP', value: 1415,
    data: { assets: [{ ...token(JUP, 10000, 0.1415, 1415), attributes: { lockedUntil: -1, tags: ['governance'] } }] },
  },
  {
    networkId: 'solana', platformId: 'meteora', type: 'liquidity', label: 'LiquidityPool', value: 342.68, netApy: 0.31,
    data: {
      liquidities: [{
        assets: [token(SOL, 1, 171.34, 171.34), token(USDC, 171.34, 1, 171.34)], assetsValue: 342.68,
        rewardAssets: [], rewardAssetsValue: 0, value: 342.68, yields: [{ apy: 0.31 }],
        lp: { mint: '7yW4ANqGg2DxyzGaGVWw1wjY7iq5Uc9ZwFqRrW8CJBkp', amount: 12.5 }, name: 'SOL-USDC', ref: 'BGm1tav58oGcsQJehL9WXBFXF7D27vZsKefj4xJKD5Y',
        sourceRefs: [{ name: 'Pool', address: 'BGm1tav58oGcsQJehL9WXBFXF7D27vZsKefj4xJKD5Y' }],
      }],
    },
  },
  {
    networkId: 'solana', platformId: 'jupiter-exchange', type: 'leverage', label: 'Leverage', value: 95.2,
    data: {
      isolated: {
        positions: [{ address: SOL, name: 'SOL', collateralValue: 100, side: 'long', entryPrice: 165.1, markPrice: 171.34, size: 2.9,
          sizeValue: 496.89, pnlValue: 18.1, liquidationPrice: 139.7, leverage: 5, value: 95.2 }],
        value: 95.2,
      },
      value: 95.2,
    },
  },
  {
    networkId: 'solana', platformId: 'kamino', type: 'borrowlend', label: 'Lending', value: 1200,
    data: {
      value: 1200, suppliedAssets: [token(SOL, 10, 171.34, 1713.4)], borrowedAssets: [token(USDC, 513.4, 1, 513.4)], rewardAssets: [],
      suppliedValue: 1713.4, borrowedValue: 513.4, rewardValue: 0, suppliedYields: [[{ apy: 0.05 }]], borrowedYields: [[{ apy: 0.09 }]],
      healthRatio: 0.62,
    },
  },
  {
    networkId: 'solana', platformId: 'jupiter-exchange', type: 'trade', label: 'LimitOrder', value: 50,
    data: {
      assets: { input: token(USDC, 50, 1, 50), output: null }, inputAddress: USDC, outputAddress: SOL, initialInputAmount: 50,
      withdrawnOutputAmount: 0, expectedOutputAmount: 0.3, inputPrice: 1, outputPrice: 171.34, filledPercentage: 0,
      createdAt: 1710000000000, expireAt: 1712592000000,
    },
  },
  { networkId: 'solana', platformId: 'drift', type: 'perp-vault', label: 'Vault', value: 77.5, name: 'Drift vault', data: { shares: '1234' } },
];

const POSITIONS = {
  date: 1710000000000,
  owner: OWNER,
  fetcherReports: [
    { id: 'jupiter-exchange', status: 'succeeded', duration: 120 },
    { id: 'drift', status: 'failed', duration: 3000, error: 'timeout' },
    { id: 'meteora', status: 'ok', duration: 90 },
  ],
  elements: ELEMENTS,
  duration: 450,
  tokenInfo: { solana: { [JUP]: { address: JUP, name: 'Jupiter', decimals: 6, symbol: 'JUP', logoURI: 'https://static.jup.ag/jup/icon.png' } } },
};

/** Sums the supplied USD value of lending elements: shows the union narrows by `type`. */
const supplied = (els: readonly PortfolioElement[]): number =>
  els.reduce((sum, el) => (el.type === 'borrowlend' ? sum + (el.data.suppliedValue ?? 0) : sum), 0);

describe('the Portfolio endpoints', () => {
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

  describe('portfolio.positions (GET /portfolio/v1/positions/{address})', () => {
    it('puts the address in the path, the platforms in the query, and parses every element type', async () => {
      server.on('GET', '/portfolio/v1/positions/:address', { body: POSITIONS });
      const res = await getPositions(testTransport(server.url), { address: OWNER, platforms: ['jupiter-exchange', 'jupiter-governance'] });
      const [req] = server.requestsTo(`/portfolio/v1/positions/${OWNER}`, 'GET');
      expect(req!.query.get('platforms')).toBe('jupiter-exchange,jupiter-governance');
      expect(res.owner).toBe(OWNER);
      expect(res.elements.map((e) => e.type)).toEqual(['multiple', 'liquidity', 'leverage', 'borrowlend', 'trade', 'unknown']);
      expect(res.elements.map((e) => e.value)).toEqual([1415, 342.68, 95.2, 1200, 50, 77.5]);
      expect(supplied(res.elements)).toBe(1713.4);
      expect(res.tokenInfo?.solana?.[JUP]?.decimals).toBe(6);

      const [multiple, liquidity, leverage, , trade] = res.elements;
      if (multiple?.type !== 'multiple' || liquidity?.type !== 'liquidity' || leverage?.type !== 'leverage' || trade?.type !== 'trade') {
        throw new Error('element types were not narrowed');
      }
      const staked = multiple.data.assets[0]!;
      expect(staked.type === 'token' && staked.data).toEqual({ address: JUP, amount: 10000, price: 0.1415 });
      expect(staked.attributes.lockedUntil).toBe(-1);
      expect(liquidity.data.liquidities[0]!.lp).toEqual({ mint: '7yW4ANqGg2DxyzGaGVWw1wjY7iq5Uc9ZwFqRrW8CJBkp', amount: 12.5 });
      expect(leverage.data.isolated?.positions[0]).toMatchObject({ side: 'long', liquidationPrice: 139.7, collateralValue: 100 });
      expect(trade.data.assets.output).toBeNull();
      expect(trade.data.outputPrice).toBe(171.34);
    });

    it('keeps an unknown element type as a generic element with its platform, value and label', async () => {
      server.on('GET', '/portfolio/v1/positions/:address', { body: POSITIONS });
      const res = await bindPortfolio(testTransport(server.url)).getPositions({ address: OWNER });
      expect(server.requests[0]!.query.has('platforms')).toBe(false);
      const unknown = res.elements[5]!;
      expect(unknown).toEqual({
        type: 'unknown', originalType: 'perp-vault', networkId: 'solana', platformId: 'drift', value: 77.5, label: 'Vault',
        name: 'Drift vault', data: { shares: '1234' },
      });
    });

    it('accepts succeeded, failed and the example\'s "ok" (read as succeeded) fetcher statuses', async () => {
      server.on('GET', '/portfolio/v1/positions/:address', { body: POSITIONS });
      const res = await getPositions(testTransport(server.url), { address: OWNER });
      expect(res.fetcherReports.map((r) => r.status)).toEqual(['succeeded', 'failed', 'succeeded']);
      expect(res.fetcherReports[1]!.error).toBe('timeout');
    });

    it('parses the spec example, which leaves out networkId, element value and asset attributes', async () => {
      const example = {
        date: 1710000000000, owner: OWNER, fetcherReports: [{ id: 'jupiter-exchange', status: 'ok', duration: 120 }],
        elements: [{ type: 'multiple', label: 'Wallet', platformId: 'native-stake', name: 'Native Stake',
          data: { assets: [{ type: 'token', networkId: 'solana', value: 1713.4, data: { address: SOL, amount: 10.0, price: 171.34 } }] } }],
        duration: 450,
      };
      server.on('GET', '/portfolio/v1/positions/:address', { body: example });
      const res = await getPositions(testTransport(server.url), { address: OWNER });
      expect(res.elements[0]).toMatchObject({ type: 'multiple', networkId: 'solana', value: null, label: 'Wallet' });
      const el = res.elements[0]!;
      expect(el.type === 'multiple' && el.data.assets[0]!.attributes).toEqual({});
    });

    it('fails with a SchemaError naming the field when a known element is broken', async () => {
      const broken = structuredClone(POSITIONS);
      (broken.elements[2]!.data as { isolated: { positions: { side: string }[] } }).isolated.positions[0]!.side = 'sideways';
      server.on('GET', '/portfolio/v1/positions/:address', { body: broken });
      const err = await getPositions(testTransport(server.url), { address: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['elements.2.data.isolated.positions.0.side']);
    });

    it('fails with a SchemaError naming the field when a nested asset amount is not a number', async () => {
      const broken = structuredClone(POSITIONS);
      (broken.elements[3]!.data as { suppliedAssets: { data: { amount: unknown } }[] }).suppliedAssets[0]!.data.amount = '10';
      server.on('GET', '/portfolio/v1/positions/:address', { body: broken });
      const err = await getPositions(testTransport(server.url), { address: OWNER }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['elements.3.data.suppliedAssets.0.data.amount']);
    });

    it('rejects an undocumented fetcher status', async () => {
      server.on('GET', '/portfolio/v1/positions/:address', { body: { ...POSITIONS, fetcherReports: [{ id: 'x', status: 'pending' }] } });
      const err = await getPositions(testTransport(server.url), { address: OWNER }).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['fetcherReports.0.status']);
    });

    it('throws a LimitError and sends nothing for a bad address or platform id', async () => {
      const t = testTransport(server.url);
      const badAddress = await getPositions(t, { address: 'my-wallet' }).catch((e: unknown) => e);
      const badPlatform = await getPositions(t, { address: OWNER, platforms: ['kamino,drift'] }).catch((e: unknown) => e);
      expect((badAddress as LimitError).rule).toBe('portfolio.positions.address');
      expect((badPlatform as LimitError).rule).toBe('portfolio.positions.platforms.id');
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('portfolio.platforms (GET /portfolio/v1/platforms)', () => {
    it('parses the platform list, with or without tokens, tags and links', async () => {
      server.on('GET', '/portfolio/v1/platforms', {
        body: [
          { id: 'jupiter-exchange', name: 'Jupiter', image: 'https://sonar.watch/img/platforms/jupiter-exchange.webp', description: 'Jupiter Aggregator', defiLlamaId: 'jupiter', isDeprecated: false },
          { id: 'kamino', name: 'Kamino', image: 'https://sonar.watch/img/platforms/kamino.webp', tokens: ['KMNo3nJsBXfcpJTVhZcXLW7RmTwTt4GVFE7suUBo9sS'], tags: ['lending'],
            links: { website: 'https://kamino.finance', twitter: 'https://x.com/KaminoFinance' } },
        ],
      });
      const platforms = await getPlatforms(testTransport(server.url));
      expect(server.requestsTo('/portfolio/v1/platforms', 'GET')).toHaveLength(1);
      expect(platforms.map((p) => p.id)).toEqual(['jupiter-exchange', 'kamino']);
      expect(platforms[0]!.defiLlamaId).toBe('jupiter');
      expect(platforms[1]!.links?.website).toBe('https://kamino.finance');
    });

    it('fails with a SchemaError when a platform has no id', async () => {
      server.on('GET', '/portfolio/v1/platforms', { body: [{ name: 'Nameless' }] });
      const err = await getPlatforms(testTransport(server.url)).catch((e: unknown) => e);
      expect((err as SchemaError).issues.map((i) => i.path)).toEqual(['0.id']);
    });
  });

  describe('portfolio.stakedJup (GET /portfolio/v1/staked-jup/{address})', () => {
    it('parses the staked amount and pending unstakes (JUP, UI units)', async () => {
      server.on('GET', '/portfolio/v1/staked-jup/:address', { body: { stakedAmount: 15000.5, unstaking: [{ amount: 500.0, until: 1711000000000 }] } });
      const staked = await getStakedJup(testTransport(server.url), { address: OWNER });
      expect(server.requestsTo(`/portfolio/v1/staked-jup/${OWNER}`, 'GET')).toHaveLength(1);
      expect(staked).toEqual({ stakedAmount: 15000.5, unstaking: [{ amount: 500, until: 1711000000000 }] });
    });

    it('maps a 403 (key without Portfolio access) to ForbiddenError', async () => {
      server.on('GET', '/portfolio/v1/staked-jup/:address', { status: 403, body: { code: 403, message: 'API key does not have access to this endpoint' } });
      const err = await getStakedJup(testTransport(server.url), { address: OWNER }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ForbiddenError);
      expect(server.requests).toHaveLength(1);
    });

    it('throws a LimitError and sends nothing for a bad address', async () => {
      const err = await getStakedJup(testTransport(server.url), { address: '' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe('portfolio.stakedJup.address');
      expect(server.requests).toHaveLength(0);
    });
  });
});
