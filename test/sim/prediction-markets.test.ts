import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { PredictionProvider } from '../../src/jupiter/prediction/getEvents.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { createSimState } from '../../src/sim/state.js';
import { PredictionQueries } from '../../src/sim/products/predictionQueries.js';
import { control, startTestSim } from '../helpers/sim.js';

const DOLLAR = 1_000_000n;

// The prediction markets themselves, through the project's own client over HTTP: two providers quoting the same
// questions apart, markets that open, go live and close on the simulator's clock across categories, and crypto
// questions that resolve on the venue's own prices. The clock is frozen and moved by the tests.
describe('prediction markets of two providers', { timeout: 120_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 0 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  const all = async (provider: PredictionProvider) => (await jup.prediction.getEvents({ provider, includeMarkets: true, start: 0, end: 1_000 })).data;
  /** The same question on both providers: paired by the event's slug and the market's place in it. */
  async function pairs(): Promise<Array<[Market, Market]>> {
    const [poly, kalshi] = await Promise.all([all('polymarket'), all('kalshi')]);
    const bySlug = new Map(kalshi.map((e) => [e.metadata?.slug, e]));
    return poly.flatMap((e) => {
      const twin = bySlug.get(e.metadata?.slug);
      return twin ? e.markets.map((m, i): [Market, Market] => [m, twin.markets[i]!]).filter(([a, b]) => a.isTradable && b.isTradable) : [];
    });
  }

  it('lists every event on both providers under their own ids, with the same questions quoted apart', async () => {
    const [poly, kalshi] = await Promise.all([all('polymarket'), all('kalshi')]);
    expect(poly.length).toBeGreaterThan(50);
    expect(kalshi.length).toBe(poly.length);
    expect(poly.every((e) => /^POLY-\d+$/.test(e.eventId))).toBe(true);
    expect(kalshi.every((e) => /^KX[A-Z0-9]+-\d+$/.test(e.eventId))).toBe(true);
    expect(new Set(poly.map((e) => e.category))).toEqual(new Set(['crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech']));
    const both = await pairs();
    expect(both.length).toBeGreaterThan(100);
    for (const [a, b] of both) {
      expect([a.provider, b.provider]).toEqual(['polymarket', 'kalshi']);
      expect(a.title).toBe(b.title);
      for (const m of [a, b]) {
        const p = m.pricing;
        // Quoted in cents between $0.01 and $0.99, the ask above the bid, each side's ask the other side's bid's complement.
        for (const v of [p.buyYesPriceUsd, p.buyNoPriceUsd, p.sellYesPriceUsd, p.sellNoPriceUsd]) if (v !== null) expect(v % 10_000n === 0n && v >= 10_000n && v <= 990_000n).toBe(true);
        if (p.buyYesPriceUsd !== null && p.sellNoPriceUsd !== null) expect(p.buyYesPriceUsd + p.sellNoPriceUsd).toBe(DOLLAR);
        if (p.buyYesPriceUsd !== null && p.sellYesPriceUsd !== null) expect(p.buyYesPriceUsd).toBeGreaterThan(p.sellYesPriceUsd);
      }
    }
    const apart = both.filter(([a, b]) => a.pricing.buyYesPriceUsd !== b.pricing.buyYesPriceUsd);
    expect(apart.length).toBeGreaterThan(both.length / 2);
  });

  it('prices the same question apart enough, at some moment of a 10-minute run, that YES on one and NO on the other cost under $1', async () => {
    let found: { step: number; yes: Market; no: Market } | undefined;
    let moments = 0;
    for (let step = 0; step < 60 && !found; step += 1) {
      if (step > 0) await control(sim, '/clock', { advanceMs: 10_000 });
      moments += 1;
      for (const [a, b] of await pairs()) {
        for (const [yes, no] of [[a, b], [b, a]] as const) {
          if (yes.pricing.buyYesPriceUsd !== null && no.pricing.buyNoPriceUsd !== null && yes.pricing.buyYesPriceUsd + no.pricing.buyNoPriceUsd < DOLLAR) found ??= { step, yes, no };
        }
      }
    }
    expect(found, `no cross-provider pair under $1 in ${moments} moments of 10 s`).toBeDefined();
    const { yes, no } = found!;
    // The two legs are the same question on different providers, and the venue takes orders on both at those prices.
    expect(yes.provider).not.toBe(no.provider);
    expect(yes.title).toBe(no.title);
    const [liveYes, liveNo] = await Promise.all([jup.prediction.getMarket({ marketId: yes.marketId }), jup.prediction.getMarket({ marketId: no.marketId })]);
    expect(liveYes.pricing.buyYesPriceUsd! + liveNo.pricing.buyNoPriceUsd!).toBeLessThan(DOLLAR);
  });

  it('lists SOL 5-minute up-or-down windows on both providers before they start, and settles each on its price to beat', async () => {
    type Raw = { marketId: string; title: string; status: string; result: string | null; closeTime: number; rulesPrimary: string; pricing: { buyYesPriceUsd: number | null; buyNoPriceUsd: number | null } };
    const raw = async (id: string) => (await (await fetch(`${sim.url}/prediction/v1/markets/${id}`)).json()) as Raw;
    const windows = async (provider: PredictionProvider) =>
      (await all(provider)).filter((e) => e.metadata?.title === 'SOL Up or Down - 5 minutes').sort((a, b) => a.markets[0]!.closeTime - b.markets[0]!.closeTime);
    const [poly, kalshi] = await Promise.all([windows('polymarket'), windows('kalshi')]);
    // The first windows (from 3 minutes after the venue's start), back to back, each listed 10 minutes before it begins, on both providers.
    expect(poly.length).toBeGreaterThanOrEqual(2);
    expect(kalshi.map((e) => e.metadata?.slug)).toEqual(poly.map((e) => e.metadata?.slug));
    const closes = poly.map((e) => e.markets[0]!.closeTime);
    closes.slice(1).forEach((c, i) => expect(c - closes[i]!).toBe(300));
    expect(poly.every((e) => /^POLY-\d+$/.test(e.markets[0]!.marketId)) && kalshi.every((e) => /^KXSOL5M-\d+-UP$/.test(e.markets[0]!.marketId))).toBe(true);
    // The next window trades before it starts, at about even odds; its price to beat is set when it starts.
    const [next, twin] = [poly[1]!.markets[0]!, kalshi[1]!.markets[0]!];
    const before = await raw(next.marketId);
    expect(before.title).toBe('Up');
    expect(before.rulesPrimary).toContain('set then');
    for (const m of [before, await raw(twin.marketId)]) {
      expect(m.pricing.buyYesPriceUsd).toBeGreaterThanOrEqual(400_000);
      expect(m.pricing.buyYesPriceUsd).toBeLessThanOrEqual(600_000);
    }
    const { nowMs } = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    // To its start (closeTime is in whole seconds: the last ms of that second is past the start, and the close one
    // window later falls within the same price tick as the close itself).
    await control(sim, '/clock', { advanceMs: (next.closeTime - 300) * 1000 + 999 - nowMs });
    const started = await raw(next.marketId);
    const toBeat = Number(/the price to beat, \$([\d.]+)\)/.exec(started.rulesPrimary)?.[1]);
    expect(toBeat).toBeGreaterThan(0);
    // At its close it resolves Up (YES) if SOL is above the price to beat, on both providers alike.
    await control(sim, '/clock', { advanceMs: 300_000 });
    const { tokens } = await control<{ tokens: Array<{ symbol: string; usdPrice: number }> }>(sim, '/tokens', undefined, 'GET');
    const spot = tokens.find((t) => t.symbol === 'SOL')!.usdPrice;
    for (const id of [next.marketId, twin.marketId]) {
      const settled = await raw(id);
      expect(settled.status).toBe('closed');
      expect(settled.result).toBe(spot > toBeat ? 'yes' : 'no');
    }
  });

  it('resolves a crypto question at its close time on the venue price against its strike', async () => {
    const crypto = (await jup.prediction.getEvents({ category: 'crypto', includeMarkets: true, start: 0, end: 1_000 })).data;
    // The price windows with strikes ("Above $185"); the 5-minute up-or-down windows have a test of their own.
    const strikes = crypto.filter((e) => e.markets.every((m) => m.isTradable && m.title.startsWith('Above $')));
    const soonest = strikes.sort((a, b) => a.markets[0]!.closeTime - b.markets[0]!.closeTime)[0]!;
    const symbol = soonest.metadata!.title!.split(' ')[0]!;
    const { nowMs } = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    await control(sim, '/clock', { advanceMs: soonest.markets[0]!.closeTime * 1000 - nowMs });
    const { tokens } = await control<{ tokens: Array<{ symbol: string; usdPrice: number }> }>(sim, '/tokens', undefined, 'GET');
    const spot = tokens.find((t) => t.symbol === symbol)!.usdPrice;
    for (const m of soonest.markets) {
      const settled = await jup.prediction.getMarket({ marketId: m.marketId });
      const strike = Number(/Above \$([\d.]+)/.exec(settled.title)![1]);
      expect(settled.status).toBe('closed');
      expect(settled.isTradable).toBe(false);
      expect(settled.result).toBe(spot > strike ? 'yes' : 'no');
      expect(settled.pricing.buyYesPriceUsd).toBeNull();
    }
  });
});

// What a paper bot finds at any moment: the named filters never run dry as stories open, go live and close.
describe('prediction events over a simulated week', () => {
  it('always has new, live, trending and upcoming events with tradable markets, and the same seed gives the same markets however often they are read', () => {
    const start = Date.UTC(2026, 10, 1);
    const state = createSimState({ seed: 9, clockSpeed: 0, startMs: start });
    const twin = createSimState({ seed: 9, clockSpeed: 0, startMs: start });
    const queries = new PredictionQueries(state.prediction);
    type RawEvent = { markets: Array<{ status: string; pricing: { buyYesPriceUsd: number | null } }> };
    const tradable = (events: RawEvent[]) => events.some((e) => e.markets.some((m) => m.status === 'open' && m.pricing.buyYesPriceUsd !== null));
    for (let hour = 0; hour <= 7 * 24; hour += 4) {
      for (const filter of ['new', 'live', 'trending', 'upcoming'] as const) {
        const body = queries.events({ filter, includeMarkets: true }).body as { data: RawEvent[]; pagination: { total: number } };
        expect(body.pagination.total, `${filter} at hour ${hour}`).toBeGreaterThan(0);
        expect(tradable(body.data), `${filter} at hour ${hour}`).toBe(true);
      }
      // The twin is read once a day only: its open markets and their prices are the same as those read every 4 hours.
      if (hour % 24 === 0) {
        const quotes = (s: typeof state) =>
          s.prediction.markets.eventsOf('kalshi').flatMap((e) => e.markets.filter((m) => s.prediction.markets.tradable(m)).map((m) => `${m.marketId}:${s.prediction.markets.quote(m).buyYes}`));
        twin.prediction.refresh();
        expect(quotes(twin)).toEqual(quotes(state));
      }
      state.venue.clock.advance(4 * 3_600_000);
      twin.venue.clock.advance(4 * 3_600_000);
    }
  });
});
