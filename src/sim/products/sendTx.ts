import { ComputeBudgetProgram, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { tokenProgramId, type SimToken } from '../catalog.js';
import type { LedgerRecord } from '../chain/chain.js';
import type { EscrowBook } from './escrow.js';
import type { Venue } from '../venue.js';
import { claimInstruction, claimTokenInstruction, clawbackInstruction, clawbackTokenInstruction, expireInstruction, expireTokenInstruction, initializeInstruction, initializeTokenInstruction, type TokenInviteAccounts } from '../../jupiter/programs/send.js';

/** Compute-unit limit of a send or clawback transaction. */
export const SEND_COMPUTE_UNITS = 60_000;
/** Compute-unit price of a send or clawback transaction, micro-lamports. */
export const SEND_MICRO_LAMPORTS = 10_000n;
/** Priority fee those transactions pay, lamports (rounded up, as the runtime does). */
export const SEND_PRIORITY_FEE_LAMPORTS = (BigInt(SEND_COMPUTE_UNITS) * SEND_MICRO_LAMPORTS + 999_999n) / 1_000_000n;

/** One invite's accounts and terms, what every transaction about it needs. */
export interface InviteTerms {
  /** The invite PDA: the escrow's authority. */
  pda: PublicKey;
  inviteSigner: PublicKey;
  sender: PublicKey;
  token: SimToken;
  /** Base units of `token` (lamports of wrapped SOL for SOL). */
  amount: bigint;
  /** The escrow: the PDA's associated token account, or for a native-SOL invite the invite account (the PDA) itself. */
  escrow: PublicKey;
  /** A native-SOL invite (the program's `initialize`, lamports held by the invite account), not a token invite. */
  native: boolean;
  expiryMs: number;
  /** The invite PDA's bump (written into the invite account when the send lands). */
  bump: number;
}

function accounts(t: InviteTerms): TokenInviteAccounts {
  return { inviteInfo: t.pda, escrow: t.escrow, mint: new PublicKey(t.token.mint), tokenProgram: new PublicKey(tokenProgramId(t.token)) };
}

function computeBudget(): TransactionInstruction[] {
  return [ComputeBudgetProgram.setComputeUnitLimit({ units: SEND_COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: SEND_MICRO_LAMPORTS })];
}

/**
 * The sender's craft-send transaction: the deposit into the invite's escrow and the program's `initialize_token`,
 * which the invite signer co-signs (so two signatures: sender and invite).
 */
export function sendInstructions(venue: Venue, escrows: EscrowBook, t: InviteTerms): TransactionInstruction[] {
  if (t.native) {
    // The program's `initialize` moves the lamports into the invite account by CPI; beside the no-op program here.
    const init = initializeInstruction({ sender: t.sender, inviteSigner: t.inviteSigner, inviteInfo: t.pda, expirySeconds: BigInt(Math.floor(t.expiryMs / 1000)), amount: t.amount });
    return [...computeBudget(), SystemProgram.transfer({ fromPubkey: t.sender, toPubkey: t.pda, lamports: t.amount }), init];
  }
  const init = initializeTokenInstruction({
    ...accounts(t),
    sender: t.sender,
    inviteSigner: t.inviteSigner,
    senderTokenAccount: venue.ata(t.sender, t.token),
    expirySeconds: BigInt(Math.floor(t.expiryMs / 1000)),
    amount: t.amount,
  });
  return [...computeBudget(), ...escrows.depositInstructions(t.sender, t.token, t.escrow, t.amount), init];
}

/**
 * The sender's craft-clawback transaction: the program's `clawback_token` and the payment of the whole escrow back
 * to the sender, which the venue's keeper (the escrow's delegate) co-signs at settlement. Returns the venue's own
 * instructions apart, for the ticket that lets the keeper sign only this.
 */
export function clawbackInstructions(venue: Venue, escrows: EscrowBook, t: InviteTerms): { instructions: TransactionInstruction[]; venueSide: TransactionInstruction[] } {
  if (t.native) {
    const venueSide = [clawbackInstruction({ inviteInfo: t.pda, sender: t.sender }), ...nativePayout(venue, t, t.sender)];
    return { instructions: [...computeBudget(), ...venueSide], venueSide };
  }
  const clawback = clawbackTokenInstruction({ ...accounts(t), sender: t.sender, senderTokenAccount: venue.ata(t.sender, t.token) });
  const venueSide = [clawback, ...escrows.payoutInstructions(t.escrow, t.token, t.sender, t.amount)];
  return { instructions: [...computeBudget(), ...venueSide], venueSide };
}

/** The keeper's claim of an invite for `claimer`: `claim_token`, signed by the invite signer too, and the payout. */
export function claimInstructions(venue: Venue, escrows: EscrowBook, t: InviteTerms, claimer: PublicKey): TransactionInstruction[] {
  if (t.native) return [claimInstruction({ inviteInfo: t.pda, inviteSigner: t.inviteSigner, claimer, keeper: venue.keeper.publicKey }), ...nativePayout(venue, t, claimer)];
  const claim = claimTokenInstruction({ ...accounts(t), inviteSigner: t.inviteSigner, claimer, keeper: venue.keeper.publicKey, claimerTokenAccount: venue.ata(claimer, t.token) });
  return [claim, ...escrows.payoutInstructions(t.escrow, t.token, claimer, t.amount)];
}

/** The keeper's expiry of an invite: `expire_token` and the payout back to the sender. */
export function expireInstructions(venue: Venue, escrows: EscrowBook, t: InviteTerms): TransactionInstruction[] {
  if (t.native) return [expireInstruction({ inviteInfo: t.pda, sender: t.sender, keeper: venue.keeper.publicKey }), ...nativePayout(venue, t, t.sender)];
  const expire = expireTokenInstruction({ ...accounts(t), sender: t.sender, senderTokenAccount: venue.ata(t.sender, t.token), keeper: venue.keeper.publicKey });
  return [expire, ...escrows.payoutInstructions(t.escrow, t.token, t.sender, t.amount)];
}

/**
 * A native-SOL invite paid out: the program closes the invite account to `to` (by direct lamport writes, which no
 * instruction shows); here the keeper pays `to` the invite's lamports and the venue closes the account once the
 * transaction lands (SendDesk.close), so the invite's lamports end with the venue that paid them.
 */
export function nativePayout(venue: Venue, t: InviteTerms, to: PublicKey): TransactionInstruction[] {
  return [SystemProgram.transfer({ fromPubkey: venue.keeper.publicKey, toPubkey: to, lamports: inviteLamports(venue, t) })];
}

/** What a native-SOL invite account holds: its lamports (the amount sent; its rent is not charged here), else the amount. */
export function inviteLamports(venue: Venue, t: InviteTerms): bigint {
  const held = venue.chain.lamports(t.pda);
  return held > 0n ? held : t.amount;
}

/**
 * What the ledger records about an invite. `wallet` is the wallet the entry's amount concerns: the sender for the
 * send (what it paid in) and for a clawback or expiry (what it got back), the recipient for a claim (what it was
 * paid). `requestId` is the invite PDA, which ties the entries of one invite together.
 */
export function inviteRecord(kind: 'send-invite' | 'send-claim' | 'send-clawback', t: InviteTerms, wallet: PublicKey, amount = t.amount): LedgerRecord {
  const paidIn = kind === 'send-invite';
  return {
    kind,
    wallet: wallet.toBase58(),
    requestId: t.pda.toBase58(),
    inputMint: paidIn ? t.token.mint : null,
    inputAmount: paidIn ? amount : null,
    outputMint: paidIn ? null : t.token.mint,
    outputAmount: paidIn ? null : amount,
  };
}
