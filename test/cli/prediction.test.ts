import { describe, expect, it } from 'vitest';
import type { FixtureServer } from '../helpers/fixtureServer.js';
import { serve } from './runCli.js';
import { event, flatMarket, lendPosition, pagination, predictionOrder, predictionPosition, recurringOrder, triggerOrder, WALLET } from './fixtures.js';

const BASE = '/prediction/v1';

describe.concurrent('the prediction, positions and orders commands', () => {
  describe('events', () => {
    it('sends the filters with includeMarkets and shows each market with yes/no prices in dollars', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      const second = flatMarket({ marketId: 'POLY-2-YES', title: 'Bitcoin above $100k?', pricing: { buyYesPriceUsd: '120000', buyNoPriceUsd: '890000' } });
      server.on('GET', `${BASE}/events`, { body: { data: [event([flatMarket(), second])], pagination } });
      const run = await cli('events', '--category', 'crypto', '--filter', 'trending', '--provider', 'polymarket', '--limit', '5');
      expect(run.code).toBe(0);
      const [req] = server.requestsTo(`${BASE}/events`);
      expect(Object.fromEntries(req!.query)).toEqual({ includeMarkets: 'true', category: 'crypto', filter: 'trending', provider: 'polymarket', start: '0', end: '5' });
      const lines = run.stdout.split('\n');
      expect(lines[0]).toMatch(/^EVENT\s+MARKET\s+TITLE\s+STATUS\s+BUY YES\s+BUY NO\s+CLOSES$/);
      expect(lines[2]).toMatch(/^Bitcoin price on Dec 31\s+POLY-1345531-YES\s+Bitcoin above \$90k on Dec 31\?\s+open\s+\$0\.65\s+\$0\.38\s+2027-01-01 00:00 UTC$/);
      expect(lines[3]).toMatch(/^\s+POLY-2-YES\s+Bitcoin above \$100k\?\s+open\s+\$0\.12\s+\$0\.89/);
    });
  });

  describe('market', () => {
    it('shows pricing, status, result and close time of one market', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', `${BASE}/markets/:id`, { body: flatMarket({ status: 'closed', result: 'yes' }) });
      const run = await cli('market', 'POLY-1345531-YES');
      expect(run.code).toBe(0);
      expect(server.requestsTo(`${BASE}/markets/POLY-1345531-YES`)).toHaveLength(1);
      expect(run.stdout).toMatch(/^market\s+POLY-1345531-YES$/m);
      expect(run.stdout).toMatch(/^status\s+closed$/m);
      expect(run.stdout).toMatch(/^result\s+yes$/m);
      expect(run.stdout).toMatch(/^closes\s+2027-01-01 00:00 UTC$/m);
      expect(run.stdout).toMatch(/^buy yes\s+\$0\.65$/m);
      expect(run.stdout).toMatch(/^sell no\s+\$0\.35$/m);
    });
  });

  describe('positions', () => {
    it('shows the prediction positions and the lend positions of the wallet', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      server.on('GET', `${BASE}/positions`, { body: { data: [predictionPosition], pagination } });
      server.on('GET', '/lend/v1/earn/positions', { body: [lendPosition, { ...lendPosition, shares: '0', underlyingAssets: '0' }] });
      const run = await cli('positions', WALLET);
      expect(run.code).toBe(0);
      expect(server.requestsTo(`${BASE}/positions`)[0]!.query.get('ownerPubkey')).toBe(WALLET);
      expect(server.requestsTo('/lend/v1/earn/positions')[0]!.query.get('users')).toBe(WALLET);
      // No openOrders in this position: the ORDERS column says so with a dash.
      expect(run.stdout).toMatch(/^POLY-1345531-YES\s+Bitcoin above \$90k\?\s+YES\s+14\.285714\s+\$0\.689655\s+\$8\.857142\s+-\$0\.992858 \(-10\.08%\)\s+-\s+no$/m);
      const lendRows = run.stdout.split('Lend positions\n')[1]!.trim().split('\n');
      expect(lendRows).toHaveLength(3);
      expect(lendRows[2]).toMatch(/^jlUSDC\s+1\s+1\.042088 USDC\s+4\.23%$/);
    });
  });

  describe('orders', () => {
    const serveOrders = (server: FixtureServer) => {
      server.on('GET', '/trigger/v1/getTriggerOrders', { body: { user: WALLET, orderStatus: 'active', orders: [triggerOrder], totalPages: 1, page: 1 } });
      server.on('GET', '/recurring/v1/getRecurringOrders', { body: { user: WALLET, orderStatus: 'active', time: [recurringOrder], totalPages: 1, page: 1 } });
      server.on('GET', `${BASE}/orders`, { body: { data: [predictionOrder], pagination } });
    };

    it('lists the open orders of every product in one table with a product column', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      serveOrders(server);
      const run = await cli('orders', WALLET);
      expect(run.code).toBe(0);
      expect(Object.fromEntries(server.requestsTo('/trigger/v1/getTriggerOrders')[0]!.query)).toMatchObject({ user: WALLET, orderStatus: 'active' });
      expect(Object.fromEntries(server.requestsTo('/recurring/v1/getRecurringOrders')[0]!.query)).toMatchObject({ user: WALLET, orderStatus: 'active' });
      expect(server.requestsTo(`${BASE}/orders`)[0]!.query.get('ownerPubkey')).toBe(WALLET);
      const lines = run.stdout.trim().split('\n');
      expect(lines[0]).toMatch(/^PRODUCT\s+ID\s+MARKET\s+ORDER\s+STATUS\s+CREATED$/);
      expect(lines.slice(2).map((l) => l.split(/\s+/)[0])).toEqual(['trigger', 'recurring', 'prediction']);
      expect(run.stdout).toMatch(new RegExp(`trigger\\s+${triggerOrder.orderKey}\\s+SOL -> USDC\\s+1\\.0 SOL for 200\\.0 USDC\\s+Open`));
      expect(run.stdout).toMatch(/recurring\s+\S+\s+USDC -> SOL\s+10\.0 USDC every 1m/);
      expect(run.stdout).toMatch(/prediction\s+\S+\s+Bitcoin above \$90k\?\s+buy YES 14 @ max \$0\.70\s+pending/);
    });

    it('gives {trigger, recurring, prediction} with amounts as strings with --json', async ({ onTestFinished }) => {
      const { server, cli } = await serve(onTestFinished);
      serveOrders(server);
      const run = await cli('orders', WALLET, '--json');
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(Object.keys(doc).sort()).toEqual(['prediction', 'recurring', 'trigger']);
      expect(doc.trigger[0]).toMatchObject({ orderKey: triggerOrder.orderKey, rawMakingAmount: '1000000000' });
      expect(doc.recurring[0]).toMatchObject({ recurringType: 'time', rawInDeposited: '100000000' });
      expect(doc.prediction[0]).toMatchObject({ pubkey: predictionOrder.pubkey, maxBuyPriceUsd: '700000', contracts: '14' });
    });
  });
});
