import { createHash } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { PROGRAM_IDS } from '../../lib/programIds.js';

/**
 * The Jupiter Send invite-escrow program (inv1tEtS…, named `inviteEscrow`), as its generated client lays it out:
 * Anchor instructions `initialize_token`, `claim_token`, `clawback_token` and `expire_token` (and their native-SOL
 * twins, which the simulator does not use: it escrows SOL as wrapped SOL, see escrow.ts), and the `InviteInfoToken`
 * account at the invite PDA ["invite", inviteSigner]. Source: a public codama-generated client of the program
 * (programs/inviteEscrow.ts, instructions/*.ts, accounts/inviteInfoToken.ts); every discriminator there is
 * sha256("global:<name>") / sha256("account:<Name>"), checked in test/sim/send.test.ts.
 */
export const SEND_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterSend);

const TOKEN_PROGRAM_META = (program: PublicKey) => ({ pubkey: program, isSigner: false, isWritable: false });
const SYSTEM = { pubkey: SystemProgram.programId, isSigner: false, isWritable: false };
const ATA_PROGRAM = { pubkey: ASSOCIATED_TOKEN_PROGRAM_ID, isSigner: false, isWritable: false };

/** Anchor's 8-byte discriminator of an instruction (`global:<name>`) or account (`account:<Name>`). */
export function anchorDiscriminator(preimage: string): Buffer {
  return createHash('sha256').update(preimage).digest().subarray(0, 8);
}

/** Discriminators of the program's instructions and of its token-invite account. */
export const SEND_DISCRIMINATORS = Object.freeze({
  initializeToken: anchorDiscriminator('global:initialize_token'),
  claimToken: anchorDiscriminator('global:claim_token'),
  clawbackToken: anchorDiscriminator('global:clawback_token'),
  expireToken: anchorDiscriminator('global:expire_token'),
  inviteInfoToken: anchorDiscriminator('account:InviteInfoToken'),
});

/** Size of an InviteInfoToken account: discriminator, sender, inviteSigner, escrowTokenAccount, expiry i64, bump, 7 padding. */
export const INVITE_INFO_TOKEN_SIZE = 8 + 32 + 32 + 32 + 8 + 1 + 7;

/** The invite PDA of an invite signer and its bump: findProgramAddress(["invite", signer], SEND_PROGRAM). */
export function invitePda(inviteSigner: PublicKey): { address: PublicKey; bump: number } {
  const [address, bump] = PublicKey.findProgramAddressSync([Buffer.from('invite', 'utf8'), inviteSigner.toBuffer()], SEND_PROGRAM);
  return { address, bump };
}

/** What every instruction of a token invite names. */
export interface TokenInviteAccounts {
  inviteInfo: PublicKey;
  escrow: PublicKey;
  mint: PublicKey;
  tokenProgram: PublicKey;
}

/** The InviteInfoToken account data, as the program writes it when an invite is created. */
export function inviteInfoTokenData(a: { sender: PublicKey; inviteSigner: PublicKey; escrow: PublicKey; expirySeconds: bigint; bump: number }): Uint8Array {
  const data = Buffer.alloc(INVITE_INFO_TOKEN_SIZE);
  SEND_DISCRIMINATORS.inviteInfoToken.copy(data, 0);
  a.sender.toBuffer().copy(data, 8);
  a.inviteSigner.toBuffer().copy(data, 40);
  a.escrow.toBuffer().copy(data, 72);
  data.writeBigInt64LE(a.expirySeconds, 104);
  data[112] = a.bump;
  return data;
}

/** `initialize_token(expiry: i64, amount: u64)`: the sender funds an invite; the invite signer co-signs. */
export function initializeTokenInstruction(a: TokenInviteAccounts & { sender: PublicKey; inviteSigner: PublicKey; senderTokenAccount: PublicKey; expirySeconds: bigint; amount: bigint }): TransactionInstruction {
  const data = Buffer.alloc(24);
  SEND_DISCRIMINATORS.initializeToken.copy(data, 0);
  data.writeBigInt64LE(a.expirySeconds, 8);
  data.writeBigUInt64LE(a.amount, 16);
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.sender, isSigner: true, isWritable: true },
      { pubkey: a.inviteSigner, isSigner: true, isWritable: true },
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      SYSTEM,
      { pubkey: a.senderTokenAccount, isSigner: false, isWritable: true },
      { pubkey: a.escrow, isSigner: false, isWritable: true },
      TOKEN_PROGRAM_META(a.tokenProgram),
      { pubkey: a.mint, isSigner: false, isWritable: false },
      ATA_PROGRAM,
    ],
    data,
  });
}

/** `claim_token`: the invite signer (whoever holds the code) and Jupiter's keeper pay the escrow to the claimer. */
export function claimTokenInstruction(a: TokenInviteAccounts & { inviteSigner: PublicKey; claimer: PublicKey; keeper: PublicKey; claimerTokenAccount: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.inviteSigner, isSigner: true, isWritable: true },
      { pubkey: a.claimer, isSigner: false, isWritable: true },
      SYSTEM,
      { pubkey: a.keeper, isSigner: true, isWritable: true },
      { pubkey: a.claimerTokenAccount, isSigner: false, isWritable: true },
      { pubkey: a.escrow, isSigner: false, isWritable: true },
      TOKEN_PROGRAM_META(a.tokenProgram),
      { pubkey: a.mint, isSigner: false, isWritable: true },
      ATA_PROGRAM,
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.claimToken),
  });
}

/** `clawback_token`: the sender takes an unclaimed invite back. */
export function clawbackTokenInstruction(a: TokenInviteAccounts & { sender: PublicKey; senderTokenAccount: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.sender, isSigner: true, isWritable: true },
      { pubkey: a.senderTokenAccount, isSigner: false, isWritable: true },
      { pubkey: a.escrow, isSigner: false, isWritable: true },
      TOKEN_PROGRAM_META(a.tokenProgram),
      ATA_PROGRAM,
      SYSTEM,
      { pubkey: a.mint, isSigner: false, isWritable: true },
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.clawbackToken),
  });
}

/** `expire_token`: Jupiter's keeper returns an expired invite to its sender (who does not sign). */
export function expireTokenInstruction(a: TokenInviteAccounts & { sender: PublicKey; senderTokenAccount: PublicKey; keeper: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.sender, isSigner: false, isWritable: true },
      { pubkey: a.senderTokenAccount, isSigner: false, isWritable: true },
      { pubkey: a.escrow, isSigner: false, isWritable: true },
      TOKEN_PROGRAM_META(a.tokenProgram),
      ATA_PROGRAM,
      SYSTEM,
      { pubkey: a.mint, isSigner: false, isWritable: true },
      { pubkey: a.keeper, isSigner: true, isWritable: true },
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.expireToken),
  });
}
