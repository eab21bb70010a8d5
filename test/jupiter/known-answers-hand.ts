import { createHash } from 'node:crypto';
import { PublicKey, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import type { RawInstruction } from '../../src/jupiter/programs/instruction.js';

/*
 * Borsh by hand for the known-answer tests (issue 21): bytes assembled here from a product's published layout, with
 * nothing from src/jupiter/programs, so a test comparing the project's codec to them is not the codec checked against
 * itself. Little-endian integers, a bool as one 0/1 byte, a String as its u32 byte length then utf8, an Option as a
 * 0/1 tag before the value, a u8 enum as its index.
 */

/** Anchor's discriminator, computed here: sha256("global:<snake_name>") or sha256("account:<PascalName>"), first 8 bytes. */
export function disc(namespace: 'global' | 'account', name: string): Buffer {
  return createHash('sha256').update(`${namespace}:${name}`).digest().subarray(0, 8);
}

export const u8 = (n: number): Buffer => Buffer.from([n]);
export const bool = (v: boolean): Buffer => Buffer.from([v ? 1 : 0]);
export function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}
export function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n);
  return b;
}
export function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}
export function i64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b;
}
export const str = (s: string): Buffer => Buffer.concat([u32(Buffer.byteLength(s, 'utf8')), Buffer.from(s, 'utf8')]);
export const none: Buffer = Buffer.from([0]);
export const some = (value: Buffer): Buffer => Buffer.concat([Buffer.from([1]), value]);
export const bytes = (...parts: Buffer[]): Buffer => Buffer.concat(parts);

/** A distinct, fixed public key: 32 bytes of `n` (1..255), so every account and key field differs from every other. */
export const key = (n: number): PublicKey => new PublicKey(Buffer.alloc(32, n));

/** An instruction's accounts as `[base58, 'sw' | 's-' | '-w' | '--']`, signer then writable. */
export function metas(ix: TransactionInstruction): [string, string][] {
  return ix.keys.map((k) => [k.pubkey.toBase58(), `${k.isSigner ? 's' : '-'}${k.isWritable ? 'w' : '-'}`]);
}

/** A hand-written account list in the same shape as `metas`. */
export function expectedMetas(list: ReadonlyArray<readonly [PublicKey, string]>): [string, string][] {
  return list.map(([k, f]) => [k.toBase58(), f]);
}

/** The instruction as the decoders take it. */
export function raw(programId: PublicKey, accounts: readonly PublicKey[], data: Buffer): RawInstruction {
  return { programId: programId.toBase58(), accounts: accounts.map((a) => a.toBase58()), data };
}

/** The instructions of a base64 transaction (no lookup tables) that run `program`. */
export function instructionsOf(base64: string, program: string): TransactionInstruction[] {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  return TransactionMessage.decompile(tx.message).instructions.filter((i) => i.programId.toBase58() === program);
}
