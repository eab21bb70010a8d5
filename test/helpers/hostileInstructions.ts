// Instruction surgery the hostile venue's product attacks share (hostileProducts.ts, hostileEscrowAttacks.ts):
// replacing an account or an amount in the instructions the simulator built, and opening the stranger's accounts
// that a theft pays into.
import { AddressLookupTableAccount, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, type VersionedTransaction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { WSOL_MINT } from '../../src/lib/mints.js';
import { tokenProgramId } from '../../src/sim/catalog.js';
import type { Venue } from '../../src/sim/venue.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';

/** SPL token instruction tags the attacks look for (the same in both token programs). */
export const TOKEN_IX = { mintTo: 7, transferChecked: 12 } as const;

/** Whether a program is one of the two token programs. */
export function isTokenProgram(p: PublicKey): boolean {
  return p.toBase58() === PROGRAM_IDS.splToken || p.toBase58() === PROGRAM_IDS.token2022;
}

/** Whether an instruction is a token instruction with tag `tag` (TOKEN_IX). */
export function isTokenIx(ix: TransactionInstruction, tag: number): boolean {
  return isTokenProgram(ix.programId) && ix.data[0] === tag;
}

/** Whether an instruction is a system transfer or an SPL transferChecked into `escrow`. */
export function depositInto(ix: TransactionInstruction, escrow: string): boolean {
  if (ix.programId.equals(SystemProgram.programId)) return ix.data.length >= 12 && ix.data.readUInt32LE(0) === 2 && ix.keys[1]?.pubkey.toBase58() === escrow;
  return isTokenIx(ix, TOKEN_IX.transferChecked) && ix.keys[2]?.pubkey.toBase58() === escrow;
}

/** The amount of a system transfer, transferChecked or mintTo, base units. */
export function amountOf(ix: TransactionInstruction): bigint {
  return ix.data.readBigUInt64LE(ix.programId.equals(SystemProgram.programId) ? 4 : 1);
}

/** The same system transfer, transferChecked or mintTo for another amount. */
export function withTransferAmount(ix: TransactionInstruction, amount: bigint): TransactionInstruction {
  const data = Buffer.from(ix.data);
  data.writeBigUInt64LE(amount, ix.programId.equals(SystemProgram.programId) ? 4 : 1);
  return withData(ix, data);
}

export function withData(ix: TransactionInstruction, data: Buffer): TransactionInstruction {
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys, data });
}

export function withAccount(ix: TransactionInstruction, index: number, key: PublicKey): TransactionInstruction {
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys.map((k, i) => (i === index ? { ...k, pubkey: key } : k)), data: ix.data });
}

/**
 * Replaces an account everywhere but in associated-token-account instructions (whose address is derived from the
 * others, so a replaced one would not create anything) and, with `except`, in that program's instructions: the
 * product instruction and the moves beside it, or only the moves.
 */
export function substitute(instructions: TransactionInstruction[], from: string, to: PublicKey, except?: PublicKey): void {
  instructions.forEach((ix, i) => {
    if (ix.programId.equals(ASSOCIATED_TOKEN_PROGRAM_ID) || (except && ix.programId.equals(except))) return;
    if (!ix.keys.some((k) => k.pubkey.toBase58() === from)) return;
    instructions[i] = new TransactionInstruction({ programId: ix.programId, keys: ix.keys.map((k) => (k.pubkey.toBase58() === from ? { ...k, pubkey: to } : k)), data: ix.data });
  });
}

/** The stranger's associated token account of a mint, opened (empty) beforehand as a thief's account would be. */
export function strangerAccount(venue: Venue, stranger: PublicKey, mint: string, program?: string): PublicKey {
  const token = venue.token(mint);
  const tokenProgram = program ?? (token ? tokenProgramId(token) : venue.chain.account(new PublicKey(mint))?.owner.toBase58());
  if (!tokenProgram) throw new Error(`no token program for ${mint}`);
  const address = getAssociatedTokenAddressSync(new PublicKey(mint), stranger, true, new PublicKey(tokenProgram));
  if (!venue.chain.account(address)) venue.chain.createTokenAccount(address, { mint: new PublicKey(mint), owner: stranger, amount: 0n, program: tokenProgram, native: mint === WSOL_MINT });
  return address;
}

/** A transaction's instructions, its lookup tables (if any) read from the simulator's chain. */
export function instructionsWithTables(venue: Venue, tx: VersionedTransaction): TransactionInstruction[] {
  const tables = tx.message.addressTableLookups.map((l) => {
    const account = venue.chain.account(l.accountKey);
    if (!account) throw new Error(`lookup table ${l.accountKey.toBase58()} is not on the simulator's chain`);
    return new AddressLookupTableAccount({ key: l.accountKey, state: AddressLookupTableAccount.deserialize(account.data) });
  });
  return TransactionMessage.decompile(tx.message, { addressLookupTableAccounts: tables }).instructions;
}
