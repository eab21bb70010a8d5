import { describe, expect, it } from 'vitest';
import { REBALANCE_SOL_RESERVE_LAMPORTS, thresholdRebalance } from '../../strategies/index.js';
import type { PendingIntentView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, type ContextSetup } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
// Round numbers that are exact in binary, so the expected amounts are exact too.
const PRICES = { [SOL]: { usd: 100, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 } };
const PARAMS = { base: 'SOL', quote: 'USDC', targetBaseWeight: 0.5, bandPct: 5, maxSwapUsd: 1_000 };

/** A wallet worth `sol` SOL and `usdc` USDC at PRICES. */
function wallet(sol: number, usdc: number): ContextSetup<Record<string, unknown>> {
  return { prices: PRICES, lamports: BigInt(sol * 1e9), tokens: { [USDC]: { amount: BigInt(usdc * 1e6), decimals: 6 } } };
}

describe('threshold-rebalance', () => {
  describe('when the base weight is inside the band', () => {
    it('does nothing at the target', () => {
      expect(decide(thresholdRebalance, PARAMS, wallet(10, 1_000)).intents).toEqual([]);
    });

    it('does nothing on the edge of the band (56.25 % against 50 % ± 6.25)', () => {
      expect(decide(thresholdRebalance, { ...PARAMS, bandPct: 6.25 }, wallet(11.25, 875)).intents).toEqual([]);
    });
  });

  describe('when base is overweight', () => {
    it('sells the excess of base for quote, back to the target', () => {
      const { intents } = decide(thresholdRebalance, PARAMS, wallet(15, 500));
      expect(intents).toEqual([
        { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 5_000_000_000n, reason: 'base weight 75.0% vs target 50.0% ± 5 pts: sell base' },
      ]);
    });

    it('sells at most maxSwapUsd per run', () => {
      const { intents } = decide(thresholdRebalance, { ...PARAMS, maxSwapUsd: 200 }, wallet(15, 500));
      expect(intents[0]).toMatchObject({ inputMint: SOL, amount: 2_000_000_000n });
    });

    it('acts just past the band (56.25 % against 50 % ± 5)', () => {
      const { intents } = decide(thresholdRebalance, PARAMS, wallet(11.25, 875));
      expect(intents[0]).toMatchObject({ inputMint: SOL, outputMint: USDC, amount: 1_250_000_000n });
    });

    it('never sells the SOL kept for fees', () => {
      const { intents } = decide(thresholdRebalance, { ...PARAMS, targetBaseWeight: 0 }, wallet(1, 0));
      expect(intents[0]).toMatchObject({ inputMint: SOL, amount: 1_000_000_000n - REBALANCE_SOL_RESERVE_LAMPORTS });
    });
  });

  describe('when base is underweight', () => {
    it('buys base with the excess of quote, through the chosen route and slippage', () => {
      const { intents } = decide(thresholdRebalance, { ...PARAMS, via: 'metis', slippageBps: 30 }, wallet(5, 1_500));
      expect(intents).toEqual([
        { kind: 'swap', via: 'metis', inputMint: USDC, outputMint: SOL, amount: 500_000_000n, slippageBps: 30, reason: 'base weight 25.0% vs target 50.0% ± 5 pts: buy base' },
      ]);
    });
  });

  describe('when its own swaps are still pending (the wallet view does not show them yet)', () => {
    const pending = (amount: bigint, state: PendingIntentView['state'] = 'submitted', inputMint = SOL, outputMint = USDC): PendingIntentView => ({
      id: `rebal.swap.${state}`,
      kind: 'swap',
      state,
      intent: { kind: 'swap', via: 'ultra', inputMint, outputMint, amount },
      createdAt: Date.UTC(2026, 0, 1),
    });

    it('does not ask again for a correction already on its way, in flight or landed after the snapshot', () => {
      for (const state of ['planned', 'submitted', 'landed'] as const) {
        expect(decide(thresholdRebalance, PARAMS, { ...wallet(15, 500), pending: [pending(5_000_000_000n, state)] }).intents, state).toEqual([]);
      }
    });

    it('asks only for what the pending swaps leave undone', () => {
      // $2,000 at 75 % SOL; a pending sale of 2 SOL ($200) leaves 13 SOL / $700: the rest of the way is 3 SOL.
      const { intents, logs } = decide(thresholdRebalance, PARAMS, { ...wallet(15, 500), pending: [pending(2_000_000_000n)] });
      expect(intents).toEqual([expect.objectContaining({ inputMint: SOL, outputMint: USDC, amount: 3_000_000_000n })]);
      expect(logs).toContainEqual({ level: 'debug', message: 'counting pending swaps as done', fields: { swaps: 1 } });
    });

    it('ignores pending swaps of other pairs', () => {
      const other = pending(1_000_000n, 'planned', USDC, KNOWN_SYMBOLS.JUP!.mint);
      expect(decide(thresholdRebalance, PARAMS, { ...wallet(15, 500), pending: [other] }).intents[0]).toMatchObject({ amount: 5_000_000_000n });
    });
  });

  describe('when it cannot or should not trade', () => {
    it('does nothing without a price for either side, and says why at debug level', () => {
      const out = decide(thresholdRebalance, PARAMS, { ...wallet(15, 500), prices: { [SOL]: PRICES[SOL]! } });
      expect(out.intents).toEqual([]);
      expect(out.logs).toEqual([{ level: 'debug', message: 'skipping: no price for base or quote', fields: undefined }]);
    });

    it('does nothing with an empty wallet', () => {
      expect(decide(thresholdRebalance, PARAMS, wallet(0, 0)).intents).toEqual([]);
    });

    it('skips a correction smaller than minSwapUsd', () => {
      // $10 portfolio at 80 % base: the $3 correction is below the $5 minimum.
      expect(decide(thresholdRebalance, { ...PARAMS, minSwapUsd: 5 }, wallet(0.08, 2)).intents).toEqual([]);
      expect(decide(thresholdRebalance, { ...PARAMS, minSwapUsd: 2 }, wallet(0.08, 2)).intents).toHaveLength(1);
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = thresholdRebalance.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse a weight written as a percentage, a zero band and the same token twice', () => {
      expect(refused({ ...PARAMS, targetBaseWeight: 50 })[0]).toMatch(/^targetBaseWeight: /);
      expect(refused({ ...PARAMS, bandPct: 0 })[0]).toMatch(/^bandPct: /);
      expect(refused({ ...PARAMS, quote: 'wSOL' })).toEqual(['quote: base and quote must differ']);
      expect(refused({ ...PARAMS, minSwapUsd: 2_000 })).toEqual(['minSwapUsd: minSwapUsd must not exceed maxSwapUsd']);
    });

    it('watch both mints', () => {
      expect(thresholdRebalance.watches(thresholdRebalance.params.parse(PARAMS))).toEqual({ mints: [SOL, USDC] });
    });
  });
});
