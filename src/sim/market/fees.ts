import type { SimToken } from '../catalog.js';

/** Jupiter's Ultra fee tier of a pair, in bps (jupiter-api.md §1.2 Fees). */
export function ultraFeeBps(input: SimToken, output: SimToken, nowMs: number, startMs: number): number {
  const isNew = (t: SimToken): boolean => t.category === 'new' && nowMs - (startMs - t.ageMs) < 86_400_000;
  if (isNew(input) || isNew(output)) return 50;
  if (output.category === 'jup') return 0;
  const solFamily = (t: SimToken): boolean => t.category === 'sol' || t.category === 'lst' || t.peg?.symbol === 'SOL';
  if (input.category === 'stable' && output.category === 'stable') return 0;
  if (solFamily(input) && solFamily(output)) return 0;
  const pair = new Set([input.category, output.category]);
  if (pair.has('stable') && (input.category === 'sol' || output.category === 'sol')) return 2;
  if (pair.has('stable') && (solFamily(input) || solFamily(output))) return 5;
  return 10;
}

/** The slippage Ultra picks in its automatic mode: tighter for pegged pairs, wider for volatile tokens, in bps. */
export function autoSlippageBps(input: SimToken, output: SimToken): number {
  const vol = Math.max(input.dailyVol, output.dailyVol);
  if (vol <= 0.001) return 5;
  if (vol <= 0.05) return 30;
  if (vol <= 0.1) return 100;
  return 300;
}

/** Rank of a token in Ultra's fee-mint priority list: SOL, then stables, LSTs, bluechips, the rest (lower first). */
function feeMintRank(t: SimToken): number {
  if (t.category === 'sol') return 0;
  if (t.category === 'stable') return 1;
  if (t.category === 'lst' || t.peg?.symbol === 'SOL') return 2;
  if (t.category === 'bluechip' || t.category === 'jup') return 3;
  return 4;
}

/**
 * The side Ultra takes its fee on: the mint of higher priority (SOL > stables > LSTs > bluechips > others), the
 * output on a tie. DOCS `ultra/add-fees-to-ultra.mdx`: SOL→USDC and USDC→SOL both pay in SOL, MEME→USDC in USDC.
 */
export function feeSide(input: SimToken, output: SimToken): 'input' | 'output' {
  return feeMintRank(input) < feeMintRank(output) ? 'input' : 'output';
}
