import { PublicKey } from '@solana/web3.js';
import { getAssociatedTokenAddressSync, MintLayout, MINT_SIZE } from '@solana/spl-token';
import type { Venue } from '../venue.js';
import type { Reply } from './common.js';
import { shieldWarnings, type ShieldWarning } from './tokenData.js';

const SOL_DECIMALS = 9;

/** A base-unit amount in UI units as a decimal string without trailing zeros ("1", "0.5", "1.000001"). */
export function uiAmountString(amount: bigint, decimals: number): string {
  if (decimals === 0) return amount.toString();
  const scale = 10n ** BigInt(decimals);
  const whole = amount / scale;
  const frac = (amount % scale).toString().padStart(decimals, '0').replace(/0+$/, '');
  return frac === '' ? whole.toString() : `${whole}.${frac}`;
}

function native(lamports: bigint): { amount: bigint; uiAmount: number; uiAmountString: string } {
  const ui = uiAmountString(lamports, SOL_DECIMALS);
  return { amount: lamports, uiAmount: Number(ui), uiAmountString: ui };
}

/** Decimals of a mint: the catalog's, or read from the mint account for mints the catalog does not list. */
function mintDecimals(venue: Venue, mint: string): number | undefined {
  const listed = venue.token(mint);
  if (listed) return listed.decimals;
  const account = venue.chain.account(new PublicKey(mint));
  if (!account || account.data.length < MINT_SIZE) return undefined;
  return MintLayout.decode(Buffer.from(account.data).subarray(0, MINT_SIZE)).decimals;
}

/** GET /ultra/v1/holdings/{address}/native: the wallet's SOL in lamports. */
export function nativeHoldings(venue: Venue, address: string): Reply {
  return { status: 200, body: native(venue.chain.lamports(new PublicKey(address))) };
}

/**
 * GET /ultra/v1/holdings/{address}: native SOL (top-level amounts, lamports) and every token account of the
 * wallet, keyed by mint, with its state as the chain holds it now.
 */
export function holdings(venue: Venue, address: string): Reply {
  const owner = new PublicKey(address);
  const tokens: Record<string, unknown[]> = {};
  for (const acc of venue.chain.tokenAccountsOf(address)) {
    const decimals = mintDecimals(venue, acc.mint);
    if (decimals === undefined) continue;
    const ata = getAssociatedTokenAddressSync(new PublicKey(acc.mint), owner, true, new PublicKey(acc.program)).toBase58();
    const ui = uiAmountString(acc.amount, decimals);
    (tokens[acc.mint] ??= []).push({
      account: acc.address,
      amount: acc.amount,
      uiAmount: Number(ui),
      uiAmountString: ui,
      isFrozen: acc.frozen,
      isAssociatedTokenAccount: ata === acc.address,
      decimals,
      programId: acc.program,
      lamports: BigInt(venue.chain.account(new PublicKey(acc.address))?.lamports ?? 0),
    });
  }
  return { status: 200, body: { ...native(venue.chain.lamports(owner)), tokens } };
}

/** GET /ultra/v1/balances/{address} (deprecated): `SOL` and each mint to `{amount, uiAmount, slot, isFrozen}`. */
export function balances(venue: Venue, address: string): Reply {
  const slot = Number(venue.clock.slot());
  const lamports = venue.chain.lamports(new PublicKey(address));
  const out: Record<string, { amount: bigint; uiAmount: number; slot: number; isFrozen: boolean }> = {
    SOL: { amount: lamports, uiAmount: Number(uiAmountString(lamports, SOL_DECIMALS)), slot, isFrozen: false },
  };
  for (const acc of venue.chain.tokenAccountsOf(address)) {
    const decimals = mintDecimals(venue, acc.mint);
    if (decimals === undefined) continue;
    const prev = out[acc.mint];
    const amount = (prev?.amount ?? 0n) + acc.amount;
    out[acc.mint] = { amount, uiAmount: Number(uiAmountString(amount, decimals)), slot, isFrozen: (prev?.isFrozen ?? false) || acc.frozen };
  }
  return { status: 200, body: out };
}

/** GET /ultra/v1/shield?mints=: warnings per requested mint; listed clean tokens and unknown mints map to `[]`. */
export function shield(venue: Venue, mints: readonly string[]): Reply {
  const warnings: Record<string, ShieldWarning[]> = {};
  for (const mint of mints) {
    const token = venue.token(mint);
    warnings[mint] = token ? shieldWarnings(venue, token) : [];
  }
  return { status: 200, body: { warnings } };
}
