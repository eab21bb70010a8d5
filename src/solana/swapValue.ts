/**
 * A swap's terms as the guard values them: the intent's amount, the feed's USD prices of both mints, the intent's
 * slippage bound and the most fee the venue's documented fee table allows for the pair.
 */
export interface SwapTerms {
  inputMint: string;
  outputMint: string;
  /**
   * ExactIn (the default): `amount` is the input spent and the output must be worth it. ExactOut: `amount` is the
   * output to receive exactly and the input paid may be worth it plus the bounds, no more.
   */
  swapMode?: 'ExactIn' | 'ExactOut' | undefined;
  /** The intent's amount, base units: of the input (ExactIn) or of the output (ExactOut). */
  amount: bigint;
  /** USD per whole token, from the price feed. */
  inputUsd: number;
  outputUsd: number;
  /** Decimals the feed reported, used only when the chain's mint account cannot be read. */
  inputDecimals: number;
  outputDecimals: number;
  /** The intent's slippage bound (or the configured maximum), bps. */
  slippageBps: number;
  /** The most the venue's fee table charges for this pair, bps. */
  feeBps: number;
}

/**
 * A finite positive number as the exact fraction it is: a double is a 53-bit integer times a power of two, so
 * doubling it until it is whole is exact and takes at most 1,074 steps. The feed's prices stay numbers; every bound
 * computed from them is then exact, with one rounding at the end (at 12 decimals, a ratio of a $0.00002 token to a
 * $97,000 one kept 3 significant digits, and loosened the bound by 0.16 %).
 */
function exactFraction(x: number): { n: bigint; d: bigint } {
  if (!(x > 0) || !Number.isFinite(x)) throw new RangeError('swap valuation needs positive finite prices');
  let v = x;
  let shift = 0n;
  while (!Number.isInteger(v)) {
    v *= 2;
    shift += 1n;
  }
  return { n: BigInt(v), d: 1n << shift };
}

/**
 * The least output the wallet must receive, base units: the amount's value at the feed's prices, less the slippage
 * bound and the fee. Decimals come from the chain (the mint accounts) where known. Exact, rounded down once.
 */
export function minimumSwapOutput(t: SwapTerms, chainDecimals: { input?: number | undefined; output?: number | undefined } = {}): bigint {
  if (t.swapMode === 'ExactOut') return t.amount;
  const input = exactFraction(t.inputUsd);
  const output = exactFraction(t.outputUsd);
  const dIn = chainDecimals.input ?? t.inputDecimals;
  const dOut = chainDecimals.output ?? t.outputDecimals;
  const keep = BigInt(Math.max(0, 10_000 - t.slippageBps)) * BigInt(Math.max(0, 10_000 - t.feeBps));
  // amount × (inputUsd / outputUsd) × 10^dOut / 10^dIn × keep / 10^8
  const num = t.amount * input.n * output.d * 10n ** BigInt(dOut) * keep;
  const den = input.d * output.n * 10n ** BigInt(dIn) * 100_000_000n;
  return num / den;
}

/**
 * The most input an ExactOut swap may pay, base units of the input: the exact output's value at the feed's prices,
 * plus the slippage bound and the fee. Decimals come from the chain (the mint accounts) where known. Exact, rounded
 * up once. For an ExactIn swap it is the intent's amount itself.
 */
export function maximumSwapInput(t: SwapTerms, chainDecimals: { input?: number | undefined; output?: number | undefined } = {}): bigint {
  if (t.swapMode !== 'ExactOut') return t.amount;
  const input = exactFraction(t.inputUsd);
  const output = exactFraction(t.outputUsd);
  const dIn = chainDecimals.input ?? t.inputDecimals;
  const dOut = chainDecimals.output ?? t.outputDecimals;
  const allow = BigInt(10_000 + Math.max(0, t.slippageBps)) * BigInt(10_000 + Math.max(0, t.feeBps));
  // amount × (outputUsd / inputUsd) × 10^dIn / 10^dOut × allow / 10^8
  const num = t.amount * output.n * input.d * 10n ** BigInt(dIn) * allow;
  const den = output.d * input.n * 10n ** BigInt(dOut) * 100_000_000n;
  return ceilDiv(num, den);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
