import { PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '../../solana/tokenPrograms.js';
import { anchorDiscriminator } from './borsh.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from './instruction.js';

/**
 * The Jupiter Send invite-escrow program (inv1tEtS…, named `inviteEscrow`), as its generated client lays it out
 * (what the simulator writes and the guard reads). Token invites: Anchor instructions `initialize_token`,
 * `claim_token`, `clawback_token` and `expire_token`, and the `InviteInfoToken` account at the invite PDA
 * ["invite", inviteSigner], whose token account of the mint is the escrow. Native-SOL invites: their twins
 * `initialize(expiry: i64, amount: u64)` [sender (signer, writable), inviteSigner (signer), inviteInfo (writable),
 * system program], `claim` [inviteInfo, inviteSigner (signer), claimer, system program, keeper (signer)], `clawback`
 * [inviteInfo, sender (signer)] and `expire` [inviteInfo, sender, keeper (signer)], and the 48-byte `InviteInfo`
 * account (discriminator, sender, expiry i64) at the same PDA, which holds the lamports itself: no token account.
 * Source: a public codama-generated client of the program (programs/inviteEscrow.ts, instructions/{initialize,claim,
 * clawback,expire}{,Token}.ts, accounts/inviteInfo{,Token}.ts); every discriminator there is sha256("global:<name>") /
 * sha256("account:<Name>"), checked in test/sim/send.test.ts and test/solana/guard-send-layouts.test.ts.
 */
export const SEND_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterSend);

const TOKEN_PROGRAM_META = (program: PublicKey) => ({ pubkey: program, isSigner: false, isWritable: false });
const SYSTEM = { pubkey: SystemProgram.programId, isSigner: false, isWritable: false };
const ATA_PROGRAM = { pubkey: ASSOCIATED_TOKEN_PROGRAM_ID, isSigner: false, isWritable: false };

/** Discriminators of the program's instructions and of its two invite accounts. */
export const SEND_DISCRIMINATORS = Object.freeze({
  initializeToken: anchorDiscriminator('global', 'initialize_token'),
  claimToken: anchorDiscriminator('global', 'claim_token'),
  clawbackToken: anchorDiscriminator('global', 'clawback_token'),
  expireToken: anchorDiscriminator('global', 'expire_token'),
  inviteInfoToken: anchorDiscriminator('account', 'InviteInfoToken'),
  initialize: anchorDiscriminator('global', 'initialize'),
  claim: anchorDiscriminator('global', 'claim'),
  clawback: anchorDiscriminator('global', 'clawback'),
  expire: anchorDiscriminator('global', 'expire'),
  inviteInfo: anchorDiscriminator('account', 'InviteInfo'),
});

/** Size of an InviteInfo (native-SOL invite) account: discriminator, sender, expiry i64 (the client's dataSize filter). */
export const INVITE_INFO_SIZE = 8 + 32 + 8;

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

/** Reads an InviteInfoToken account; undefined when the bytes are not one. */
export function decodeInviteInfoToken(data: Uint8Array): { sender: PublicKey; inviteSigner: PublicKey; escrow: PublicKey; expirySeconds: bigint; bump: number } | undefined {
  if (data.length < INVITE_INFO_TOKEN_SIZE - 7 || !hasDiscriminator(data, SEND_DISCRIMINATORS.inviteInfoToken)) return undefined;
  const b = Buffer.from(data);
  return { sender: new PublicKey(b.subarray(8, 40)), inviteSigner: new PublicKey(b.subarray(40, 72)), escrow: new PublicKey(b.subarray(72, 104)), expirySeconds: b.readBigInt64LE(104), bump: b[112]! };
}

/** The data of `initialize_token`: the discriminator, expiry (i64 unix seconds) and amount (u64 base units). */
export function initializeTokenData(expirySeconds: bigint, amount: bigint): Buffer {
  const data = Buffer.alloc(24);
  SEND_DISCRIMINATORS.initializeToken.copy(data, 0);
  data.writeBigInt64LE(expirySeconds, 8);
  data.writeBigUInt64LE(amount, 16);
  return data;
}

/** `initialize_token(expiry: i64, amount: u64)`: the sender funds an invite; the invite signer co-signs. */
export function initializeTokenInstruction(a: TokenInviteAccounts & { sender: PublicKey; inviteSigner: PublicKey; senderTokenAccount: PublicKey; expirySeconds: bigint; amount: bigint }): TransactionInstruction {
  const data = initializeTokenData(a.expirySeconds, a.amount);
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

/** The InviteInfo account data of a native-SOL invite: discriminator, sender, expiry (i64 unix seconds). */
export function inviteInfoData(a: { sender: PublicKey; expirySeconds: bigint }): Uint8Array {
  const data = Buffer.alloc(INVITE_INFO_SIZE);
  SEND_DISCRIMINATORS.inviteInfo.copy(data, 0);
  a.sender.toBuffer().copy(data, 8);
  data.writeBigInt64LE(a.expirySeconds, 40);
  return data;
}

/** Reads an InviteInfo (native-SOL invite) account; undefined when the bytes are not one. */
export function decodeInviteInfo(data: Uint8Array): { sender: PublicKey; expirySeconds: bigint } | undefined {
  if (data.length < INVITE_INFO_SIZE || !hasDiscriminator(data, SEND_DISCRIMINATORS.inviteInfo)) return undefined;
  const b = Buffer.from(data);
  return { sender: new PublicKey(b.subarray(8, 40)), expirySeconds: b.readBigInt64LE(40) };
}

/** `initialize(expiry: i64, amount: u64)`: the sender funds a native-SOL invite (lamports into the invite account); the invite signer co-signs. */
export function initializeInstruction(a: { sender: PublicKey; inviteSigner: PublicKey; inviteInfo: PublicKey; expirySeconds: bigint; amount: bigint }): TransactionInstruction {
  const data = Buffer.alloc(24);
  SEND_DISCRIMINATORS.initialize.copy(data, 0);
  data.writeBigInt64LE(a.expirySeconds, 8);
  data.writeBigUInt64LE(a.amount, 16);
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.sender, isSigner: true, isWritable: true },
      { pubkey: a.inviteSigner, isSigner: true, isWritable: false },
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      SYSTEM,
    ],
    data,
  });
}

/** `claim`: the invite signer and Jupiter's keeper pay a native-SOL invite to the claimer. */
export function claimInstruction(a: { inviteInfo: PublicKey; inviteSigner: PublicKey; claimer: PublicKey; keeper: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.inviteSigner, isSigner: true, isWritable: false },
      { pubkey: a.claimer, isSigner: false, isWritable: true },
      SYSTEM,
      { pubkey: a.keeper, isSigner: true, isWritable: true },
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.claim),
  });
}

/** `clawback`: the sender takes an unclaimed native-SOL invite back (the invite account's lamports). */
export function clawbackInstruction(a: { inviteInfo: PublicKey; sender: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.sender, isSigner: true, isWritable: true },
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.clawback),
  });
}

/** `expire`: Jupiter's keeper returns an expired native-SOL invite to its sender (who does not sign). */
export function expireInstruction(a: { inviteInfo: PublicKey; sender: PublicKey; keeper: PublicKey }): TransactionInstruction {
  return new TransactionInstruction({
    programId: SEND_PROGRAM,
    keys: [
      { pubkey: a.inviteInfo, isSigner: false, isWritable: true },
      { pubkey: a.sender, isSigner: false, isWritable: true },
      { pubkey: a.keeper, isSigner: true, isWritable: true },
    ],
    data: Buffer.from(SEND_DISCRIMINATORS.expire),
  });
}

/** Accounts of `initialize` (native SOL), in the client's order. */
export const INITIALIZE_ACCOUNTS = ['sender', 'inviteSigner', 'inviteInfo', 'systemProgram'] as const;
/** Accounts of `claim` (native SOL). */
export const CLAIM_ACCOUNTS = ['inviteInfo', 'inviteSigner', 'claimer', 'systemProgram', 'keeper'] as const;
/** Accounts of `clawback` (native SOL). */
export const CLAWBACK_ACCOUNTS = ['inviteInfo', 'sender'] as const;
/** Accounts of `expire` (native SOL). */
export const EXPIRE_ACCOUNTS = ['inviteInfo', 'sender', 'keeper'] as const;

/** Accounts of `initialize_token`, in the client's order (what initializeTokenInstruction writes). */
export const INITIALIZE_TOKEN_ACCOUNTS = ['sender', 'inviteSigner', 'inviteInfo', 'systemProgram', 'senderTokenAccount', 'escrow', 'tokenProgram', 'mint', 'associatedTokenProgram'] as const;
/** Accounts of `claim_token`, in the client's order. */
export const CLAIM_TOKEN_ACCOUNTS = ['inviteInfo', 'inviteSigner', 'claimer', 'systemProgram', 'keeper', 'claimerTokenAccount', 'escrow', 'tokenProgram', 'mint', 'associatedTokenProgram'] as const;
/** Accounts of `clawback_token`, in the client's order. */
export const CLAWBACK_TOKEN_ACCOUNTS = ['inviteInfo', 'sender', 'senderTokenAccount', 'escrow', 'tokenProgram', 'associatedTokenProgram', 'systemProgram', 'mint'] as const;
/** Accounts of `expire_token`, in the client's order. */
export const EXPIRE_TOKEN_ACCOUNTS = ['inviteInfo', 'sender', 'senderTokenAccount', 'escrow', 'tokenProgram', 'associatedTokenProgram', 'systemProgram', 'mint', 'keeper'] as const;

/** An instruction of the invite program, read: its name, accounts by their client names (base58) and arguments. */
export type SendInstruction =
  | { name: 'initializeToken'; accounts: Record<(typeof INITIALIZE_TOKEN_ACCOUNTS)[number], string>; expirySeconds: bigint; amount: bigint }
  | { name: 'claimToken'; accounts: Record<(typeof CLAIM_TOKEN_ACCOUNTS)[number], string> }
  | { name: 'clawbackToken'; accounts: Record<(typeof CLAWBACK_TOKEN_ACCOUNTS)[number], string> }
  | { name: 'expireToken'; accounts: Record<(typeof EXPIRE_TOKEN_ACCOUNTS)[number], string> }
  | { name: 'initialize'; accounts: Record<(typeof INITIALIZE_ACCOUNTS)[number], string>; expirySeconds: bigint; amount: bigint }
  | { name: 'claim'; accounts: Record<(typeof CLAIM_ACCOUNTS)[number], string> }
  | { name: 'clawback'; accounts: Record<(typeof CLAWBACK_ACCOUNTS)[number], string> }
  | { name: 'expire'; accounts: Record<(typeof EXPIRE_ACCOUNTS)[number], string> };

/** `(expiry: i64, amount: u64)` after the discriminator: exactly 24 bytes. */
function readInitArgs(ix: RawInstruction, name: string): { expirySeconds: bigint; amount: bigint } {
  if (ix.data.length !== 24) throw new ProgramLayoutError(ix.programId, name, `data is ${ix.data.length} bytes; the layout (discriminator, expiry i64, amount u64) has 24`);
  const b = Buffer.from(ix.data);
  return { expirySeconds: b.readBigInt64LE(8), amount: b.readBigUInt64LE(16) };
}

/**
 * Reads an instruction of the invite program, token or native SOL: undefined when it is another program's or its
 * discriminator is none of these eight; throws ProgramLayoutError when its data or accounts are too short (or an
 * initialize's data is longer than its two arguments).
 */
export function decodeSendInstruction(ix: RawInstruction): SendInstruction | undefined {
  if (ix.programId !== SEND_PROGRAM.toBase58()) return undefined;
  const d = ix.data;
  const D = SEND_DISCRIMINATORS;
  if (hasDiscriminator(d, D.initializeToken)) {
    const accounts = namedAccounts(ix, 'initialize_token', INITIALIZE_TOKEN_ACCOUNTS);
    return { name: 'initializeToken', accounts, ...readInitArgs(ix, 'initialize_token') };
  }
  if (hasDiscriminator(d, D.claimToken)) return { name: 'claimToken', accounts: namedAccounts(ix, 'claim_token', CLAIM_TOKEN_ACCOUNTS) };
  if (hasDiscriminator(d, D.clawbackToken)) return { name: 'clawbackToken', accounts: namedAccounts(ix, 'clawback_token', CLAWBACK_TOKEN_ACCOUNTS) };
  if (hasDiscriminator(d, D.expireToken)) return { name: 'expireToken', accounts: namedAccounts(ix, 'expire_token', EXPIRE_TOKEN_ACCOUNTS) };
  if (hasDiscriminator(d, D.initialize)) {
    const accounts = namedAccounts(ix, 'initialize', INITIALIZE_ACCOUNTS);
    return { name: 'initialize', accounts, ...readInitArgs(ix, 'initialize') };
  }
  if (hasDiscriminator(d, D.claim)) return { name: 'claim', accounts: namedAccounts(ix, 'claim', CLAIM_ACCOUNTS) };
  if (hasDiscriminator(d, D.clawback)) return { name: 'clawback', accounts: namedAccounts(ix, 'clawback', CLAWBACK_ACCOUNTS) };
  if (hasDiscriminator(d, D.expire)) return { name: 'expire', accounts: namedAccounts(ix, 'expire', EXPIRE_ACCOUNTS) };
  return undefined;
}
