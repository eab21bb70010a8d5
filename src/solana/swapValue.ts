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

const SCALE = 1_000_000_000_000n;

/**
 * The least output the wallet must receive, base units: the amount's value at the feed's prices, less the slippage
 * bound and the fee. Decimals come from the chain (the mint accounts) where known. Rounded down.
 */
export function minimumSwapOutput(t: SwapTerms, chainDecimals: { input?: number | undefined; output?: number | undefined } = {}): bigint {
  if (t.swapMode === 'ExactOut') return t.amount;
  if (!(t.inputUsd > 0) || !(t.outputUsd > 0) || !Number.isFinite(t.inputUsd / t.outputUsd)) throw new RangeError('swap valuation needs positive finite prices');
  const dIn = chainDecimals.input ?? t.inputDecimals;
  const dOut = chainDecimals.output ?? t.outputDecimals;
  // The price ratio as a fixed-point integer: amounts stay bigint, only the ratio of two feed prices is a float.
  const ratio = BigInt(Math.floor((t.inputUsd / t.outputUsd) * Number(SCALE)));
  const worth = (t.amount * ratio * 10n ** BigInt(dOut)) / (SCALE * 10n ** BigInt(dIn));
  const keep = BigInt(Math.max(0, 10_000 - t.slippageBps)) * BigInt(Math.max(0, 10_000 - t.feeBps));
  return (worth * keep) / 100_000_000n;
}

/**
 * The most input an ExactOut swap may pay, base units of the input: the exact output's value at the feed's prices,
 * plus the slippage bound and the fee. Decimals come from the chain (the mint accounts) where known. Rounded up.
 * For an ExactIn swap it is the intent's amount itself.
 */
export function maximumSwapInput(t: SwapTerms, chainDecimals: { input?: number | undefined; output?: number | undefined } = {}): bigint {
  if (t.swapMode !== 'ExactOut') return t.amount;
  if (!(t.inputUsd > 0) || !(t.outputUsd > 0) || !Number.isFinite(t.outputUsd / t.inputUsd)) throw new RangeError('swap valuation needs positive finite prices');
  const dIn = chainDecimals.input ?? t.inputDecimals;
  const dOut = chainDecimals.output ?? t.outputDecimals;
  const ratio = BigInt(Math.ceil((t.outputUsd / t.inputUsd) * Number(SCALE)));
  const cost = ceilDiv(t.amount * ratio * 10n ** BigInt(dIn), SCALE * 10n ** BigInt(dOut));
  const allow = BigInt(10_000 + Math.max(0, t.slippageBps)) * BigInt(10_000 + Math.max(0, t.feeBps));
  return ceilDiv(cost * allow, 100_000_000n);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}
