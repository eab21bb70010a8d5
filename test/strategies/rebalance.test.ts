import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';
import { MULTI_REBALANCE_SOL_RESERVE_LAMPORTS, rebalance } from '../../strategies/rebalance/index.js';
import type { Intent, PendingIntentView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, type ContextSetup } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const JUP = KNOWN_SYMBOLS.JUP!.mint;
// Round prices: $100 a SOL, $1 a JUP, $1 a USDC.
const PRICES = { [SOL]: { usd: 100, decimals: 9 }, [JUP]: { usd: 1, decimals: 6 }, [USDC]: { usd: 1, decimals: 6 } };
const PARAMS = { weights: { SOL: 0.5, JUP: 0.25, USDC: 0.25 }, quote: 'USDC', driftPct: 4 };
type State = Record<string, unknown>;

/** A wallet of `sol` SOL, `jup` JUP and `usdc` USDC (whole tokens). */
function wallet(sol: number, jup: number, usdc: number, extra: ContextSetup<State> = {}): ContextSetup<State> {
  return {
    prices: PRICES,
    lamports: BigInt(Math.round(sol * 1e9)),
    tokens: { [JUP]: { amount: BigInt(jup * 1e6), decimals: 6 }, [USDC]: { amount: BigInt(usdc * 1e6), decimals: 6 } },
    ...extra,
  };
}

const asPending = (intents: Intent[], state: PendingIntentView['state'] = 'submitted'): PendingIntentView[] =>
  intents.map((intent, n) => ({ id: `rebalance.swap.${n}`, kind: intent.kind, state, intent, createdAt: Date.UTC(2026, 0, 1) }));
const legs = (intents: Intent[]) => intents.map((i) => (i.kind === 'swap' ? `${i.inputMint === SOL ? 'SOL' : i.inputMint === JUP ? 'JUP' : 'USDC'}>${i.outputMint === SOL ? 'SOL' : i.outputMint === JUP ? 'JUP' : 'USDC'} ${i.amount}` : i.kind));

describe('rebalance', () => {
  describe('while every weight is within driftPct of its target', () => {
    it('does nothing at the targets, and nothing just inside the threshold', () => {
      expect(decide(rebalance, PARAMS, wallet(5, 250, 250)).intents).toEqual([]);
      // $1,040: SOL 51.9 % (1.9 pts), JUP and USDC 24.0 % (1.0 pt).
      expect(decide(rebalance, PARAMS, wallet(5.4, 250, 250)).intents).toEqual([]);
    });
  });

  describe('when a weight drifts past the threshold', () => {
    it('sells what is over into the quote and buys what is under with the quote the wallet holds', () => {
      // $1,000 in all: SOL 80 % (target 50), JUP 10 % (25), USDC 10 % (25). Sell $300 of SOL; JUP needs $150 but only
      // 100 USDC are there now.
      const { intents } = decide(rebalance, PARAMS, wallet(8, 100, 100));
      expect(legs(intents)).toEqual(['SOL>USDC 3000000000', 'USDC>JUP 100000000']);
      expect(intents[0]).toMatchObject({ via: 'ultra', reason: `${SOL} weight 80.0% vs target 50.0% ± 4 pts: sell ${SOL} (80.0% → 50.0%)` });
    });

    it('asks for nothing again while those swaps are pending, and buys the rest once the sells have settled', () => {
      const first = decide(rebalance, PARAMS, wallet(8, 100, 100)).intents;
      for (const state of ['planned', 'submitted', 'landed'] as const) {
        // Projected: SOL 5, JUP 200, USDC 300: JUP is 5 pts under, but the quote the wallet shows is all spent.
        expect(decide(rebalance, PARAMS, { ...wallet(8, 100, 100), pending: asPending(first, state) }).intents, state).toEqual([]);
      }
      // Settled: 5 SOL, 200 JUP, 300 USDC. JUP at 20 % gets its last $50.
      expect(legs(decide(rebalance, PARAMS, wallet(5, 200, 300)).intents)).toEqual(['USDC>JUP 50000000']);
      // And then it is quiet.
      expect(decide(rebalance, PARAMS, wallet(5, 250, 250)).intents).toEqual([]);
    });

    it('trades every token off its target once one crosses, not only the one that crossed', () => {
      // $1,000: SOL 56 % (6 pts over), JUP 22 % (3 under), USDC 22 % (3 under): SOL is sold, JUP bought.
      expect(legs(decide(rebalance, PARAMS, wallet(5.6, 220, 220)).intents)).toEqual(['SOL>USDC 600000000', 'USDC>JUP 30000000']);
    });

    it('buys with the quote when the quote itself is overweight', () => {
      // $1,000: USDC 60 %: SOL gets $200, JUP $150.
      expect(legs(decide(rebalance, PARAMS, wallet(3, 100, 600)).intents)).toEqual(['USDC>SOL 200000000', 'USDC>JUP 150000000']);
    });

    it('caps each swap at maxTradeUsd and skips trades under minTradeUsd', () => {
      expect(legs(decide(rebalance, { ...PARAMS, maxTradeUsd: 120 }, wallet(8, 100, 100)).intents)).toEqual(['SOL>USDC 1200000000', 'USDC>JUP 100000000']);
      // The $30 JUP leg is under a $40 minimum; the $60 SOL sale is not.
      expect(legs(decide(rebalance, { ...PARAMS, minTradeUsd: 40 }, wallet(5.6, 220, 220)).intents)).toEqual(['SOL>USDC 600000000']);
    });

    it('never sells the SOL kept for fees, nor spends it when SOL is the quote', () => {
      const allSol = { weights: { SOL: 0.5, USDC: 0.5 }, quote: 'SOL', driftPct: 4 };
      // Only SOL: half of it should become USDC, paid from SOL less the reserve.
      expect(legs(decide(rebalance, allSol, wallet(0.1, 0, 0)).intents)).toEqual([`SOL>USDC ${50_000_000n}`]);
      const sellAll = { weights: { SOL: 0, USDC: 1 }, quote: 'USDC', driftPct: 4 };
      expect(legs(decide(rebalance, sellAll, wallet(1, 0, 0)).intents)).toEqual([`SOL>USDC ${1_000_000_000n - MULTI_REBALANCE_SOL_RESERVE_LAMPORTS}`]);
    });

    it('uses the chosen route and slippage', () => {
      expect(decide(rebalance, { ...PARAMS, via: 'metis', slippageBps: 40 }, wallet(8, 100, 100)).intents[0]).toMatchObject({ via: 'metis', slippageBps: 40 });
    });
  });

  describe('when it cannot trade', () => {
    it('does nothing when a weighted token has no price', () => {
      const out = decide(rebalance, PARAMS, { ...wallet(8, 100, 100), prices: { [SOL]: PRICES[SOL]!, [USDC]: PRICES[USDC]! } });
      expect(out.intents).toEqual([]);
      expect(out.logs).toEqual([{ level: 'debug', message: 'skipping: no price for a weighted token', fields: { mint: JUP } }]);
    });

    it('does nothing with an empty wallet', () => {
      expect(decide(rebalance, PARAMS, wallet(0, 0, 0)).intents).toEqual([]);
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = rebalance.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse weights that do not sum to 1, a quote outside them, one token twice and an unknown symbol', () => {
      expect(refused({ ...PARAMS, weights: { SOL: 0.5, JUP: 0.3, USDC: 0.3 } })).toEqual(['weights: the weights must sum to 1']);
      expect(refused({ ...PARAMS, quote: 'USDT' })).toEqual(['quote: the quote must be one of the weighted tokens']);
      expect(refused({ ...PARAMS, weights: { SOL: 0.25, wSOL: 0.25, USDC: 0.5 } })).toEqual(['weights.wSOL: "wSOL" names a token already listed']);
      expect(refused({ ...PARAMS, weights: { SOL: 0.5, DOGE: 0.25, USDC: 0.25 } })[0]).toMatch(/^weights\.DOGE: "DOGE" is neither a known symbol/);
      expect(refused({ ...PARAMS, weights: { USDC: 1 } })).toContain('weights: weigh 2 to 10 tokens');
    });

    it('watch every weighted mint', () => {
      expect(rebalance.watches(rebalance.params.parse(PARAMS))).toEqual({ mints: [SOL, JUP, USDC] });
    });
  });
});

describe('config/examples/rebalance.yaml', () => {
  it('loads with the built-in strategies and no environment, with the params its comments describe', () => {
    const config = loadConfig(fileURLToPath(new URL('../../config/examples/rebalance.yaml', import.meta.url)), builtinStrategies, {});
    expect(config.venue.kind).toBe('simulator');
    expect(config.strategies).toHaveLength(1);
    const s = config.strategies[0]!;
    expect(s.definition).toBe(rebalance);
    expect(s.params).toMatchObject({ weights: [{ mint: SOL, weight: 0.5 }, { mint: JUP, weight: 0.2 }, { mint: USDC, weight: 0.3 }], quote: USDC, driftPct: 5, minTradeUsd: 5, maxTradeUsd: 250 });
  });
});
