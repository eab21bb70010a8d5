import { describe, expect, it } from 'vitest';
import { maximumSwapInput, minimumSwapOutput, type SwapTerms } from '../../src/solana/swapValue.js';
import { ultraMaxFeeBps } from '../../src/execution/feeTable.js';

/*
 * Known answers for the guard's swap bounds and Ultra's fee table (issue 21). Every expected number below was worked
 * out by hand, in exact fractions, from the bound's definition; none comes from running the code under test. Each
 * assertion is an exact equality, so a bound one base unit wider, or a slippage or fee factor that changes (1.5×
 * the slippage, say), fails it.
 *
 * The rounding the bounds promise, and the one these numbers follow: the whole bound is one exact fraction (the
 * feed's prices are the doubles they are, each an exact fraction), rounded once at the end.
 * - minimumSwapOutput (ExactIn): amount × (inputUsd / outputUsd) × 10^dOut / 10^dIn × (10_000 − slippageBps) ×
 *   (10_000 − feeBps) / 10^8, rounded DOWN.
 * - maximumSwapInput (ExactOut): amount × (outputUsd / inputUsd) × 10^dIn / 10^dOut × (10_000 + slippageBps) ×
 *   (10_000 + feeBps) / 10^8, rounded UP.
 */

// Real mainnet mints, written out here rather than taken from src/lib/mints.ts.
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const USDT = 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB';
const JUPUSD = 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';
const JLP = '27G8MtK7VtTcCHkpASjSDdkWWYfoqT6ggEuKidVJidD4';
const JUPSOL = 'jupSoLaHXQiZZTSfEWMTRRgpnyFm8f6sZdosWBjx93v';
const MSOL = 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const WIF = 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm';
/** A mint jup-keeper knows nothing of. */
const UNKNOWN = 'Unknown1111111111111111111111111111111111111';

function terms(t: Omit<SwapTerms, 'inputMint' | 'outputMint'> & Partial<Pick<SwapTerms, 'inputMint' | 'outputMint'>>): SwapTerms {
  return { inputMint: SOL, outputMint: USDC, ...t };
}

describe('minimumSwapOutput: the least an ExactIn swap may return, by hand', () => {
  it('1 SOL at $150.25 into USDC at $1.0001, 50 bps slippage and 2 bps fee (9 -> 6 decimals)', () => {
    // value = 1_000_000_000 × 150.25 / 1.0001 × 10^6 / 10^9 = 1_502_500_000_000 / 10_001 = 150_234_976.502… → 150_234_976
    // keep  = 9_950 × 9_998 = 99_480_100
    // least = 150_234_976 × 99_480_100 / 10^8 = 149_453_904.36… → 149_453_904
    const t = terms({ amount: 1_000_000_000n, inputUsd: 150.25, outputUsd: 1.0001, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps: 2 });
    expect(minimumSwapOutput(t)).toBe(149_453_904n);
    // The same terms at 1.5 × the slippage (75 bps): keep = 9_925 × 9_998 = 99_230_150,
    // 150_234_976 × 99_230_150 / 10^8 = 149_078_392.04… → 149_078_392. A bound that loose must not pass for 50 bps.
    expect(minimumSwapOutput({ ...t, slippageBps: 75 })).toBe(149_078_392n);
  });

  it('250 USDC at $0.9998 into SOL at $151.37, 100 bps slippage and 2 bps fee (6 -> 9 decimals)', () => {
    // value = 250_000_000 × 0.9998 / 151.37 × 10^9 / 10^6 = 24_995_000_000_000 / 15_137 = 1_651_251_899.319… → 1_651_251_899
    // keep  = 9_900 × 9_998 = 98_980_200
    // least = 1_651_251_899 × 98_980_200 / 10^8 = 1_634_412_432.13… → 1_634_412_432
    const t = terms({ inputMint: USDC, outputMint: SOL, amount: 250_000_000n, inputUsd: 0.9998, outputUsd: 151.37, inputDecimals: 6, outputDecimals: 9, slippageBps: 100, feeBps: 2 });
    expect(minimumSwapOutput(t)).toBe(1_634_412_432n);
  });

  it('1,234.567891 JUP at $0.4321 into USDC at $1, 30 bps slippage and 10 bps fee (6 -> 6 decimals)', () => {
    // value = 1_234_567_891 × 0.4321 / 1 = 533_456_785.7011 → 533_456_785
    // keep  = 9_970 × 9_990 = 99_600_300
    // least = 533_456_785 × 99_600_300 / 10^8 = 531_324_558.23… → 531_324_558
    const t = terms({ inputMint: JUP, amount: 1_234_567_891n, inputUsd: 0.4321, outputUsd: 1, inputDecimals: 6, outputDecimals: 6, slippageBps: 30, feeBps: 10 });
    expect(minimumSwapOutput(t)).toBe(531_324_558n);
  });

  it('lands exactly on a whole unit when the value and the factors are whole: 100 USDC -> USDT, 50 bps + 2 bps', () => {
    // value = 100_000_000; least = 100_000_000 × 99_480_100 / 10^8 = 99_480_100 exactly (one unit less is a wider bound).
    const t = terms({ inputMint: USDC, outputMint: USDT, amount: 100_000_000n, inputUsd: 1, outputUsd: 1, inputDecimals: 6, outputDecimals: 6, slippageBps: 50, feeBps: 2 });
    expect(minimumSwapOutput(t)).toBe(99_480_100n);
  });

  it('2 SOL at exactly $150 into USDC at $1, 50 bps slippage and 10 bps fee', () => {
    // value = 2_000_000_000 × 150 × 10^6 / 10^9 = 300_000_000; keep = 9_950 × 9_990 = 99_400_500
    // least = 300_000_000 × 99_400_500 / 10^8 = 298_201_500 exactly
    const t = terms({ amount: 2_000_000_000n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps: 10 });
    expect(minimumSwapOutput(t)).toBe(298_201_500n);
  });

  it('with no slippage and no fee is the value itself', () => {
    // 1 SOL at $150 = 150_000_000 USDC base units; factors 10_000 × 10_000 / 10^8 = 1.
    expect(minimumSwapOutput(terms({ amount: 1_000_000_000n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 }))).toBe(150_000_000n);
  });

  it('charges the fee and the slippage with the same weight: 10 bps of either off 5 USDC', () => {
    // 5_000_000 × 9_990 × 10_000 / 10^8 = 4_995_000, whichever of the two is 10 bps.
    const base = terms({ inputMint: USDC, outputMint: USDT, amount: 5_000_000n, inputUsd: 1, outputUsd: 1, inputDecimals: 6, outputDecimals: 6, slippageBps: 0, feeBps: 0 });
    expect(minimumSwapOutput({ ...base, feeBps: 10 })).toBe(4_995_000n);
    expect(minimumSwapOutput({ ...base, slippageBps: 10 })).toBe(4_995_000n);
  });

  it('rounds down at the last unit: 7 lamports at $150 are worth 1.05 USDC units, so 1; 1 lamport is worth 0', () => {
    // 7 × 150 × 10^6 / 10^9 = 1.05 → 1; 1 × 150 × 10^6 / 10^9 = 0.15 → 0.
    const t = terms({ amount: 7n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 });
    expect(minimumSwapOutput(t)).toBe(1n);
    expect(minimumSwapOutput({ ...t, amount: 1n })).toBe(0n);
  });

  it("takes the decimals of the chain's mint accounts over the feed's", () => {
    // The feed claims 6 and 6; the chain says SOL has 9: the 150.25 / 1.0001 case above, 149_453_904.
    const t = terms({ amount: 1_000_000_000n, inputUsd: 150.25, outputUsd: 1.0001, inputDecimals: 6, outputDecimals: 6, slippageBps: 50, feeBps: 2 });
    expect(minimumSwapOutput(t, { input: 9, output: 6 })).toBe(149_453_904n);
  });

  it('is the exact amount for an ExactOut swap, and refuses prices that are not positive', () => {
    expect(minimumSwapOutput(terms({ swapMode: 'ExactOut', amount: 123_456_789n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps: 2 }))).toBe(123_456_789n);
    expect(() => minimumSwapOutput(terms({ amount: 1n, inputUsd: 0, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 }))).toThrow(RangeError);
  });
});

describe('maximumSwapInput: the most an ExactOut swap may pay, by hand', () => {
  it('150 USDC at $1.0001 bought with SOL at $150.25, 50 bps slippage and 2 bps fee (9 -> 6 decimals)', () => {
    // cost  = 150_000_000 × 1.0001 / 150.25 × 10^9 / 10^6 = 600_060_000_000 / 601 = 998_435_940.099…
    // allow = 10_050 × 10_002 = 100_520_100
    // most  = 600_060_000_000 / 601 × 100_520_100 / 10^8 = 1_003_628_805.42… → 1_003_628_806 (rounded up once)
    const t = terms({ swapMode: 'ExactOut', amount: 150_000_000n, inputUsd: 150.25, outputUsd: 1.0001, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps: 2 });
    expect(maximumSwapInput(t)).toBe(1_003_628_806n);
    // At 1.5 × the slippage (75 bps): allow = 10_075 × 10_002 = 100_770_150,
    // 600_060_000_000 / 601 × 100_770_150 / 10^8 = 1_006_125_394.49… → 1_006_125_395.
    expect(maximumSwapInput({ ...t, slippageBps: 75 })).toBe(1_006_125_395n);
  });

  it('2 SOL at $151.37 bought with USDC at $0.9998, 100 bps slippage and 2 bps fee (6 -> 9 decimals)', () => {
    // cost  = 2_000_000_000 × 151.37 / 0.9998 × 10^6 / 10^9 = 1_513_700_000_000 / 4_999 = 302_800_560.112…
    // allow = 10_100 × 10_002 = 101_020_200
    // most  = 1_513_700_000_000 / 4_999 × 101_020_200 / 10^8 = 305_889_731.43… → 305_889_732
    const t = terms({ swapMode: 'ExactOut', inputMint: USDC, outputMint: SOL, amount: 2_000_000_000n, inputUsd: 0.9998, outputUsd: 151.37, inputDecimals: 6, outputDecimals: 9, slippageBps: 100, feeBps: 2 });
    expect(maximumSwapInput(t)).toBe(305_889_732n);
  });

  it('1,234.567891 USDC at $1 bought with JUP at $0.4321, 30 bps slippage and 10 bps fee (6 -> 6 decimals)', () => {
    // cost  = 1_234_567_891 × 1 / 0.4321 = 12_345_678_910_000 / 4_321 = 2_857_134_670.215…
    // allow = 10_030 × 10_010 = 100_400_300
    // most  = 12_345_678_910_000 / 4_321 × 100_400_300 / 10^8 = 2_868_571_780.30… → 2_868_571_781
    const t = terms({ swapMode: 'ExactOut', inputMint: JUP, amount: 1_234_567_891n, inputUsd: 0.4321, outputUsd: 1, inputDecimals: 6, outputDecimals: 6, slippageBps: 30, feeBps: 10 });
    expect(maximumSwapInput(t)).toBe(2_868_571_781n);
  });

  it('lands exactly on a whole unit when the cost and the factors are whole: 100 USDT for USDC, 50 bps + 2 bps', () => {
    // cost = 100_000_000; most = 100_000_000 × 100_520_100 / 10^8 = 100_520_100 exactly (one unit more is a wider bound).
    const t = terms({ swapMode: 'ExactOut', inputMint: USDC, outputMint: USDT, amount: 100_000_000n, inputUsd: 1, outputUsd: 1, inputDecimals: 6, outputDecimals: 6, slippageBps: 50, feeBps: 2 });
    expect(maximumSwapInput(t)).toBe(100_520_100n);
  });

  it('with no slippage and no fee is the cost itself: 0.3 SOL at $150 costs 45 USDC', () => {
    // cost = 300_000_000 × 150 / 1 × 10^6 / 10^9 = 45_000_000; factors 1.
    const t = terms({ swapMode: 'ExactOut', inputMint: USDC, outputMint: SOL, amount: 300_000_000n, inputUsd: 1, outputUsd: 150, inputDecimals: 6, outputDecimals: 9, slippageBps: 0, feeBps: 0 });
    expect(maximumSwapInput(t)).toBe(45_000_000n);
  });

  it('rounds up at the last unit, once: one USDC unit costs 6.67 lamports at $150, so 7; with 50 + 2 bps, 6.70 so still 7', () => {
    // cost = 1 × 1 / 150 × 10^9 / 10^6 = 20/3 = 6.67 → 7; 20/3 × 100_520_100 / 10^8 = 6.701… → 7 (rounding the cost
    // first and then the factors would give 8: one lamport the intent never allowed).
    const t = terms({ swapMode: 'ExactOut', amount: 1n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 });
    expect(maximumSwapInput(t)).toBe(7n);
    expect(maximumSwapInput({ ...t, slippageBps: 50, feeBps: 2 })).toBe(7n);
  });

  it('is the exact amount for an ExactIn swap, and refuses prices that are not positive', () => {
    expect(maximumSwapInput(terms({ amount: 987_654_321n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps: 2 }))).toBe(987_654_321n);
    expect(() => maximumSwapInput(terms({ swapMode: 'ExactOut', amount: 1n, inputUsd: 150, outputUsd: -1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 }))).toThrow(RangeError);
  });
});

describe('the bounds where the price ratio has no short decimal form', () => {
  // swapValue.ts once carried the ratio of the two feed prices as an integer scaled by 10^12, rounded down (ExactIn)
  // or up (ExactOut): when the ratio is small that rounding is large relative to it, and it landed in the bound (0.16
  // to 0.29 % here). The ratio is now exact.
  it('ExactOut: 150 USDC at $1 bought with SOL at exactly $150 costs exactly 1 SOL, not 1 SOL + 1 lamport', () => {
    // cost = 150_000_000 × 1 / 150 × 10^9 / 10^6 = 1_000_000_000 exactly; no slippage, no fee.
    // At 12 decimals 1/150 rounded up to 0.006666666667 allowed 1_000_000_001.
    const t = terms({ swapMode: 'ExactOut', amount: 150_000_000n, inputUsd: 150, outputUsd: 1, inputDecimals: 9, outputDecimals: 6, slippageBps: 0, feeBps: 0 });
    expect(maximumSwapInput(t)).toBe(1_000_000_000n);
  });

  it('ExactOut: 1e9 of a $0.0000215 token (5 decimals) bought with a $97,000 token (8 decimals) costs 22,164,949 units', () => {
    // cost = 10^14 × 0.0000215 / 97_000 × 10^8 / 10^5 = 21_500 / 97_000 × 10^8 = 22_164_948.45… → 22_164_949.
    // The ratio 0.0000215 / 97_000 = 2.216…e-10 is 221.6 at the 10^12 scale: rounded up to 222 it allowed
    // 22_200_000, 35_051 units (0.16 %) more than the bound, before any slippage.
    const t = terms({ swapMode: 'ExactOut', inputMint: UNKNOWN, outputMint: BONK, amount: 100_000_000_000_000n, inputUsd: 97_000, outputUsd: 0.0000215, inputDecimals: 8, outputDecimals: 5, slippageBps: 0, feeBps: 0 });
    expect(maximumSwapInput(t)).toBe(22_164_949n);
  });

  it('ExactIn: 1e9 of a $0.0000215 token sold for a $97,000 token is worth 22,164,948 units', () => {
    // value = 22_164_948.45… → 22_164_948. The ratio rounded down to 221 asked only 22_100_000 (0.29 % less than
    // the value: a looser bound, letting the venue return less).
    const t = terms({ inputMint: BONK, outputMint: UNKNOWN, amount: 100_000_000_000_000n, inputUsd: 0.0000215, outputUsd: 97_000, inputDecimals: 5, outputDecimals: 8, slippageBps: 0, feeBps: 0 });
    expect(minimumSwapOutput(t)).toBe(22_164_948n);
  });
});

describe("Ultra's fee table (jupiter-api.md §1.2, docs ultra/fees.mdx), row by row", () => {
  const NEW = { warnings: ['NEW_LISTING'] };

  it('buying Jupiter tokens with SOL or a stablecoin is free: SOL/Stable -> JUP/JLP/jupSOL, 0 bps', () => {
    for (const [a, b] of [[SOL, JUP], [USDC, JUP], [USDT, JLP], [SOL, JLP], [USDC, JUPSOL], [JUPUSD, JUP], [SOL, JUPSOL]] as const) {
      expect(ultraMaxFeeBps(a, b), `${a} -> ${b}`).toBe(0);
    }
  });

  it('pegged pairs are free: stable-stable and LST-LST, 0 bps', () => {
    for (const [a, b] of [[USDC, USDT], [USDT, USDC], [USDC, JUPUSD], [JUPUSD, USDT], [MSOL, JUPSOL], [JUPSOL, MSOL]] as const) {
      expect(ultraMaxFeeBps(a, b), `${a} -> ${b}`).toBe(0);
    }
  });

  it('SOL-stable is 2 bps, both ways', () => {
    for (const [a, b] of [[SOL, USDC], [USDC, SOL], [SOL, USDT], [JUPUSD, SOL]] as const) expect(ultraMaxFeeBps(a, b), `${a} -> ${b}`).toBe(2);
  });

  it('LST-stable is 5 bps, both ways (selling jupSOL is not buying it)', () => {
    for (const [a, b] of [[MSOL, USDC], [USDT, MSOL], [JUPSOL, USDC], [JUPSOL, JUPUSD]] as const) expect(ultraMaxFeeBps(a, b), `${a} -> ${b}`).toBe(5);
  });

  it('everything else is 10 bps: selling JUP or JLP, memecoins, tokens jup-keeper does not know', () => {
    for (const [a, b] of [[JUP, USDC], [JLP, SOL], [BONK, USDC], [SOL, WIF], [WIF, BONK], [UNKNOWN, SOL], [USDC, UNKNOWN]] as const) {
      expect(ultraMaxFeeBps(a, b), `${a} -> ${b}`).toBe(10);
    }
    // A warning that is not NEW_LISTING does not make a token new.
    expect(ultraMaxFeeBps(SOL, UNKNOWN, { output: { warnings: ['LOW_LIQUIDITY'] } })).toBe(10);
  });

  it('a token less than a day old (shield NEW_LISTING) is 50 bps, on either side', () => {
    expect(ultraMaxFeeBps(SOL, UNKNOWN, { output: NEW })).toBe(50);
    expect(ultraMaxFeeBps(UNKNOWN, USDC, { input: NEW })).toBe(50);
  });

  it('feeds the bound: 1 SOL at $150.25 into USDC at $1.0001 at the table\'s SOL-stable fee and 50 bps is 149,453,904', () => {
    // The first minimumSwapOutput case above, with its 2 bps taken from the table.
    const feeBps = ultraMaxFeeBps(SOL, USDC);
    expect(minimumSwapOutput(terms({ amount: 1_000_000_000n, inputUsd: 150.25, outputUsd: 1.0001, inputDecimals: 9, outputDecimals: 6, slippageBps: 50, feeBps }))).toBe(149_453_904n);
  });
});

describe("the fee table reads no more into Jupiter's rows than they say", () => {
  // The documented rows name SOL/Stable -> JUP/JLP/jupSOL as free, and LST-LST and stable-stable as pegged; any other
  // pair is "everything else", 10 bps. The table is an upper bound: a lower number than the documented charge would
  // refuse honest swaps (feeTable.ts once freed a purchase of JUP/JLP/jupSOL with any token, and SOL-LST).
  it('buying JUP with BONK is "everything else", 10 bps', () => {
    expect(ultraMaxFeeBps(BONK, JUP)).toBe(10);
  });

  it('SOL -> mSOL is not a documented pegged pair: 10 bps', () => {
    expect(ultraMaxFeeBps(SOL, MSOL)).toBe(10);
  });
});
