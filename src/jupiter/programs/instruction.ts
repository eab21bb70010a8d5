import type { TransactionInstruction } from '@solana/web3.js';

/**
 * One instruction as the product decoders read it: its program and accounts as base58 addresses, in order, and its
 * data. The guard reads a transaction's top-level instructions in this shape (lookup tables resolved); the
 * simulator and tests turn a web3.js instruction into it with `rawInstruction`.
 */
export interface RawInstruction {
  programId: string;
  accounts: readonly string[];
  data: Uint8Array;
}

/** A web3.js instruction as a RawInstruction. */
export function rawInstruction(ix: TransactionInstruction): RawInstruction {
  return { programId: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: ix.data };
}

/**
 * An instruction of a product program whose discriminator is known but whose data or accounts are too short for
 * its layout. Decoders throw it; the guard refuses the transaction on it.
 */
export class ProgramLayoutError extends RangeError {
  constructor(
    readonly program: string,
    readonly instruction: string,
    message: string,
  ) {
    super(`${instruction} of ${program}: ${message}`);
  }
}

/**
 * The accounts of an instruction by the names its IDL gives them, in the IDL's order. Throws ProgramLayoutError when
 * the instruction names fewer accounts than the IDL lists (more are allowed: Anchor ignores remaining accounts).
 */
export function namedAccounts<const N extends string>(ix: RawInstruction, instruction: string, names: readonly N[]): Record<N, string> {
  if (ix.accounts.length < names.length) throw new ProgramLayoutError(ix.programId, instruction, `names ${ix.accounts.length} accounts; the layout has ${names.length}`);
  const out = {} as Record<N, string>;
  names.forEach((name, i) => {
    out[name] = ix.accounts[i]!;
  });
  return out;
}

/** Whether `data` starts with the 8-byte `discriminator`. */
export function hasDiscriminator(data: Uint8Array, discriminator: ArrayLike<number>): boolean {
  if (data.length < discriminator.length) return false;
  for (let i = 0; i < discriminator.length; i += 1) if (data[i] !== discriminator[i]) return false;
  return true;
}
