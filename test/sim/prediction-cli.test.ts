import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { GetEventsParams, Market, PredictionEvent } from '../../src/jupiter/prediction/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { against, hasStackTrace, runCli } from '../cli/runCli.js';
import { control, fundedWallet, signBase64, startTestSim, USDC } from '../helpers/sim.js';

/** Micro-USD as the dollars a person reads: "$0.71", "$18.768", "$27.60". */
function dollars(micro: bigint): string {
  const cents = (micro % 1_000_000n).toString().padStart(6, '0').replace(/0+$/, '').padEnd(2, '0');
  return `$${micro / 1_000_000n}.${cents}`;
}

/** Escapes text for a RegExp. */
function re(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The table rows of an `events` run (after the header and its rule). */
function rows(stdout: string): string[] {
  return stdout.trimEnd().split('\n').slice(2);
}

// `jup-keeper events`, `market <id>`, `positions <wallet>` and `orders <wallet>`, the real binary, against the
// simulator's Prediction Market API: what a person sees for the venue's own events, markets and a wallet's trades.
// The clock is frozen, so the venue's keeper fills an order only when told to (POST /__sim/orders/fill).
describe('the prediction commands against the simulator', { timeout: 120_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  const cli = (...args: string[]) => runCli([...args, ...against(sim.url)]);
  /** The page of events the CLI asks for with these filters (its default limit is 20). */
  const page = async (q: GetEventsParams = {}) => (await jup.prediction.getEvents({ includeMarkets: true, start: 0, end: 20, ...q })).data;
  const marketsOf = (events: readonly PredictionEvent[]) => events.flatMap((e) => e.markets);

  /** Each market of the page is one row, under its event's title: id, title, status, buy YES and buy NO in dollars. */
  function expectListed(stdout: string, events: readonly PredictionEvent[]): void {
    expect(stdout.split('\n')[0]).toMatch(/^EVENT\s+MARKET\s+TITLE\s+STATUS\s+BUY YES\s+BUY NO\s+CLOSES$/);
    const lines = rows(stdout);
    expect(lines).toHaveLength(marketsOf(events).length);
    let i = 0;
    for (const ev of events) {
      ev.markets.forEach((m, j) => {
        const lead = j === 0 ? re(ev.metadata?.title ?? ev.eventId) : '';
        const [yes, no] = [m.pricing.buyYesPriceUsd, m.pricing.buyNoPriceUsd].map((p) => (p === null ? '-' : re(dollars(p))));
        expect(lines[i++]).toMatch(new RegExp(`^${lead}\\s+${re(m.marketId)}\\s+${re(m.title)}\\s+${m.status}\\s+${yes}\\s+${no}\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`));
      });
    }
  }

  /** Markets handed out to the trading tests, so that their fills and resolutions do not cross. */
  const taken = new Set<string>();
  async function freshMarket(): Promise<Market> {
    const m = marketsOf(await page({ category: 'politics' })).find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyNoPriceUsd !== null);
    expect(m, 'an open politics market quoted on both sides').toBeDefined();
    taken.add(m!.marketId);
    return m!;
  }
  /** A buy built by the venue, signed by the wallet, sent through the venue's RPC and landed; its order pubkey. */
  async function buy(wallet: Keypair, m: Market, isYes: boolean, depositAmount: bigint): Promise<string> {
    const built = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: wallet.publicKey.toBase58(), marketId: m.marketId, isYes, depositAmount });
    const { transaction, order } = built;
    expect(order.orderPubkey).not.toBeNull();
    const signature = await rpc.send(Buffer.from(signBase64(transaction, wallet), 'base64'));
    expect((await rpc.status(signature)).value).toMatchObject({ err: null });
    return order.orderPubkey as string;
  }

  describe('events', () => {
    it('lists the events with their markets and what a YES and a NO cost now', async () => {
      const run = await cli('events');
      expect(run).toMatchObject({ code: 0, stderr: '' });
      const events = await page();
      expect(marketsOf(events).length).toBeGreaterThan(0);
      expectListed(run.stdout, events);
    });

    it('lists only Kalshi markets with --provider kalshi', async () => {
      const run = await cli('events', '--provider', 'kalshi');
      expect(run.code).toBe(0);
      const events = await page({ provider: 'kalshi' });
      expect(marketsOf(events).length).toBeGreaterThan(0);
      expect(marketsOf(events).every((m) => m.provider === 'kalshi')).toBe(true);
      expectListed(run.stdout, events);
    });

    it('lists only the category asked for with --category', async () => {
      const run = await cli('events', '--category', 'sports');
      expect(run.code).toBe(0);
      const events = await page({ category: 'sports' });
      expect(events.length).toBeGreaterThan(0);
      expect(events.every((e) => e.category === 'sports')).toBe(true);
      expectListed(run.stdout, events);
    });

    it('lists only events under way with --filter live', async () => {
      const run = await cli('events', '--filter', 'live');
      expect(run.code).toBe(0);
      const [live, all] = await Promise.all([page({ filter: 'live' }), page()]);
      expect(live.length).toBeGreaterThan(0);
      expect(live.every((e) => e.isLive)).toBe(true);
      expect(live.map((e) => e.eventId)).not.toEqual(all.map((e) => e.eventId));
      expectListed(run.stdout, live);
    });

    it('gives the service\'s page, prices as micro-USD strings, with --json', async () => {
      const run = await cli('events', '--category', 'politics', '--limit', '3', '--json');
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout) as { data: Array<{ eventId: string; markets: Array<{ marketId: string; pricing: { buyYesPriceUsd: string } }> }> };
      const events = await page({ category: 'politics', end: 3 });
      expect(doc.data.map((e) => e.eventId)).toEqual(events.map((e) => e.eventId));
      const [first] = events[0]!.markets;
      expect(doc.data[0]!.markets[0]).toMatchObject({ marketId: first!.marketId, pricing: { buyYesPriceUsd: first!.pricing.buyYesPriceUsd!.toString() } });
    });
  });

  describe('market', () => {
    it('shows one market: its title, provider, status and the four prices in dollars', async () => {
      for (const provider of ['polymarket', 'kalshi'] as const) {
        const m = marketsOf(await page({ provider })).find((x) => x.isTradable)!;
        const run = await cli('market', m.marketId);
        expect(run).toMatchObject({ code: 0, stderr: '' });
        const p = m.pricing;
        const fields: Array<[string, string]> = [
          ['market', m.marketId], ['title', m.title], ['provider', provider], ['status', 'open'], ['tradable', 'yes'], ['result', '-'],
          ['buy yes', dollars(p.buyYesPriceUsd!)], ['buy no', dollars(p.buyNoPriceUsd!)], ['sell yes', dollars(p.sellYesPriceUsd!)], ['sell no', dollars(p.sellNoPriceUsd!)],
        ];
        for (const [label, value] of fields) expect(run.stdout).toMatch(new RegExp(`^${label}\\s+${re(value)}$`, 'm'));
      }
    });

    it('says in one line that an unknown market id is not found, and exits non-zero without a stack', async () => {
      const run = await cli('market', 'POLY-999999999');
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: .*Market not found: POLY-999999999.*\n$/);
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(hasStackTrace(run.stderr)).toBe(false);
    });
  });

  describe('positions', () => {
    it('says none for a wallet without positions', async () => {
      const wallet = await fundedWallet(sim, 10_000_000n);
      const run = await cli('positions', wallet.publicKey.toBase58());
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout).toBe('Prediction positions\nnone\n\nLend positions\nnone\n');
    });

    it('shows a position the keeper filled, with its event, contracts and prices; then claimable once it won', async () => {
      const m = await freshMarket();
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
      const owner = wallet.publicKey.toBase58();
      const order = await buy(wallet, m, true, 20_000_000n);
      expect(await control(sim, '/orders/fill', { order })).toEqual({ filled: 1, keeperError: null });
      const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: owner })).data;
      expect(pos!.contractsMicro).toBeGreaterThan(0n);
      const title = `${pos!.eventMetadata!.title!}: ${pos!.marketMetadata!.title!}`;

      const run = await cli('positions', owner);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(run.stdout.split('\n')[1]).toMatch(/^MARKET\s+TITLE\s+SIDE\s+CONTRACTS\s+AVG PRICE\s+VALUE\s+P&L\s+ORDERS\s+CLAIMABLE$/);
      const pnl = `[+-]\\$\\d+\\.\\d+ \\([+-]\\d+\\.\\d\\d%\\)`;
      expect(run.stdout).toMatch(new RegExp(`^${re(m.marketId)}\\s+${re(title)}\\s+YES\\s+${re(pos!.contractsDecimal!)}\\s+${re(dollars(pos!.avgPriceUsd))}\\s+${re(dollars(pos!.valueUsd!))}\\s+${pnl}\\s+0\\s+no$`, 'm'));
      expect(run.stdout).toMatch(/Lend positions\nnone\n$/);

      await control(sim, '/prediction/resolve', { marketId: m.marketId, result: 'yes' });
      const won = await cli('positions', owner);
      expect(won.code).toBe(0);
      // $1 a contract: the payout in dollars is the contract count.
      expect(won.stdout).toMatch(new RegExp(`^${re(m.marketId)}\\s+${re(title)}\\s+YES\\s+${re(pos!.contractsDecimal!)}\\s+\\S+\\s+-\\s+-\\s+0\\s+yes \\(${re(dollars(pos!.contractsMicro!))}\\)$`, 'm'));
      const market = await cli('market', m.marketId);
      expect(market.stdout).toMatch(/^status\s+closed$/m);
      expect(market.stdout).toMatch(/^result\s+yes$/m);
    });
  });

  describe('orders', () => {
    it('lists an open prediction order with its market, side, size and limit, and no note about unserved products', async () => {
      const m = await freshMarket();
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const owner = wallet.publicKey.toBase58();
      const order = await buy(wallet, m, false, 7_500_000n);
      const [listed] = (await jup.prediction.getPredictionOrders({ ownerPubkey: owner })).data;
      expect(listed).toMatchObject({ pubkey: order, isBuy: true, isYes: false });
      const title = `${listed!.eventMetadata!.title!}: ${listed!.marketMetadata!.title!}`;

      const run = await cli('orders', owner);
      expect(run).toMatchObject({ code: 0, stderr: '' });
      expect(rows(run.stdout)).toHaveLength(1);
      expect(run.stdout).toMatch(new RegExp(`^prediction\\s+${order}\\s+${re(title)}\\s+buy NO ${re(listed!.contractsDecimal!)} @ max ${re(dollars(listed!.maxBuyPriceUsd!))}\\s+${listed!.status}\\s+\\d{4}-`, 'm'));

      const json = await cli('orders', owner, '--json');
      expect(json).toMatchObject({ code: 0, stderr: '' });
      expect(JSON.parse(json.stdout)).toMatchObject({ trigger: [], recurring: [], prediction: [{ pubkey: order, marketId: m.marketId, maxBuyPriceUsd: listed!.maxBuyPriceUsd!.toString() }] });

      // Once the keeper filled it, the order is no longer open.
      expect(await control(sim, '/orders/fill', { order })).toEqual({ filled: 1, keeperError: null });
      const after = await cli('orders', owner);
      expect(after).toMatchObject({ code: 0, stdout: 'no open orders\n', stderr: '' });
    });
  });
});
