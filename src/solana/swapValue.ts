/**
 * A swap's terms as the guard values them: the intent's amount, the feed's USD prices of both mints, the intent's
 * slippage bound and the most fee the venue's documented fee table allows for the pair.
 */
export interface SwapTerms {
  inputMint: string;
  outputMint: string;
  /** The intent's input amount, base units. */
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
  if (!(t.inputUsd > 0) || !(t.outputUsd > 0) || !Number.isFinite(t.inputUsd / t.outputUsd)) throw new RangeError('swap valuation needs positive finite prices');
  const dIn = chainDecimals.input ?? t.inputDecimals;
  const dOut = chainDecimals.output ?? t.outputDecimals;
  // The price ratio as a fixed-point integer: amounts stay bigint, only the ratio of two feed prices is a float.
  const ratio = BigInt(Math.floor((t.inputUsd / t.outputUsd) * Number(SCALE)));
  const worth = (t.amount * ratio * 10n ** BigInt(dOut)) / (SCALE * 10n ** BigInt(dIn));
  const keep = BigInt(Math.max(0, 10_000 - t.slippageBps)) * BigInt(Math.max(0, 10_000 - t.feeBps));
  return (worth * keep) / 100_000_000n;
}
