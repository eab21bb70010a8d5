import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';
import { EXIT_SOL_RESERVE_LAMPORTS, takeProfitStopLoss } from '../../strategies/take-profit-stop-loss/index.js';
import type { Intent, PendingIntentView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, type ContextSetup } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const JUP = KNOWN_SYMBOLS.JUP!.mint;
const PARAMS = { mint: 'JUP', takeProfitPrice: 1.5, stopLossPrice: 0.8 };
type State = Record<string, unknown>;

/** A wallet holding `jup` base units of JUP at `price` USD, plus 1 SOL. */
function at(price: number, jup = 1_000_000_000n, extra: ContextSetup<State> = {}): ContextSetup<State> {
  return {
    prices: { [JUP]: { usd: price, decimals: 6 }, [USDC]: { usd: 1, decimals: 6 }, [SOL]: { usd: 100, decimals: 9 } },
    lamports: 1_000_000_000n,
    tokens: { [JUP]: { amount: jup, decimals: 6 } },
    ...extra,
  };
}

const pending = (intent: Intent, state: PendingIntentView['state'] = 'submitted'): PendingIntentView[] => [{ id: `tpsl.swap.${state}`, kind: intent.kind, state, intent, createdAt: Date.UTC(2026, 0, 1) }];

describe('take-profit-stop-loss', () => {
  describe('between the stop and the target', () => {
    it('does nothing, and keeps the peak', () => {
      const out = decide(takeProfitStopLoss, PARAMS, at(1.2));
      expect(out.intents).toEqual([]);
      expect(out.state).toEqual({ peak: 1.2, done: false });
    });
  });

  describe('when the price crosses a level', () => {
    it('sells the whole holding for USDC at the take-profit', () => {
      const out = decide(takeProfitStopLoss, PARAMS, at(1.5));
      expect(out.intents).toEqual([{ kind: 'swap', via: 'ultra', inputMint: JUP, outputMint: USDC, amount: 1_000_000_000n, reason: 'take-profit: 1.50000 ≥ 1.50000' }]);
      expect(out.state).toMatchObject({ exit: { reason: 'take-profit: 1.50000 ≥ 1.50000', amount: '1000000000', balanceBefore: '1000000000' }, done: false });
    });

    it('sells at the stop-loss, only the configured amount, through the chosen route', () => {
      const out = decide(takeProfitStopLoss, { ...PARAMS, amount: '250000000', via: 'metis', slippageBps: 80 }, at(0.79));
      expect(out.intents).toEqual([{ kind: 'swap', via: 'metis', inputMint: JUP, outputMint: USDC, amount: 250_000_000n, slippageBps: 80, reason: 'stop-loss: 0.790000 ≤ 0.800000' }]);
    });

    it('sells no more than it holds when the configured amount is larger', () => {
      expect(decide(takeProfitStopLoss, { ...PARAMS, amount: '5000000000' }, at(0.5)).intents[0]).toMatchObject({ amount: 1_000_000_000n });
    });

    it('measures prices in the quote token', () => {
      // JUP at $150 against SOL at $100 is 1.5 SOL: the SOL-quoted target of 1.4 is reached.
      const out = decide(takeProfitStopLoss, { mint: 'JUP', quote: 'SOL', takeProfitPrice: 1.4 }, at(150));
      expect(out.intents[0]).toMatchObject({ inputMint: JUP, outputMint: SOL });
    });

    it('keeps the SOL reserve when the holding is SOL', () => {
      const out = decide(takeProfitStopLoss, { mint: 'SOL', stopLossPrice: 90 }, at(1, 0n, { prices: { [SOL]: { usd: 80, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 } } }));
      expect(out.intents[0]).toMatchObject({ inputMint: SOL, amount: 1_000_000_000n - EXIT_SOL_RESERVE_LAMPORTS });
    });
  });

  describe('with a trailing stop', () => {
    const TRAIL = { mint: 'JUP', trailingStopPct: 10 };

    it('follows the peak up and sells once the price falls that far below it', () => {
      let state: State = {};
      for (const price of [1, 1.2, 1.4, 1.3, 1.27]) {
        const out = decide(takeProfitStopLoss, TRAIL, { ...at(price), state });
        expect(out.intents, `at ${price}`).toEqual([]);
        state = out.state!;
      }
      expect(state).toMatchObject({ peak: 1.4 });
      // 10 % under 1.4 is 1.26.
      const out = decide(takeProfitStopLoss, TRAIL, { ...at(1.26), state });
      expect(out.intents).toEqual([expect.objectContaining({ inputMint: JUP, amount: 1_000_000_000n, reason: 'trailing stop: 1.26000 ≤ 1.26000 (10 % under the peak 1.40000)' })]);
    });
  });

  describe('after asking for the exit', () => {
    const exited = () => decide(takeProfitStopLoss, PARAMS, at(1.6));

    it('never asks again while the sell is planned, in flight or landed after the wallet snapshot', () => {
      const first = exited();
      for (const state of ['planned', 'submitted', 'landed'] as const) {
        expect(decide(takeProfitStopLoss, PARAMS, { ...at(1.7), state: first.state, pending: pending(first.intents[0]!, state) }).intents, state).toEqual([]);
      }
    });

    it('is done once the wallet shows the holding sold, whatever the price does next', () => {
      const first = exited();
      const settled = decide(takeProfitStopLoss, PARAMS, { ...at(1.6, 0n), state: first.state });
      expect(settled.intents).toEqual([]);
      expect(settled.state).toMatchObject({ done: true });
      expect(settled.logs).toContainEqual({ level: 'info', message: 'exit settled', fields: { reason: 'take-profit: 1.60000 ≥ 1.50000', sold: '1000000000' } });
      // More JUP arrives and the price crosses again: the instance has exited and stays quiet.
      expect(decide(takeProfitStopLoss, PARAMS, { ...at(2), state: settled.state }).intents).toEqual([]);
    });

    it('asks again when the sell ended without effect (the holding is still there)', () => {
      const first = exited();
      const again = decide(takeProfitStopLoss, PARAMS, { ...at(1.6), state: first.state });
      expect(again.intents).toEqual([expect.objectContaining({ inputMint: JUP, amount: 1_000_000_000n })]);
      expect(again.logs).toContainEqual({ level: 'warn', message: 'the exit swap ended without effect: watching the price again', fields: { reason: 'take-profit: 1.60000 ≥ 1.50000' } });
    });
  });

  describe('when it cannot act', () => {
    it('does nothing without a price, and says why at debug level', () => {
      const out = decide(takeProfitStopLoss, PARAMS, { ...at(2), prices: { [USDC]: { usd: 1, decimals: 6 } } });
      expect(out.intents).toEqual([]);
      expect(out.logs).toEqual([{ level: 'debug', message: 'skipping: no price for the holding or the quote', fields: undefined }]);
    });

    it('asks for nothing with no holding', () => {
      const out = decide(takeProfitStopLoss, PARAMS, at(2, 0n));
      expect(out.intents).toEqual([]);
      expect(out.logs).toContainEqual({ level: 'info', message: 'exit due but nothing to sell', fields: { reason: 'take-profit: 2.00000 ≥ 1.50000' } });
    });

    it('refuses a corrupt state rather than guess', () => {
      expect(() => decide(takeProfitStopLoss, PARAMS, { ...at(2), state: { exit: { amount: 'all' } } })).toThrow();
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = takeProfitStopLoss.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('need at least one exit, a stop under the target, and two different tokens', () => {
      expect(refused({ mint: 'JUP' })).toEqual(['takeProfitPrice: set at least one of takeProfitPrice, stopLossPrice and trailingStopPct']);
      expect(refused({ mint: 'JUP', takeProfitPrice: 1, stopLossPrice: 1.2 })).toEqual(['stopLossPrice: stopLossPrice must be below takeProfitPrice']);
      expect(refused({ mint: 'USDC', stopLossPrice: 0.9 })).toEqual(['quote: mint and quote must differ']);
      expect(refused({ ...PARAMS, trailingStopPct: 100 })[0]).toMatch(/^trailingStopPct: /);
    });

    it('default the quote to USDC, watch both mints and ask to decide on every price snapshot', () => {
      const parsed = takeProfitStopLoss.params.parse(PARAMS);
      expect(parsed.quote).toBe(USDC);
      expect(takeProfitStopLoss.watches(parsed)).toEqual({ mints: [JUP, USDC] });
      expect(takeProfitStopLoss.reactive).toBe(true);
    });
  });
});

describe('config/examples/take-profit-stop-loss.yaml', () => {
  it('loads with the built-in strategies and no environment, with the params its comments describe', () => {
    const config = loadConfig(fileURLToPath(new URL('../../config/examples/take-profit-stop-loss.yaml', import.meta.url)), builtinStrategies, {});
    expect(config.venue.kind).toBe('simulator');
    expect(config.strategies).toHaveLength(1);
    const s = config.strategies[0]!;
    expect(s.definition).toBe(takeProfitStopLoss);
    expect(s.params).toMatchObject({ mint: JUP, quote: USDC, takeProfitPrice: 1.5, stopLossPrice: 0.4, trailingStopPct: 15 });
    expect(s.reactive).toBe(true);
    expect(config.wallet.fund).toMatchObject({ JUP: 500_000_000n });
  });
});
