import { describe, expect, it } from 'vitest';
import { dcaSwap, DCA_SOL_RESERVE_LAMPORTS } from '../../strategies/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, strategyContext } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const SOL_TO_USDC = { inputMint: 'SOL', outputMint: 'USDC', amount: '10000000' };

describe('dca-swap', () => {
  describe('when the wallet holds enough of the input', () => {
    it('asks for one Ultra swap of the fixed amount, with the symbols resolved to mints, and counts the run', () => {
      const out = decide(dcaSwap, { ...SOL_TO_USDC, slippageBps: 50 }, { lamports: 1_000_000_000n });
      expect(out.intents).toEqual([
        { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, slippageBps: 50, reason: 'dca run 1' },
      ]);
      expect(out.state).toEqual({ runs: 1 });
    });

    it('goes through Metis when asked and leaves the slippage to the venue when none is set', () => {
      const out = decide(dcaSwap, { inputMint: USDC, outputMint: 'sol', amount: 5_000_000, via: 'metis' }, { tokens: { [USDC]: { amount: 5_000_000n, decimals: 6 } } });
      expect(out.intents).toHaveLength(1);
      expect(out.intents[0]).toMatchObject({ via: 'metis', inputMint: USDC, outputMint: SOL, amount: 5_000_000n });
      expect(out.intents[0]).not.toHaveProperty('slippageBps');
    });

    it('continues the count from its persisted state and names the run in the reason', () => {
      const out = decide(dcaSwap, { ...SOL_TO_USDC, maxRuns: 10 }, { lamports: 1_000_000_000n, state: { runs: 4 } });
      expect(out.intents[0]?.reason).toBe('dca run 5 of 10');
      expect(out.state).toEqual({ runs: 5 });
    });

    it('decides the same thing from the same context', () => {
      const params = dcaSwap.params.parse(SOL_TO_USDC);
      const { ctx } = strategyContext(params, { lamports: 1_000_000_000n, state: { runs: 2 } });
      expect(dcaSwap.decide(ctx)).toEqual(dcaSwap.decide(ctx));
    });
  });

  describe('when the balance is short', () => {
    it('skips a SOL swap that would leave less than 0.02 SOL for fees, and keeps its count', () => {
      const exact = 10_000_000n + DCA_SOL_RESERVE_LAMPORTS;
      const short = decide(dcaSwap, SOL_TO_USDC, { lamports: exact - 1n, state: { runs: 3 } });
      expect(short.intents).toEqual([]);
      expect(short.state).toEqual({ runs: 3 });
      expect(short.logs[0]).toMatchObject({ level: 'info', message: 'skipping: balance below the amount' });
      expect(decide(dcaSwap, SOL_TO_USDC, { lamports: exact }).intents).toHaveLength(1);
    });

    it('spends a token input down to the last base unit (no reserve outside SOL)', () => {
      const params = { inputMint: 'USDC', outputMint: 'SOL', amount: '5000000' };
      expect(decide(dcaSwap, params, { tokens: { [USDC]: { amount: 4_999_999n, decimals: 6 } } }).intents).toEqual([]);
      expect(decide(dcaSwap, params, { tokens: { [USDC]: { amount: 5_000_000n, decimals: 6 } } }).intents).toHaveLength(1);
    });
  });

  describe('when maxRuns swaps were already asked for', () => {
    it('stops, whatever the balance', () => {
      const out = decide(dcaSwap, { ...SOL_TO_USDC, maxRuns: 3 }, { lamports: 10_000_000_000n, state: { runs: 3 } });
      expect(out.intents).toEqual([]);
      expect(out.state).toEqual({ runs: 3 });
    });
  });

  describe('when its persisted state is corrupt', () => {
    it('throws rather than restart the count (the engine turns the throw into a StrategyError)', () => {
      expect(() => decide(dcaSwap, SOL_TO_USDC, { lamports: 1_000_000_000n, state: { runs: 'three' } as never })).toThrow();
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = dcaSwap.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse a fractional, zero, negative or non-string amount', () => {
      expect(refused({ ...SOL_TO_USDC, amount: '1.5' })).toEqual(['amount: expected a positive integer amount in base units (e.g. "1000000"), got "1.5"']);
      expect(refused({ ...SOL_TO_USDC, amount: '0' })[0]).toMatch(/^amount: /);
      expect(refused({ ...SOL_TO_USDC, amount: -5 })[0]).toMatch(/^amount: /);
      expect(refused({ ...SOL_TO_USDC, amount: { value: 1 } })[0]).toMatch(/^amount: expected an integer amount in base units/);
      expect(refused({ ...SOL_TO_USDC, amount: 2 ** 60 })[0]).toMatch(/^amount: /);
    });

    it('refuse an unknown symbol, the same mint twice and a misspelt field', () => {
      expect(refused({ ...SOL_TO_USDC, outputMint: 'USCD' })[0]).toMatch(/^outputMint: "USCD" is neither a known symbol/);
      expect(refused({ ...SOL_TO_USDC, outputMint: 'wsol' })).toEqual(['outputMint: inputMint and outputMint must differ']);
      expect(refused({ ...SOL_TO_USDC, ammount: '1' })[0]).toMatch(/ammount/);
    });

    it('watch both mints', () => {
      expect(dcaSwap.watches(dcaSwap.params.parse(SOL_TO_USDC))).toEqual({ mints: [SOL, USDC] });
    });
  });
});
