import { Keypair } from '@solana/web3.js';
import { seedBytes } from '../rng.js';
import type { Venue } from '../venue.js';

/** A taker holding less than this many lamports (0.01 SOL) qualifies for Ultra's gasless support. */
export const GASLESS_MAX_TAKER_LAMPORTS = 10_000_000n;
/** Smallest trade gasless support covers, in USD (DOCS `ultra/gasless.mdx`: "about 10 USD", dynamic). */
export const GASLESS_MIN_TRADE_USD = 10;
/** What the simulated gas wallet starts with, in lamports. */
const GAS_WALLET_LAMPORTS = 1_000_000n * 1_000_000_000n;

/**
 * Jupiter Ultra's own gas payer (DOCS `ultra/gasless.mdx`: "It adds a secondary signer to the transaction to pay to
 * be the gas payer which is Jupiter Ultra's self gas payer"): the fee payer of a gasless order, which pays the
 * signature fees, the priority fee and the rent of the accounts the swap opens, and signs at execute. The gas it
 * spends is recouped through a higher fee on the swap (see gaslessFeeBps), which the vault keeps.
 */
export class GasWallet {
  readonly keypair: Keypair;

  constructor(venue: Venue) {
    this.keypair = Keypair.fromSeed(seedBytes('ultra-gas-wallet'));
    if (venue.chain.lamports(this.keypair.publicKey) === 0n) venue.chain.airdropLamports(this.keypair.publicKey, GAS_WALLET_LAMPORTS);
  }
}

/** Why an order does or does not get gasless support. */
export interface GaslessChoice {
  /** The order is built with the gas wallet as fee payer. */
  gasless: boolean;
  /**
   * Set when the taker cannot pay its own gas and gasless support does not apply: errorCode 3 below the gasless
   * minimum, 2 when integrator or manual parameters rule gasless out (DOCS `ultra/gasless.mdx`, scenario matrix).
   */
  refusal?: 2 | 3;
}

/**
 * Ultra's gasless rules (jupiter-api.md §1.2): a taker holding under 0.01 SOL trading about 10 USD or more in a
 * default order (no referral, payer or manual parameters) gets the gas wallet as fee payer. A taker under 0.01 SOL
 * with a smaller trade pays its own gas when it can, and is refused otherwise.
 */
export function chooseGasless(o: { takerLamports: bigint; gasLamports: bigint; tradeUsd: number; eligibleParams: boolean }): GaslessChoice {
  if (o.eligibleParams && o.takerLamports < GASLESS_MAX_TAKER_LAMPORTS && o.tradeUsd >= GASLESS_MIN_TRADE_USD) return { gasless: true };
  if (o.takerLamports >= o.gasLamports) return { gasless: false };
  return { gasless: false, refusal: o.eligibleParams ? 3 : 2 };
}

/** The fee in bps that recoups `gasLamports` of gas on a trade worth `tradeUsd`, rounded up (SOL at `solUsd`). */
export function gaslessFeeBps(gasLamports: bigint, solUsd: number, tradeUsd: number): number {
  if (!(tradeUsd > 0)) return 0;
  return Math.ceil(((Number(gasLamports) / 1e9) * solUsd * 10_000) / tradeUsd);
}
