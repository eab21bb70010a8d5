import { liquidityPda } from '@jup-ag/lend';

// Apart from ./shared.ts: @jup-ag/lend (with @solana/spl-token) is ~150 ES modules, 0.2-0.3 s of CPU at the
// keeper's start-up through tsx, and the client (which every keeper creates at start) imports ./shared.ts. Only a
// lend build needs this; src/execution/build.ts loads it then.

/**
 * The authority of every Earn vault: the liquidity program's (jupeiUmn…) `liquidity` PDA, 7s1da8…, derived by
 * @jup-ag/lend with the program's published seeds. An Earn deposit moves the asset into this authority's associated
 * token account (`vault` in the program's deposit instruction), not into an account of the Earn program itself.
 */
export function lendVaultAuthority(): string {
  return liquidityPda.getLiquidity().toBase58();
}
