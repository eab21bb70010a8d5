import { knownByMint, type MintCategory } from '../lib/mints.js';

/** What the fee table needs to know of a token besides its mint. */
export interface FeeFacts {
  /** Shield warning types of the token (NEW_LISTING marks a token younger than a day). */
  warnings?: readonly string[];
}

/**
 * The most Ultra charges for a pair, in bps, from Jupiter's documented fee table (jupiter-api.md §1.2, DOCS
 * ultra/fees.mdx): buying JUP, JLP or jupSOL with SOL or a stablecoin 0; pegged pairs (LST-LST, stable-stable) 0;
 * SOL-stable 2; LST-stable 5; everything else 10 (SOL-LST other than buying jupSOL, and buying JUP with another
 * token, are not in the free rows); a token less than a day old 50. A token jup-keeper does not know is "everything
 * else" unless its shield warnings say it is new. An upper bound: the venue may charge less, never more; a bound
 * below the documented charge would refuse honest swaps.
 */
export function ultraMaxFeeBps(inputMint: string, outputMint: string, facts: { input?: FeeFacts; output?: FeeFacts } = {}): number {
  const isNew = (f?: FeeFacts) => f?.warnings?.includes('NEW_LISTING') === true;
  if (isNew(facts.input) || isNew(facts.output)) return 50;
  const a = categoryOf(inputMint);
  const b = categoryOf(outputMint);
  const buysJupiterToken = b === 'jup' || (b === 'lst' && knownByMint(outputMint)?.symbol === 'jupSOL');
  if (buysJupiterToken && (a === 'sol' || a === 'stable')) return 0;
  if (a === 'stable' && b === 'stable') return 0;
  if (a === 'lst' && b === 'lst') return 0;
  if ((a === 'stable' && b === 'sol') || (a === 'sol' && b === 'stable')) return 2;
  if ((a === 'stable' && b === 'lst') || (a === 'lst' && b === 'stable')) return 5;
  return 10;
}

function categoryOf(mint: string): MintCategory {
  return knownByMint(mint)?.category ?? 'other';
}
