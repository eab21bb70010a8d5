import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { LimitError, SchemaError } from '../../src/jupiter/errors.js';
import { getLendEarnings, getLendPositions, getLendTokens } from '../../src/jupiter/lend/index.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WSOL = 'So11111111111111111111111111111111111111112';
const JLUSDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';
const JLSOL = '2uQsyo1fXXQkDtcpXnLofWy88PxcvnfH2L8FPSE62FVU';
const USER_A = 'HYbxGkNvEwvZ14RzJHPB9h3dWfXjxwAEhkyzJRHx1hBf';
const USER_B = 'jdocuPgEAjMfihABsPgKEvYtsmMzjUHeq9LX4Hvs7f3';

/** jlUSDC as observed from the real service: camelCase asset, integer rates on the 1e4 scale, extra `rewards`. */
const JLUSDC_OBSERVED = {
  id: 1,
  address: JLUSDC,
  name: 'jupiter lend USDC',
  symbol: 'jlUSDC',
  decimals: 6,
  assetAddress: USDC,
  asset: {
    address: USDC,
    chainId: 'solana',
    name: 'USD Coin',
    symbol: 'USDC',
    decimals: 6,
    logoUrl: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/logo.png',
    price: '0.999779333214',
    coingeckoId: 'usd-coin',
    updatedAt: '2025-07-10T08:14:02.118Z',
  },
  totalAssets: '301852163211954',
  totalSupply: '289658234516223',
  convertToShares: '959612',
  convertToAssets: '1042088',
  rewardsRate: '110',
  supplyRate: '313',
  totalRate: '423',
  rebalanceDifference: '-1834212',
  liquiditySupplyData: {
    modeWithInterest: true,
    supply: '3168044480191',
    withdrawalLimit: '2534435584152',
    lastUpdateTimestamp: '1752135242',
    expandPercent: '2000',
    expandDuration: '43200',
    baseWithdrawalLimit: '5000000000',
    withdrawableUntilLimit: '633608896039',
    withdrawable: '633608896039',
  },
  rewards: [],
};

/** jlSOL in the spec's shape: snake_case asset, numeric price, decimal rates (read on the same 1e4 scale). */
const JLSOL_SPEC = {
  id: 2,
  address: JLSOL,
  name: 'jupiter lend SOL',
  symbol: 'jlSOL',
  decimals: 9,
  assetAddress: WSOL,
  asset: {
    address: WSOL,
    chain_id: 0,
    name: 'Wrapped SOL',
    symbol: 'SOL',
    decimals: 9,
    logo_url: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/So11111111111111111111111111111111111111112/logo.png',
    price: 171.34,
    coingecko_id: 'solana',
  },
  totalAssets: '1500000000000',
  totalSupply: '1450000000000',
  convertToShares: '0.966667',
  convertToAssets: '1.034483',
  rewardsRate: '0.035',
  supplyRate: '0.025',
  totalRate: 0.06,
  liquiditySupplyData: null,
};

describe('the Lend Earn data endpoints', () => {
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

  describe('when listing tokens', () => {
    it('normalises camelCase and snake_case assets to one shape, with bigint totals and bps rates', async () => {
      server.on('GET', '/lend/v1/earn/tokens', { body: [JLUSDC_OBSERVED, JLSOL_SPEC] });
      const [usdc, sol] = await getLendTokens(testTransport(server.url));
      expect(server.requestsTo('/lend/v1/earn/tokens', 'GET')).toHaveLength(1);

      expect(usdc).toMatchObject({ id: 1, address: JLUSDC, symbol: 'jlUSDC', decimals: 6, assetAddress: USDC });
      expect(usdc!.totalAssets).toBe(301852163211954n);
      expect(usdc!.totalSupply).toBe(289658234516223n);
      expect([usdc!.rewardsRate, usdc!.supplyRate, usdc!.totalRate]).toEqual([110, 313, 423]);
      expect([usdc!.convertToShares, usdc!.convertToAssets]).toEqual([959612, 1042088]);
      expect(usdc!.rebalanceDifference).toBe(-1834212n);
      expect(usdc!.liquiditySupplyData).toMatchObject({ modeWithInterest: true, supply: 3168044480191n, withdrawable: 633608896039n, expandPercent: 2000 });
      expect(usdc!.asset).toEqual({
        address: USDC,
        name: 'USD Coin',
        symbol: 'USDC',
        decimals: 6,
        price: 0.999779333214,
        chainId: 'solana',
        logoUrl: JLUSDC_OBSERVED.asset.logoUrl,
        coingeckoId: 'usd-coin',
        updatedAt: '2025-07-10T08:14:02.118Z',
      });

      expect(sol!.asset).toEqual({
        address: WSOL,
        name: 'Wrapped SOL',
        symbol: 'SOL',
        decimals: 9,
        price: 171.34,
        chainId: '0',
        logoUrl: JLSOL_SPEC.asset.logo_url,
        coingeckoId: 'solana',
        updatedAt: undefined,
      });
      expect([sol!.rewardsRate, sol!.supplyRate, sol!.totalRate]).toEqual([0.035, 0.025, 0.06]);
      expect(sol!.liquiditySupplyData).toBeNull();
      expect(sol!.rebalanceDifference).toBeUndefined();
    });

    it('rejects the spec example id (a mint) and names the field', async () => {
      server.on('GET', '/lend/v1/earn/tokens', { body: [{ ...JLSOL_SPEC, id: WSOL }] });
      const err = await getLendTokens(testTransport(server.url)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).endpoint).toBe('lend.tokens');
      expect((err as SchemaError).issues[0]!.path).toBe('0.id');
    });

    it('rejects a non-numeric total', async () => {
      server.on('GET', '/lend/v1/earn/tokens', { body: [{ ...JLUSDC_OBSERVED, totalAssets: '3.0e14' }] });
      const err = await getLendTokens(testTransport(server.url)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('0.totalAssets');
    });
  });

  describe('when reading positions', () => {
    const position = (owner: string, shares: string) => ({
      token: JLUSDC_OBSERVED,
      ownerAddress: owner,
      shares,
      underlyingAssets: '1042088',
      underlyingBalance: '25000000',
      allowance: '0',
    });

    it('sends the distinct users comma-separated and parses every amount to bigint', async () => {
      server.on('GET', '/lend/v1/earn/positions', { body: [position(USER_A, '1000000'), position(USER_B, '0')] });
      const result = await getLendPositions(testTransport(server.url), { users: [USER_A, USER_B, USER_A] });
      const [req] = server.requestsTo('/lend/v1/earn/positions', 'GET');
      expect(req!.query.get('users')).toBe(`${USER_A},${USER_B}`);
      expect(result).toHaveLength(2);
      expect(result[0]).toMatchObject({ ownerAddress: USER_A, shares: 1000000n, underlyingAssets: 1042088n, underlyingBalance: 25000000n, allowance: 0n });
      expect(result[0]!.token.totalRate).toBe(423);
      expect(result[1]!.shares).toBe(0n);
    });

    it('rejects the spec example decimal underlyingBalance, naming the field', async () => {
      server.on('GET', '/lend/v1/earn/positions', { body: [{ ...position(USER_A, '100000000'), underlyingBalance: '17.72' }] });
      const err = await getLendPositions(testTransport(server.url), { users: [USER_A] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('0.underlyingBalance');
    });

    it.each([
      [[], 'lend.users.empty'],
      [[USER_A, 'not an address'], 'lend.users.address'],
    ])('rejects users %j with LimitError before any request', async (users, rule) => {
      const err = await getLendPositions(testTransport(server.url), { users }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('when reading earnings', () => {
    it('reads the documented array and sends user and positions', async () => {
      server.on('GET', '/lend/v1/earn/earnings', {
        body: [
          { address: JLUSDC, ownerAddress: USER_A, earnings: 34483000, slot: 345678901 },
          { address: JLSOL, ownerAddress: USER_A, earnings: 0, slot: 345678901 },
        ],
      });
      const result = await getLendEarnings(testTransport(server.url), { user: USER_A, positions: [JLUSDC, JLSOL] });
      const [req] = server.requestsTo('/lend/v1/earn/earnings', 'GET');
      expect(req!.query.get('user')).toBe(USER_A);
      expect(req!.query.get('positions')).toBe(`${JLUSDC},${JLSOL}`);
      expect(result).toHaveLength(2);
      expect(result[0]).toMatchObject({ address: JLUSDC, ownerAddress: USER_A, earnings: 34483000n, slot: 345678901 });
      expect(result[1]!.earnings).toBe(0n);
    });

    it('wraps the single object the spec schema describes into an array', async () => {
      server.on('GET', '/lend/v1/earn/earnings', { body: { address: JLUSDC, ownerAddress: USER_A, earnings: 1250, slot: 345678901 } });
      const result = await getLendEarnings(testTransport(server.url), { user: USER_A, positions: [JLUSDC] });
      expect(result).toEqual([expect.objectContaining({ address: JLUSDC, earnings: 1250n, slot: 345678901 })]);
    });

    it('reads the observed third-party shape with string totals', async () => {
      server.on('GET', '/lend/v1/earn/earnings', {
        body: [
          {
            address: JLUSDC,
            ownerAddress: USER_A,
            totalDeposits: '50000000',
            totalWithdraws: '10000000',
            totalBalance: '40312345',
            totalAssets: '40312345',
            earnings: '312345',
          },
        ],
      });
      const [e] = await getLendEarnings(testTransport(server.url), { user: USER_A, positions: [JLUSDC] });
      expect(e).toMatchObject({ earnings: 312345n, totalDeposits: 50000000n, totalWithdraws: 10000000n, totalBalance: 40312345n, totalAssets: 40312345n });
      expect(e!.slot).toBeUndefined();
    });

    it('rejects non-numeric earnings, naming the field', async () => {
      server.on('GET', '/lend/v1/earn/earnings', { body: [{ address: JLUSDC, ownerAddress: USER_A, earnings: 'lots' }] });
      const err = await getLendEarnings(testTransport(server.url), { user: USER_A, positions: [JLUSDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('0.earnings');
    });

    it.each([
      [{ user: 'nope', positions: [JLUSDC] }, 'lend.user.address'],
      [{ user: USER_A, positions: [] }, 'lend.positions.empty'],
      [{ user: USER_A, positions: ['jlUSDC'] }, 'lend.positions.address'],
    ])('rejects %j with LimitError before any request', async (params, rule) => {
      const err = await getLendEarnings(testTransport(server.url), params).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(LimitError);
      expect((err as LimitError).rule).toBe(rule);
      expect(server.requests).toHaveLength(0);
    });
  });
});
