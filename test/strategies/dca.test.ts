import { describe, expect, it } from 'vitest';
import { dca, DCA_SOL_RESERVE_LAMPORTS, type DcaState } from '../../strategies/dca/index.js';
import { dcaSwap } from '../../strategies/dca-swap/index.js';
import type { Intent, PendingIntentView, RecurringOrderView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, type ContextSetup, type Decided } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const JUP = KNOWN_SYMBOLS.JUP!.mint;
const ORDER_A = 'DcaOrderA111111111111111111111111111111111111';
const ORDER_B = 'DcaOrderB111111111111111111111111111111111111';

type State = DcaState;
const PRICES = { [SOL]: { usd: 150, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 }, [JUP]: { usd: 0.5, decimals: 6 } };

function refused(params: Record<string, unknown>): string[] {
  const r = dca.params.safeParse(params);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

describe('dca in mode swaps', () => {
  const SWAPS = { mode: 'swaps', inputMint: 'USDC', outputMint: 'SOL', amount: '10000000' };
  const funded: ContextSetup<State> = { prices: PRICES, tokens: { [USDC]: { amount: 100_000_000n, decimals: 6 } } };

  describe('when the output price is inside the band', () => {
    it('asks for one swap of the amount and counts the run', () => {
      const out = decide(dca, { ...SWAPS, minPriceUsd: 100, maxPriceUsd: 200, slippageBps: 30 }, funded);
      expect(out.intents).toEqual([{ kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 10_000_000n, slippageBps: 30, reason: 'dca run 1' }]);
      expect(out.state).toEqual({ runs: 1 });
    });

    it('counts a price on either edge as inside', () => {
      expect(decide(dca, { ...SWAPS, minPriceUsd: 150 }, funded).intents).toHaveLength(1);
      expect(decide(dca, { ...SWAPS, maxPriceUsd: 150 }, funded).intents).toHaveLength(1);
    });
  });

  describe('when the output price is outside the band', () => {
    it('skips the run above maxPriceUsd, says why, and keeps its count', () => {
      const out = decide(dca, { ...SWAPS, maxPriceUsd: 149.99, maxRuns: 5 }, { ...funded, state: { runs: 2 } });
      expect(out.intents).toEqual([]);
      expect(out.state).toEqual({ runs: 2 });
      expect(out.logs).toEqual([{ level: 'info', message: 'skipping: price outside the band', fields: { usd: 150, minPriceUsd: null, maxPriceUsd: 149.99 } }]);
    });

    it('skips the run below minPriceUsd', () => {
      const out = decide(dca, { ...SWAPS, minPriceUsd: 151 }, funded);
      expect(out.intents).toEqual([]);
      expect(out.logs[0]?.message).toBe('skipping: price outside the band');
    });

    it('judges the band on the output price, not the input price', () => {
      // Selling SOL ($150) for JUP ($0.50): a band of $0.40-$0.60 is JUP's.
      const params = { mode: 'swaps', inputMint: 'SOL', outputMint: 'JUP', amount: '10000000', minPriceUsd: 0.4, maxPriceUsd: 0.6 };
      expect(decide(dca, params, { prices: PRICES, lamports: 1_000_000_000n }).intents).toHaveLength(1);
      expect(decide(dca, { ...params, minPriceUsd: 0.55 }, { prices: PRICES, lamports: 1_000_000_000n }).intents).toEqual([]);
    });
  });

  it('skips a run when a band is set but the feed has no price for the output', () => {
    const out = decide(dca, { ...SWAPS, maxPriceUsd: 200 }, { tokens: funded.tokens });
    expect(out.intents).toEqual([]);
    expect(out.logs[0]?.message).toBe('skipping: no price for the output, so the band cannot be checked');
  });

  it('without a band decides exactly as dca-swap does, price or not', () => {
    const { mode: _mode, ...legacy } = SWAPS;
    const cases: ContextSetup<State>[] = [
      { tokens: funded.tokens },
      { ...funded, state: { runs: 3 } },
      { tokens: { [USDC]: { amount: 9_999_999n, decimals: 6 } } },
    ];
    for (const setup of cases) {
      const mine = decide(dca, { ...SWAPS, maxRuns: 4 }, setup);
      const theirs = decide(dcaSwap, { ...legacy, maxRuns: 4 }, setup as ContextSetup<{ runs: number }>);
      expect([mine.intents, mine.state, mine.logs]).toEqual([theirs.intents, theirs.state, theirs.logs]);
    }
  });

  it('stops after maxRuns and keeps 0.02 SOL when spending SOL', () => {
    const sol = { mode: 'swaps', inputMint: 'SOL', outputMint: 'USDC', amount: '10000000', maxRuns: 2 };
    expect(decide(dca, sol, { lamports: 10_000_000_000n, state: { runs: 2 } }).intents).toEqual([]);
    expect(decide(dca, sol, { lamports: 10_000_000n + DCA_SOL_RESERVE_LAMPORTS - 1n }).intents).toEqual([]);
    expect(decide(dca, sol, { lamports: 10_000_000n + DCA_SOL_RESERVE_LAMPORTS }).intents).toHaveLength(1);
  });

  it('refuses a band whose minimum is above its maximum, a missing mode and a misspelt field', () => {
    expect(refused({ ...SWAPS, minPriceUsd: 200, maxPriceUsd: 100 })).toEqual(['minPriceUsd: minPriceUsd must not exceed maxPriceUsd']);
    expect(refused({ ...SWAPS, mode: undefined }).length).toBeGreaterThan(0);
    expect(refused({ ...SWAPS, maxPriceUSD: 100 })[0]).toMatch(/maxPriceUSD/);
    expect(refused({ ...SWAPS, outputMint: 'USDC' })).toEqual(['outputMint: inputMint and outputMint must differ']);
  });
});

describe('dca in mode recurring', () => {
  const RECURRING = { mode: 'recurring', inputMint: 'USDC', outputMint: 'SOL', total: '200000000', numberOfOrders: 4, interval: '1h' };
  const wallet = { prices: PRICES, lamports: 1_000_000_000n, tokens: { [USDC]: { amount: 1_000_000_000n, decimals: 6 } } };
  const order = (o: Partial<RecurringOrderView> = {}): RecurringOrderView => ({ order: ORDER_A, inputMint: USDC, outputMint: SOL, inDeposited: 200_000_000n, inUsed: 0n, outReceived: 0n, ...o });
  const pendingCreate = (intent: Intent, state: PendingIntentView['state'] = 'planned'): PendingIntentView => ({ id: 'dca:recurring.create:1', kind: 'recurring.create', state, intent, createdAt: 0 });

  describe('with no order of its own yet', () => {
    it('places one time-based order: the total, the number of buys and the interval in seconds', () => {
      const out = decide(dca, RECURRING, { ...wallet, now: 1_000 });
      expect(out.intents).toEqual([
        { kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 4, intervalSeconds: 3_600, reason: 'dca order 1 of 1: 4 buys, one every 3600 s' },
      ]);
      expect(out.state).toMatchObject({ placed: 1, ended: 0, current: { placedAt: 1_000, order: null, misses: 0 } });
    });

    it("turns a USD band on the output into the order's bounds in output per input", () => {
      // SOL between $100 and $200, paid in USDC at $1: each USDC must fetch between 0.005 and 0.01 SOL.
      const out = decide(dca, { ...RECURRING, minPriceUsd: 100, maxPriceUsd: 200 }, wallet);
      expect(out.intents[0]).toMatchObject({ minPrice: 0.005, maxPrice: 0.01 });
      // Paid in SOL at $150 for JUP between $0.25 and $0.75: each SOL fetches between 200 and 600 JUP.
      const sol = { ...RECURRING, inputMint: 'SOL', outputMint: 'JUP', total: '2000000000', minPriceUsd: 0.25, maxPriceUsd: 0.75 };
      expect(decide(dca, sol, { ...wallet, lamports: 3_000_000_000n }).intents[0]).toMatchObject({ inAmount: 2_000_000_000n, minPrice: 200, maxPrice: 600 });
    });

    it('places nothing the service would refuse: under $100 an order or $50 a buy', () => {
      const small = decide(dca, { ...RECURRING, total: '99000000', numberOfOrders: 2 }, wallet);
      expect(small.intents).toEqual([]);
      expect(small.logs[0]).toMatchObject({ level: 'warn', fields: { totalUsd: 99, perBuyUsd: 49.5 } });
      expect(decide(dca, { ...RECURRING, numberOfOrders: 5 }, wallet).intents).toEqual([]);
      expect(decide(dca, { ...RECURRING, numberOfOrders: 4 }, wallet).intents).toHaveLength(1);
    });

    it('waits for the funds, keeping 0.02 SOL when spending SOL, and for a price of the input', () => {
      expect(decide(dca, RECURRING, { ...wallet, tokens: { [USDC]: { amount: 199_999_999n, decimals: 6 } } }).intents).toEqual([]);
      const sol = { ...RECURRING, inputMint: 'SOL', outputMint: 'USDC', total: '1000000000', numberOfOrders: 2 };
      expect(decide(dca, sol, { ...wallet, lamports: 1_000_000_000n + DCA_SOL_RESERVE_LAMPORTS - 1n }).intents).toEqual([]);
      expect(decide(dca, sol, { ...wallet, lamports: 1_000_000_000n + DCA_SOL_RESERVE_LAMPORTS }).intents).toHaveLength(1);
      const priceless = decide(dca, RECURRING, { ...wallet, prices: {} });
      expect(priceless.intents).toEqual([]);
      expect(priceless.state).toMatchObject({ placed: 0 });
    });
  });

  describe('while its order is being placed', () => {
    it('asks for nothing, however many decisions the create spends planned, in flight or landed after the wallet read', () => {
      const first = decide(dca, { ...RECURRING, rounds: 3 }, wallet);
      let state = first.state!;
      for (const phase of ['planned', 'planned', 'built', 'signed', 'submitted', 'submitted', 'landed', 'landed'] as const) {
        const out = decide(dca, { ...RECURRING, rounds: 3 }, { ...wallet, state, pending: [pendingCreate(first.intents[0]!, phase)] });
        expect(out.intents).toEqual([]);
        expect(out.state).toMatchObject({ placed: 1, ended: 0 });
        state = out.state!;
      }
    });
  });

  describe('once its order is open', () => {
    it('recognises it by pair and total, remembers it, and places nothing more', () => {
      const first = decide(dca, { ...RECURRING, rounds: 2 }, wallet);
      const out = decide(dca, { ...RECURRING, rounds: 2 }, { ...wallet, state: first.state!, recurring: [order({ order: ORDER_B, inDeposited: 50_000_000n }), order({ inUsed: 50_000_000n })] });
      expect(out.intents).toEqual([]);
      expect(out.state).toMatchObject({ placed: 1, current: { order: ORDER_A, inUsed: '50000000' } });
      expect(out.logs).toContainEqual({ level: 'info', message: 'recurring order open', fields: { order: ORDER_A, round: 1, inDeposited: '200000000' } });
    });

    it('never takes an identical order that was already open when it placed its own', () => {
      const first = decide(dca, RECURRING, { ...wallet, recurring: [order({ order: ORDER_B })] });
      expect(first.intents).toHaveLength(1);
      const out = decide(dca, RECURRING, { ...wallet, state: first.state!, recurring: [order({ order: ORDER_B }), order()] });
      expect(out.state).toMatchObject({ current: { order: ORDER_A } });
    });
  });

  describe('when its order is gone from the open orders', () => {
    function seenOpen(rounds: number): State {
      const first = decide(dca, { ...RECURRING, rounds }, wallet);
      return decide(dca, { ...RECURRING, rounds }, { ...wallet, state: first.state!, recurring: [order()] }).state!;
    }

    it('waits one more decision (a failed wallet read keeps an old list), then counts it ended and places the next round', () => {
      const once = decide(dca, { ...RECURRING, rounds: 2 }, { ...wallet, state: seenOpen(2) });
      expect(once.intents).toEqual([]);
      const twice = decide(dca, { ...RECURRING, rounds: 2 }, { ...wallet, state: once.state! });
      expect(twice.logs).toContainEqual({ level: 'info', message: 'recurring order ended: filled or cancelled', fields: { order: ORDER_A, round: 1, lastSeenInUsed: '0', total: '200000000' } });
      expect(twice.intents).toEqual([expect.objectContaining({ kind: 'recurring.create', reason: 'dca order 2 of 2: 4 buys, one every 3600 s' })]);
      expect(twice.state).toMatchObject({ placed: 2, ended: 1, current: { order: null } });
    });

    it('stops after its last round', () => {
      const once = decide(dca, RECURRING, { ...wallet, state: seenOpen(1) });
      const twice = decide(dca, RECURRING, { ...wallet, state: once.state! });
      expect(twice.intents).toEqual([]);
      expect(twice.state).toMatchObject({ placed: 1, ended: 1, current: null });
      expect(decide(dca, RECURRING, { ...wallet, state: twice.state! }).intents).toEqual([]);
    });

    it('counts an order never seen open as a round done, with a warning, rather than placing it again', () => {
      const first = decide(dca, RECURRING, wallet);
      const once = decide(dca, RECURRING, { ...wallet, state: first.state! });
      const twice = decide(dca, RECURRING, { ...wallet, state: once.state! });
      expect(twice.intents).toEqual([]);
      expect(twice.logs.find((l) => l.level === 'warn')?.message).toMatch(/^recurring order never seen open/);
      expect(twice.state).toMatchObject({ placed: 1, ended: 1, current: null });
    });
  });

  it('over a whole life places exactly `rounds` orders, one at a time', () => {
    const params = { ...RECURRING, rounds: 3 };
    let state: State = { placed: 0, ended: 0, current: null };
    let open: RecurringOrderView[] = [];
    let pending: PendingIntentView[] = [];
    const placed: Intent[] = [];
    for (let step = 0; step < 40; step += 1) {
      const out: Decided<State> = decide(dca, params, { ...wallet, state, recurring: open, pending });
      state = out.state!;
      placed.push(...out.intents);
      expect(open.length + pending.length + out.intents.length).toBeLessThanOrEqual(1);
      // The world answers: a create lands and opens an order, which fills over three steps and disappears.
      if (out.intents.length > 0) pending = [pendingCreate(out.intents[0]!)];
      else if (pending.length > 0) [pending, open] = [[], [order({ order: `DcaOrder${placed.length}1111111111111111111111111111111111111` })]];
      else if (open.length > 0 && open[0]!.inUsed < 150_000_000n) open = [{ ...open[0]!, inUsed: open[0]!.inUsed + 50_000_000n }];
      else open = [];
    }
    expect(placed).toHaveLength(3);
    expect(state).toMatchObject({ placed: 3, ended: 3, current: null });
  });

  it('throws on a corrupt state rather than start counting again', () => {
    expect(() => decide(dca, RECURRING, { ...wallet, state: { placed: 'two' } as never })).toThrow();
  });

  describe('its params', () => {
    it('take the interval in seconds or with a unit, at least 60 s', () => {
      const interval = (v: unknown) => (dca.params.parse({ ...RECURRING, interval: v }) as { interval: number }).interval;
      expect([interval(90), interval('15m'), interval('1h'), interval('2d'), interval('1w'), interval('120s')]).toEqual([90, 900, 3_600, 172_800, 604_800, 120]);
      expect(refused({ ...RECURRING, interval: '30s' })[0]).toMatch(/^interval: expected an interval of at least 60 s/);
      expect(refused({ ...RECURRING, interval: '1 fortnight' })[0]).toMatch(/^interval: /);
      expect(refused({ ...RECURRING, interval: 90.5 })[0]).toMatch(/^interval: /);
    });

    it('refuse a single buy, a zero total and a swaps-only field', () => {
      expect(refused({ ...RECURRING, numberOfOrders: 1 })[0]).toMatch(/^numberOfOrders: /);
      expect(refused({ ...RECURRING, total: '0' })[0]).toMatch(/^total: /);
      expect(refused({ ...RECURRING, amount: '1000' })[0]).toMatch(/amount/);
    });

    it('watch both mints', () => {
      expect(dca.watches(dca.params.parse(RECURRING))).toEqual({ mints: [USDC, SOL] });
    });
  });
});
