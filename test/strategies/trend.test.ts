import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import type { Intent, PendingIntentView, PricePoint } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { builtinStrategies } from '../../strategies/index.js';
import { movingAverages, trend, TREND_SOL_RESERVE_LAMPORTS } from '../../strategies/trend/index.js';
import { decide, type ContextSetup } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const NOW = Date.UTC(2026, 0, 1, 12);
const MINUTE = 60_000;
// SOL in USDC, a 5-minute and a 20-minute average, 50 USDC per entry.
const PARAMS = { base: 'SOL', quote: 'USDC', fast: '5m', slow: '20m', amount: '50000000' };
type State = Record<string, unknown>;

/** One sample a minute, the last one at NOW, oldest first. */
function minutes(prices: readonly number[]): PricePoint[] {
  return prices.map((usd, i) => ({ at: NOW - (prices.length - 1 - i) * MINUTE, usd }));
}

/** 30 minutes of SOL prices: flat at 100, then the last `tail` prices. USDC at $1 throughout. */
function market(tail: readonly number[], o: { sol?: bigint; usdc?: bigint; state?: State; pending?: PendingIntentView[] } = {}): ContextSetup<State> {
  const sol = minutes([...Array<number>(30 - tail.length).fill(100), ...tail]);
  return {
    now: NOW,
    prices: { [SOL]: { usd: sol[sol.length - 1]!.usd, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 } },
    history: { [SOL]: sol, [USDC]: minutes(Array<number>(30).fill(1)) },
    lamports: o.sol ?? 2_000_000_000n,
    tokens: { [USDC]: { amount: o.usdc ?? 500_000_000n, decimals: 6 } },
    state: o.state ?? { side: 'below', want: false },
    pending: o.pending ?? [],
  };
}

const UP = [101, 103, 105, 107, 110];
const DOWN = [99, 97, 95, 93, 90];
const pending = (intent: Intent, state: PendingIntentView['state'] = 'submitted'): PendingIntentView[] => [{ id: `trend.swap.${state}`, kind: intent.kind, state, intent, createdAt: NOW - 1_000 }];

describe('trend', () => {
  describe('on a golden cross (the fast average rises above the slow one)', () => {
    it('buys base with the configured quote amount, in one swap, and records the entry', () => {
      const out = decide(trend, PARAMS, market(UP));
      expect(out.intents).toEqual([{ kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 50_000_000n, reason: expect.stringMatching(/^golden cross SOL\/USDC: fast 5m 105\.200 > slow 20m 101\.300$/) }]);
      expect(out.state).toMatchObject({ side: 'above', want: true, entry: { spent: '50000000', balanceBefore: '2000000000', expected: '454545454' } });
    });

    it('after a flat start (averages equal) buys on the first rise', () => {
      const flat = decide(trend, PARAMS, market([], { state: {} }));
      expect(flat.intents).toEqual([]);
      expect(flat.state).toMatchObject({ side: 'below', want: false });
      expect(decide(trend, PARAMS, market(UP, { state: flat.state })).intents).toEqual([expect.objectContaining({ inputMint: USDC, outputMint: SOL })]);
    });

    it('does not chase a trend already up when it first looks: it waits for the next golden cross', () => {
      const out = decide(trend, PARAMS, market(UP, { state: {} }));
      expect(out.intents).toEqual([]);
      expect(out.state).toMatchObject({ side: 'above', want: false });
      expect(out.logs.map((l) => l.message)).toContainEqual(expect.stringMatching(/^SOL\/USDC already trends up .*: waiting for the next golden cross$/));
    });

    it('ignores a cross inside minGapBps', () => {
      // Fast 100.2 vs slow 100.05: 0.15 % apart, under a 0.5 % gap.
      const out = decide(trend, { ...PARAMS, minGapBps: 50 }, market([100, 100, 100.2, 100.4, 100.4]));
      expect(out.intents).toEqual([]);
      expect(out.state).toMatchObject({ side: 'below', want: false });
      expect(decide(trend, { ...PARAMS, minGapBps: 50 }, market(UP)).intents).toHaveLength(1);
    });
  });

  describe('while the entry is pending', () => {
    const entered = () => decide(trend, PARAMS, market(UP));

    it('never asks again while the buy is planned, in flight or landed after the wallet snapshot', () => {
      const first = entered();
      for (const state of ['planned', 'submitted', 'landed'] as const) {
        const again = decide(trend, PARAMS, market([...UP, 112], { state: first.state, pending: pending(first.intents[0]!, state) }));
        expect(again.intents, state).toEqual([]);
        expect(again.state, state).toMatchObject({ entry: { spent: '50000000' } });
      }
    });

    it('does not buy on a golden cross while a buy of its own is pending, even one its state does not know of', () => {
      const buy: Intent = { kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 50_000_000n };
      expect(decide(trend, PARAMS, market(UP, { pending: pending(buy) })).intents).toEqual([]);
    });

    it('holds the position once the wallet shows what the buy brought', () => {
      const first = entered();
      const settled = decide(trend, PARAMS, market([...UP, 111], { state: first.state, sol: 2_450_000_000n }));
      expect(settled.intents).toEqual([]);
      expect(settled.state).toMatchObject({ held: '450000000', want: true });
      expect(settled.state).not.toHaveProperty('entry');
    });

    it('gives up on this cross when the buy ended without effect (no retry every window)', () => {
      const first = entered();
      const failed = decide(trend, PARAMS, market([...UP, 111], { state: first.state }));
      expect(failed.intents).toEqual([]);
      expect(failed.state).toMatchObject({ want: false });
      expect(failed.logs).toContainEqual({ level: 'warn', message: 'the entry swap ended without effect: waiting for the next golden cross', fields: undefined });
      expect(decide(trend, PARAMS, market([...UP, 112], { state: failed.state })).intents).toEqual([]);
    });
  });

  describe('on a death cross (the fast average falls below the slow one)', () => {
    const holding = { side: 'above', want: true, held: '450000000' };

    it('sells what the entry bought, not the whole wallet', () => {
      const out = decide(trend, PARAMS, market(DOWN, { state: holding, sol: 5_000_000_000n }));
      expect(out.intents).toEqual([{ kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 450_000_000n, reason: expect.stringMatching(/^death cross SOL\/USDC: fast 5m 94\.8000 < slow 20m 98\.7000$/) }]);
      expect(out.state).toMatchObject({ side: 'below', want: false, held: '450000000', exit: { amount: '450000000', balanceBefore: '5000000000' } });
    });

    it('sells the whole balance above the SOL reserve with sellAll', () => {
      const out = decide(trend, { ...PARAMS, sellAll: true }, market(DOWN, { state: holding, sol: 5_000_000_000n }));
      expect(out.intents[0]).toMatchObject({ inputMint: SOL, amount: 5_000_000_000n - TREND_SOL_RESERVE_LAMPORTS });
    });

    it('is out once the wallet shows the sale, and sells again if it ended without effect', () => {
      const asked = decide(trend, PARAMS, market(DOWN, { state: holding, sol: 5_000_000_000n }));
      expect(decide(trend, PARAMS, market(DOWN, { state: asked.state, sol: 5_000_000_000n, pending: pending(asked.intents[0]!) })).intents).toEqual([]);
      const out = decide(trend, PARAMS, market(DOWN, { state: asked.state, sol: 4_549_995_000n }));
      expect(out.intents).toEqual([]);
      expect(out.state).not.toHaveProperty('held');
      const again = decide(trend, PARAMS, market(DOWN, { state: asked.state, sol: 5_000_000_000n }));
      expect(again.intents).toEqual([expect.objectContaining({ inputMint: SOL, amount: 450_000_000n })]);
    });

    it('does not sell twice when other activity refilled the base balance after a sale it saw landed', () => {
      const asked = decide(trend, PARAMS, market(DOWN, { state: holding, sol: 5_000_000_000n }));
      const landed = decide(trend, PARAMS, market(DOWN, { state: asked.state, sol: 5_000_000_000n, pending: pending(asked.intents[0]!, 'landed') }));
      expect(landed.state).toMatchObject({ exit: { landed: true } });
      // The wallet shows 5 SOL again (something else bought SOL meanwhile): the sale still counts as done.
      const out = decide(trend, PARAMS, market(DOWN, { state: landed.state, sol: 5_000_000_000n }));
      expect(out.intents).toEqual([]);
      expect(out.state).not.toHaveProperty('held');
    });

    it('sells the position when the cross came while the buy was still in flight', () => {
      const entered = decide(trend, PARAMS, market(UP));
      const crossed = decide(trend, PARAMS, market(DOWN, { state: entered.state, pending: pending(entered.intents[0]!) }));
      expect(crossed.intents).toEqual([]);
      expect(crossed.state).toMatchObject({ want: false, side: 'below' });
      const out = decide(trend, PARAMS, market(DOWN, { state: crossed.state, sol: 2_450_000_000n }));
      expect(out.intents).toEqual([expect.objectContaining({ inputMint: SOL, amount: 450_000_000n })]);
    });
  });

  describe('without enough price history', () => {
    it('does nothing and says why, once at info level', () => {
      const out = decide(trend, PARAMS, { ...market(UP), history: {} });
      expect(out.intents).toEqual([]);
      expect(out.logs).toEqual([{ level: 'info', message: 'no action: not enough price history yet: it must reach back the slow window (20m); 0 usable samples so far', fields: undefined }]);
      const again = decide(trend, PARAMS, { ...market(UP), history: {}, state: out.state });
      expect(again.logs.map((l) => l.level)).toEqual(['debug']);
    });

    it('waits until the history reaches back the whole slow window', () => {
      const short = minutes([100, 100, 100, 100, 100, 100, 100, 100, 101, 103, 105, 107, 110]);
      const out = decide(trend, PARAMS, { ...market(UP), history: { [SOL]: short, [USDC]: minutes(Array<number>(13).fill(1)) } });
      expect(out.intents).toEqual([]);
      expect(out.logs[0]!.message).toBe('no action: not enough price history yet: it must reach back the slow window (20m); 13 usable samples so far');
    });

  });

  describe('across a gap in the history (the keeper was down)', () => {
    // 30 minutes of samples with none from 12 to 3 minutes ago: the keeper was down for 9 of them.
    const gapped = (before: number, after: number): PricePoint[] =>
      minutes([...Array<number>(27).fill(before), after, after, after]).filter((p) => p.at <= NOW - 12 * MINUTE || p.at >= NOW - 2 * MINUTE);
    const holding = { side: 'above', want: true, held: '454545454' };
    const across = (before: number, after: number, state: State) => {
      const setup = market([], { state });
      return decide(trend, PARAMS, { ...setup, prices: { ...setup.prices, [SOL]: { usd: after, decimals: 9 } }, history: { [SOL]: gapped(before, after), [USDC]: minutes(Array<number>(30).fill(1)) } });
    };

    it('takes a fall while it was down for a death cross, and sells the position', () => {
      // The gap holds the last price seen (110): fast 5m (2 min of 110, 3 of 90) 98 < slow 20m 107.
      const out = across(110, 90, holding);
      expect(out.intents).toEqual([expect.objectContaining({ inputMint: SOL, outputMint: USDC, amount: 454_545_454n, reason: 'death cross SOL/USDC: fast 5m 98.0000 < slow 20m 107.000' })]);
      expect(out.state).toMatchObject({ side: 'below', want: false });
    });

    it('takes a rise while it was down for a golden cross', () => {
      expect(across(100, 110, { side: 'below', want: false }).intents).toEqual([expect.objectContaining({ inputMint: USDC, outputMint: SOL, amount: 50_000_000n })]);
    });

    it('sees no cross in a price that did not move while it was down', () => {
      const out = across(100, 100, holding);
      expect(out.intents).toEqual([]);
      expect(out.state).toMatchObject(holding);
      expect(out.logs).toEqual([]);
    });
  });

  describe('sizing an entry', () => {
    it('spends a fraction of the quote balance, capped by maxAmount', () => {
      expect(decide(trend, { ...PARAMS, amount: undefined, fractionOfQuote: 0.1 }, market(UP)).intents[0]).toMatchObject({ amount: 50_000_000n });
      expect(decide(trend, { ...PARAMS, amount: undefined, fractionOfQuote: 0.5, maxAmount: '120000000' }, market(UP)).intents[0]).toMatchObject({ amount: 120_000_000n });
    });

    it('takes the smaller of amount and the fraction, and never more than the wallet holds', () => {
      expect(decide(trend, { ...PARAMS, fractionOfQuote: 0.05 }, market(UP)).intents[0]).toMatchObject({ amount: 25_000_000n });
      expect(decide(trend, PARAMS, market(UP, { usdc: 30_000_000n })).intents[0]).toMatchObject({ amount: 30_000_000n });
    });

    it('keeps the SOL reserve when the quote is SOL', () => {
      const JUP = KNOWN_SYMBOLS.JUP!.mint;
      const setup = market(UP, { sol: 1_000_000_000n });
      const out = decide(trend, { base: 'JUP', quote: 'SOL', fast: '5m', slow: '20m', amount: '5000000000' }, {
        ...setup,
        prices: { [JUP]: { usd: 1.1, decimals: 6 }, [SOL]: { usd: 100, decimals: 9 } },
        history: { [JUP]: setup.history![SOL]!.map((p) => ({ at: p.at, usd: p.usd / 100 })), [SOL]: minutes(Array<number>(30).fill(100)) },
      });
      expect(out.intents[0]).toMatchObject({ inputMint: SOL, outputMint: JUP, amount: 1_000_000_000n - TREND_SOL_RESERVE_LAMPORTS });
    });

    it('makes no entry worth less than minTradeUsd, and says why', () => {
      const out = decide(trend, { ...PARAMS, minTradeUsd: 5 }, market(UP, { usdc: 4_000_000n }));
      expect(out.intents).toEqual([]);
      expect(out.state).toMatchObject({ want: true });
      expect(out.logs.map((l) => l.message)).toContain('no action: the golden cross wants an entry, but the quote the wallet can spend buys less than minTradeUsd ($5)');
    });
  });

  it('refuses a corrupt state rather than guess', () => {
    expect(() => decide(trend, PARAMS, market(UP, { state: { held: 'lots' } }))).toThrow();
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = trend.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('need a fast window shorter than the slow one, a size, and two different tokens', () => {
      expect(refused({ ...PARAMS, fast: '1h', slow: '30m' })).toEqual(['fast: the fast window must be shorter than the slow one']);
      expect(refused({ ...PARAMS, amount: undefined })).toEqual(['amount: size the entries: set amount, fractionOfQuote, or both']);
      expect(refused({ ...PARAMS, quote: 'SOL' })).toEqual(['quote: base and quote must differ']);
      expect(refused({ ...PARAMS, fast: 'soon' })).toEqual(['fast: expected a duration from "1s" to "30d" such as "15m" or "4h", got "soon"']);
      expect(refused({ ...PARAMS, fractionOfQuote: 1.5 })[0]).toMatch(/^fractionOfQuote: /);
    });

    it('read windows as durations, default the quote to USDC and watch both mints', () => {
      const parsed = trend.params.parse({ base: 'SOL', fast: '90s', slow: '4h', fractionOfQuote: 0.2 });
      expect(parsed).toMatchObject({ base: SOL, quote: USDC, fast: 90_000, slow: 14_400_000, minGapBps: 0, sellAll: false, via: 'ultra' });
      expect(trend.watches(parsed)).toEqual({ mints: [SOL, USDC] });
    });
  });
});

describe('movingAverages', () => {
  it('averages the base in the quote over time, a time only one history has holding the last price of both', () => {
    const base = minutes([10, 10, 20, 20, 40]);
    const quote = minutes([1, 1, 2, 2, 2]).filter((p) => p.at !== NOW - MINUTE);
    // Ratios 10, 10, 10, (no quote: 10 holds), 20, each for a minute, the newest until a minute after NOW: the fast
    // window (2 min) is 10 and 20, the slow one (4 min) 10, 10, 10 and 20.
    expect(movingAverages(base, quote, NOW, 2 * MINUTE, 4 * MINUTE)).toEqual({ ok: true, fast: 15, slow: 12.5, samples: 3 });
  });

  it('is the plain mean on samples a feed took unevenly (a loaded keeper), not a gap', () => {
    // One sample a second, each taken up to 0.9 s late: some 0.1 s apart, some 1.9 s. The price rises 1 a second.
    const late = [0, 900, 100, 500, 900, 0, 300, 800, 200, 600, 0, 900, 400];
    const points = late.map((d, i) => ({ at: NOW - (late.length - 1 - i) * 1_000 + d - 900, usd: 100 + i }));
    const flat = points.map((p) => ({ at: p.at, usd: 1 }));
    const out = movingAverages(points, flat, NOW, 3_000, 8_000);
    expect(out.ok).toBe(true);
    if (!out.ok) return;
    // About the last 3 and the last 8 prices: 110 to 112 and 105 to 112.
    expect(out.fast).toBeGreaterThan(110);
    expect(out.fast).toBeLessThan(112);
    expect(out.slow).toBeGreaterThan(107);
    expect(out.slow).toBeLessThan(109.5);
    expect(out.fast - out.slow).toBeGreaterThan(2);
  });
});

describe('config/examples/trend.yaml', () => {
  it('loads with the built-in strategies and no environment, with the params its comments describe', () => {
    const config = loadConfig(fileURLToPath(new URL('../../config/examples/trend.yaml', import.meta.url)), builtinStrategies, {});
    expect(config.feeds).toMatchObject({ priceHistory: 86_400_000, priceHistoryResolution: 60_000 });
    const s = config.strategies[0]!;
    expect(s.definition).toBe(trend);
    expect(s.params).toMatchObject({ base: SOL, quote: USDC, fast: 15 * MINUTE, slow: 60 * MINUTE, minGapBps: 20, amount: 100_000_000n, fractionOfQuote: 0.5, maxAmount: 150_000_000n });
  });
});
