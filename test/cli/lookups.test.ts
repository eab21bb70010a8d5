import { describe, expect, it } from 'vitest';
import { hasStackTrace, serve } from './runCli.js';
import { HELP, HOLDINGS, JUP, JUP_TOKEN, PRICES, QUOTE, SOL, ULTRA_ORDER, USDC, WALLET } from './fixtures.js';

describe.concurrent('the look-up commands', () => {
  describe('price', () => {
    it('resolves symbols to mints, prints a table and lists a mint the service omitted as "no price"', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/price/v3', { body: PRICES });
      const run = await cli('price', 'sol', 'USDC', HELP);
      expect(run.code).toBe(0);
      expect(server.requestsTo('/price/v3')[0]!.query.get('ids')).toBe(`${SOL},${USDC},${HELP}`);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^SYMBOL\s+MINT\s+PRICE\s+24H\s+LIQUIDITY$/);
      expect(lines.find((l) => l.includes(SOL))).toMatch(/^SOL\s+So1+2\s+\$147\.48\s+\+1\.29%\s+\$621\.68M$/);
      expect(lines.find((l) => l.includes(USDC))).toContain('$0.9999');
      expect(lines.find((l) => l.includes(HELP))).toContain('no price');
      expect(run.stderr).toBe('');
    });

    it('prints one JSON document with --json', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/price/v3', { body: { [SOL]: PRICES[SOL] } });
      const run = await cli('price', 'SOL', HELP, '--json');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual({ prices: { [SOL]: PRICES[SOL] }, missing: [HELP] });
    });

    it('exits non-zero naming the endpoint and the field when the body breaks the schema, without a stack trace', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/price/v3', { body: { [SOL]: { ...PRICES[SOL], usdPrice: '147.48' } } });
      const run = await cli('price', 'SOL');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: price\.get: response does not match the schema: .*usdPrice/);
      expect(run.stderr).toContain('JUP_SCHEMA');
      expect(hasStackTrace(run.stderr)).toBe(false);
    });
  });

  describe('quote', () => {
    it('refuses a non-numeric or fractional amount with exit status 2 before any request', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      const [abc, frac] = await Promise.all([
        cli('quote', '--in', 'SOL', '--out', 'USDC', '--amount', 'abc'),
        cli('quote', '--in', 'SOL', '--out', 'USDC', '--amount', '1.5'),
      ]);
      for (const run of [abc, frac]) {
        expect(run.code).toBe(2);
        expect(run.stderr).toMatch(/--amount.*must be a non-negative integer/);
        expect(hasStackTrace(run.stderr)).toBe(false);
      }
      expect(server.requests).toHaveLength(0);
    });

    it('shows a Swap V1 quote in human and base units with route, impact and min out', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/swap/v1/quote', { body: QUOTE });
      const run = await cli('quote', '--in', 'SOL', '--out', 'usdc', '--amount', '1000000000', '--slippage-bps', '50');
      expect(run.code).toBe(0);
      expect(Object.fromEntries(server.requestsTo('/swap/v1/quote')[0]!.query)).toMatchObject({ inputMint: SOL, outputMint: USDC, amount: '1000000000', slippageBps: '50' });
      expect(run.stdout).toMatch(/input\s+1 SOL \(1000000000 base units\)/);
      expect(run.stdout).toMatch(/output\s+161\.98753 USDC \(161987530 base units\)/);
      expect(run.stdout).toMatch(/min out\s+161\.1776 USDC/);
      expect(run.stdout).toMatch(/price impact\s+0\.12%/);
      expect(run.stdout).toMatch(/route\s+Meteora DLMM 100%/);
    });

    it('asks Ultra for an order without taker with --ultra and prints its amounts as strings with --json', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/ultra/v1/order', { body: ULTRA_ORDER });
      const run = await cli('quote', '--ultra', '--in', 'USDC', '--out', 'SOL', '--amount', '100000000', '--json');
      expect(run.code).toBe(0);
      const [req] = server.requestsTo('/ultra/v1/order');
      expect(req!.query.get('taker')).toBeNull();
      const doc = JSON.parse(run.stdout);
      expect(doc.source).toBe('ultra.order');
      expect(doc.order).toMatchObject({ inAmount: '100000000', outAmount: '461208958', otherAmountThreshold: '460024271', requestId: ULTRA_ORDER.requestId });
    });
  });

  describe('holdings', () => {
    it('shows SOL and token balances in human units with known symbols', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/ultra/v1/holdings/:address', { body: HOLDINGS });
      const run = await cli('holdings', WALLET);
      expect(run.code).toBe(0);
      expect(server.requestsTo(`/ultra/v1/holdings/${WALLET}`)).toHaveLength(1);
      const lines = run.stdout.split('\n');
      expect(lines.find((l) => l.startsWith('SOL'))).toMatch(/native\s+1\.5\s+$|native\s+1\.5$/);
      expect(lines.find((l) => l.includes(USDC))).toMatch(/^USDC\s+\S+\s+25\s+1$/);
      expect(lines.find((l) => l.includes(HELP))).toMatch(/32\.071840924\s+1$/);
    });

    it('writes bigint amounts as decimal strings with --json', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/ultra/v1/holdings/:address', { body: HOLDINGS });
      const run = await cli('holdings', WALLET, '--json');
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(doc).toMatchObject({ wallet: WALLET, amount: '1500000000' });
      expect(doc.tokens[USDC][0]).toMatchObject({ amount: '25000000', lamports: '2039280', decimals: 6 });
    });
  });

  describe('tokens trending', () => {
    it('asks for the toptrending ranking of the interval and prints the token table', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', '/tokens/v2/toptrending/:interval', { body: [JUP_TOKEN] });
      const run = await cli('tokens', 'trending', '6h', '--limit', '10');
      expect(run.code).toBe(0);
      const [req] = server.requestsTo('/tokens/v2/toptrending/6h');
      expect(req!.query.get('limit')).toBe('10');
      expect(run.stdout.split('\n')[0]).toMatch(/^SYMBOL\s+NAME\s+MINT\s+PRICE\s+LIQUIDITY\s+ORGANIC\s+VERIFIED$/);
      expect(run.stdout).toMatch(new RegExp(`JUP\\s+Jupiter\\s+${JUP}\\s+\\$0\\.1415\\s+\\$2\\.99M\\s+98 \\(high\\)\\s+yes`));
    });
  });
});
