import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFixtureServer, type FixtureServer, type RecordedRequest } from '../helpers/fixtureServer.js';
import { testTransport } from '../helpers/client.js';
import { BadRequestError, LimitError, SchemaError } from '../../src/jupiter/errors.js';
import { bindUltra } from '../../src/jupiter/ultra/index.js';
import { tokenInfoSchema as mintInformationSchema } from '../../src/jupiter/tokens/tokenInfo.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const WALLET = 'BQ72nSv9f3PRyRKCBnHLVrerrv37CYTHm5h3s9VSGQDV';
const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const B58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** A distinct, valid-looking base58 mint for index i. */
function fakeMint(i: number): string {
  let s = '';
  let n = i;
  do {
    s = B58[n % 58]! + s;
    n = Math.floor(n / 58);
  } while (n > 0);
  return `Mint${s.padStart(40, '1')}`;
}

/** The real USDC MintInformation of jupiter-api.md §4, trimmed, with the Ultra extras. */
const USDC_INFO = {
  id: USDC,
  name: 'USD Coin',
  symbol: 'USDC',
  icon: 'https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v/logo.png',
  decimals: 6,
  circSupply: 10387657805.6465,
  totalSupply: 10387657805.6465,
  tokenProgram: TOKEN_PROGRAM,
  mintAuthority: 'BJE5MMbqXjVwjAF7oxwPYXnTXDyspzZyt4vwenNw5ruG',
  freezeAuthority: '7dGbd2QZcCKcTndnHcTL8q7SMVXAkp688NTQYwrRCrar',
  firstPool: { id: '58oQChx4yWmvKdwLLZzBi4ChoCc2fqCUWBkwMihLYQo2', createdAt: '2021-03-29T10:05:48Z' },
  holderCount: 4197146,
  fdv: 10387626196.0422,
  mcap: 10387626196.0422,
  usdPrice: 0.999996957003698,
  liquidity: 25241539.3744423,
  stats24h: {
    priceChange: 0.00288,
    liquidityChange: 1.385,
    volumeChange: 91.86,
    buyVolume: 1536269995.05,
    sellVolume: 1528228432.17,
    numBuys: 2045547,
    numSells: 2119116,
    numTraders: 123111,
    numOrganicBuyers: 10824,
    numNetBuyers: 20153,
  },
  stats7d: { priceChange: 0.001 },
  audit: { topHoldersPercentage: 42.1893635408922 },
  organicScore: 100,
  organicScoreLabel: 'high',
  ctLikes: 14,
  smartCtLikes: 3,
  isVerified: true,
  cexes: ['Binance', 'Bybit'],
  tags: ['community', 'strict', 'verified'],
  issuer: 'Circle',
  fees: null,
  apy: null,
  launchpad: null,
  updatedAt: '2025-05-05T21:50:25.173880359Z',
};

function minimalInfo(id: string): Record<string, unknown> {
  return { id, name: `Token ${id.slice(-4)}`, symbol: id.slice(-4), decimals: 6, usdPrice: null, stats24h: { priceChange: null } };
}

describe('the Ultra data endpoints', () => {
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

  describe('searchTokens', () => {
    it('sends a free-text query as is and parses MintInformation', async () => {
      server.on('GET', '/ultra/v1/search', { body: [USDC_INFO] });
      const [usdc] = await ultra.searchTokens({ query: 'usd coin' });
      expect(usdc).toMatchObject({ id: USDC, symbol: 'USDC', decimals: 6, issuer: 'Circle', fees: null, organicScoreLabel: 'high' });
      expect(usdc!.stats24h?.numBuys).toBe(2045547);
      expect(usdc!.stats7d?.priceChange).toBe(0.001);
      expect(server.requestsTo('/ultra/v1/search')[0]!.query.get('query')).toBe('usd coin');
    });

    it('splits 150 mints into requests of 100 and 50 and merges the results in order', async () => {
      server.on('GET', '/ultra/v1/search', (req: RecordedRequest) => ({ body: req.query.get('query')!.split(',').map(minimalInfo) }));
      const mints = Array.from({ length: 150 }, (_, i) => fakeMint(i));
      const tokens = await ultra.searchTokens({ mints: [...mints, mints[0]!] });
      expect(tokens.map((t) => t.id)).toEqual(mints);
      const sizes = server.requestsTo('/ultra/v1/search').map((r) => r.query.get('query')!.split(',').length);
      expect(sizes.sort((a, b) => b - a)).toEqual([100, 50]);
    });

    it('names the broken field when a result lacks decimals', async () => {
      const { decimals: _d, ...broken } = USDC_INFO;
      server.on('GET', '/ultra/v1/search', { body: [broken] });
      const err = await ultra.searchTokens({ mints: [USDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues.map((i) => i.path)).toContain('0.decimals');
    });

    it('throws LimitError for an invalid mint or an empty query, and sends nothing', async () => {
      await expect(ultra.searchTokens({ mints: [USDC, 'not-a-mint'] })).rejects.toMatchObject({ rule: 'search.mints.address' });
      await expect(ultra.searchTokens({ query: '  ' })).rejects.toBeInstanceOf(LimitError);
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('mintInformationSchema', () => {
    it('requires only id, name, symbol and decimals, and accepts null numbers', () => {
      const parsed = mintInformationSchema.parse({ id: SOL, name: 'Wrapped SOL', symbol: 'SOL', decimals: 9, mcap: null, audit: { isSus: null } });
      expect(parsed).toEqual({ id: SOL, name: 'Wrapped SOL', symbol: 'SOL', decimals: 9, mcap: null, audit: { isSus: null } });
      expect(mintInformationSchema.safeParse({ id: SOL, name: 'Wrapped SOL', decimals: 9 }).success).toBe(false);
    });
  });

  describe('getHoldings', () => {
    it('parses native lamports and token accounts into bigint', async () => {
      server.on('GET', '/ultra/v1/holdings/:address', {
        body: {
          amount: '1000000000',
          uiAmount: 1,
          uiAmountString: '1',
          tokens: {
            [USDC]: [
              {
                account: '7kbnvuGBxxj8AG9qp8Scn56muWGaRaFqxg1FsRp3PaFT',
                amount: '25000000',
                uiAmount: 25,
                uiAmountString: '25',
                isFrozen: false,
                isAssociatedTokenAccount: true,
                decimals: 6,
                programId: TOKEN_PROGRAM,
                lamports: '2039280',
                excludeFromNetWorth: false,
              },
            ],
          },
        },
      });
      const holdings = await ultra.getHoldings({ address: WALLET });
      expect(holdings.amount).toBe(1_000_000_000n);
      expect(holdings.tokens[USDC]![0]).toMatchObject({ amount: 25_000_000n, lamports: 2_039_280n, decimals: 6, isFrozen: false });
      const [req] = server.requestsTo(`/ultra/v1/holdings/${WALLET}`, 'GET');
      expect(req).toBeDefined();
    });

    it('maps the service 400 to BadRequestError', async () => {
      server.on('GET', '/ultra/v1/holdings/:address', { status: 400, body: { error: 'Invalid address' } });
      await expect(ultra.getHoldings({ address: WALLET })).rejects.toBeInstanceOf(BadRequestError);
    });

    it('rejects a non-base58 address before sending', async () => {
      await expect(ultra.getHoldings({ address: '../price/v3' })).rejects.toMatchObject({ rule: 'holdings.address' });
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('getNativeHoldings', () => {
    it('returns lamports as bigint from the /native path', async () => {
      server.on('GET', '/ultra/v1/holdings/:address/native', { body: { amount: '2500000000', uiAmount: 2.5, uiAmountString: '2.5' } });
      await expect(ultra.getNativeHoldings({ address: WALLET })).resolves.toEqual({ amount: 2_500_000_000n, uiAmount: 2.5, uiAmountString: '2.5' });
      expect(server.requestsTo(`/ultra/v1/holdings/${WALLET}/native`)).toHaveLength(1);
    });

    it('rejects a non-numeric amount', async () => {
      server.on('GET', '/ultra/v1/holdings/:address/native', { body: { amount: '2.5', uiAmount: 2.5, uiAmountString: '2.5' } });
      const err = await ultra.getNativeHoldings({ address: WALLET }).catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('amount');
    });
  });

  describe('getShield', () => {
    it('returns warnings per mint, with [] for mints without warnings', async () => {
      const odd = fakeMint(7);
      server.on('GET', '/ultra/v1/shield', {
        body: {
          warnings: {
            [USDC]: [
              {
                type: 'HAS_FREEZE_AUTHORITY',
                severity: 'warning',
                message: "The authority's owner has the ability to freeze your token account, preventing you from further trading",
              },
              { type: 'HAS_MINT_AUTHORITY', severity: 'info', message: 'The authority can mint more tokens' },
            ],
            [odd]: [{ type: '5%_TRANSFER_FEES', severity: 'critical', message: 'This token has 5% transfer fees', source: 'RugCheck' }],
          },
        },
      });
      const warnings = await ultra.getShield({ mints: [USDC, SOL, odd] });
      expect(warnings[SOL]).toEqual([]);
      expect(warnings[USDC]!.map((w) => w.type)).toEqual(['HAS_FREEZE_AUTHORITY', 'HAS_MINT_AUTHORITY']);
      expect(warnings[odd]![0]).toMatchObject({ type: '5%_TRANSFER_FEES', severity: 'critical', source: 'RugCheck' });
      expect(server.requestsTo('/ultra/v1/shield')[0]!.query.get('mints')).toBe(`${USDC},${SOL},${odd}`);
    });

    it('rejects an unknown severity, naming the field', async () => {
      server.on('GET', '/ultra/v1/shield', { body: { warnings: { [USDC]: [{ type: 'NEW_LISTING', severity: 'fatal', message: 'x' }] } } });
      const err = await ultra.getShield({ mints: [USDC] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SchemaError);
      expect((err as SchemaError).issues[0]!.path).toBe(`warnings.${USDC}.0.severity`);
    });

    it('requires at least one mint', async () => {
      await expect(ultra.getShield({ mints: [] })).rejects.toMatchObject({ rule: 'shield.mints.empty' });
      expect(server.requests).toHaveLength(0);
    });
  });

  describe('getRouters', () => {
    it('lists the routers', async () => {
      const routers = [
        { id: 'metis', name: 'Metis', icon: 'https://static.jup.ag/jup/icon.png' },
        { id: 'jupiterz', name: 'JupiterZ', icon: 'https://static.jup.ag/jup/icon.png' },
        { id: 'dflow', name: 'DFlow', icon: 'https://static.jup.ag/dflow/icon.png' },
        { id: 'okx', name: 'OKX DEX Router' },
      ];
      server.on('GET', '/ultra/v1/order/routers', { body: routers });
      await expect(ultra.getRouters()).resolves.toEqual(routers);
      expect(server.requestsTo('/ultra/v1/order/routers', 'GET')).toHaveLength(1);
    });

    it('rejects a router without an id', async () => {
      server.on('GET', '/ultra/v1/order/routers', { body: [{ name: 'Metis' }] });
      const err = await ultra.getRouters().catch((e: unknown) => e);
      expect((err as SchemaError).issues[0]!.path).toBe('0.id');
    });
  });
});
