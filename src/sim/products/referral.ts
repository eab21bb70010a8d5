import { PublicKey } from '@solana/web3.js';
import type { SimToken } from '../catalog.js';
import type { Venue } from '../venue.js';

/** Jupiter's share of an integrator fee, in percent (DOCS `ultra/add-fees-to-ultra.mdx`: "Jupiter takes 20%"). */
export const OPERATOR_SHARE_PERCENT = 20n;

/**
 * An integrator fee that applies to an order: the referral account, the token account its share is paid into, and
 * the split of the fee between the integrator and Jupiter.
 */
export interface ReferralFee {
  referralAccount: PublicKey;
  /** The referral token account of the fee mint. */
  tokenAccount: PublicKey;
  feeBps: number;
}

/**
 * The referral token account of a referral account for a mint. The Referral program's V2 token accounts (what
 * Ultra's docs create with `initializeReferralTokenAccountV2`) are the associated token accounts of the referral
 * account (`associated_token::authority = referral_account`), so anyone can open one with the ATA program.
 */
export function referralTokenAccount(venue: Venue, referralAccount: PublicKey, feeToken: SimToken): PublicKey {
  return venue.ata(referralAccount, feeToken);
}

/**
 * The integrator fee an order gets, or undefined when it does not apply: Ultra still answers and executes the
 * order, but "without your fees", at its default fee, when the referral token account of the fee mint is not
 * initialized (DOCS `ultra/add-fees-to-ultra.mdx`).
 */
export function referralFeeFor(venue: Venue, referralAccount: string, referralFeeBps: number, feeToken: SimToken): ReferralFee | undefined {
  const account = new PublicKey(referralAccount);
  const tokenAccount = referralTokenAccount(venue, account, feeToken);
  const held = venue.chain.tokenAccount(tokenAccount);
  if (!held || held.mint !== feeToken.mint) return undefined;
  return { referralAccount: account, tokenAccount, feeBps: referralFeeBps };
}

/** Splits an integrator fee (base units): Jupiter keeps 20 % (rounded down), the integrator gets the rest. */
export function splitIntegratorFee(fee: bigint): { integrator: bigint; operator: bigint } {
  const operator = (fee * OPERATOR_SHARE_PERCENT) / 100n;
  return { integrator: fee - operator, operator };
}
