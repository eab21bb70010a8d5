import { PublicKey } from '@solana/web3.js';
import { ProgramLayoutError, type RawInstruction } from '../../jupiter/programs/instruction.js';
import type { AccountSnapshot } from '../../solana/guardChanges.js';
import type { GuardViolation, ProductRule, TopInstruction } from '../../solana/guardTypes.js';
import { PROGRAM_IDS } from '../../solana/programs.js';
import { associatedTokenAddress } from '../../solana/tokenPrograms.js';

// What the product checks share: finding the one product instruction of a transaction, collecting named
// violations, and deriving the addresses an instruction must name (associated token accounts, program addresses).

/** Reads one account as the chain held it before the transaction (undefined: not read, null: absent). */
export type AccountAt = (address: string) => AccountSnapshot | null | undefined;

/** Collects the product rules an instruction breaks, each with a message naming what it found and what the intent says. */
export class Terms {
  readonly violations: GuardViolation[] = [];

  /** Records a violation of `rule`. */
  fail(rule: ProductRule, message: string): void {
    this.violations.push({ rule, message });
  }

  /** Records a violation of `rule` unless `found` is `wanted` (base58 addresses, amounts, names). */
  same<T extends string | bigint | number | boolean | null>(rule: ProductRule, what: string, found: T, wanted: T): void {
    if (found !== wanted) this.fail(rule, `${what} is ${show(found)}; the intent's is ${show(wanted)}`);
  }
}

function show(v: string | bigint | number | boolean | null): string {
  return v === null ? 'none' : String(v);
}

/**
 * The one instruction of `program` the intent needs, decoded, or violations of `product-instruction`: when the
 * transaction has none, more than one, or an instruction of the program of another kind or unreadable. A
 * transaction's instructions of other programs are not this check's business (the allowlist and the flows judge them).
 */
export function theInstruction<D extends { name: string }, N extends D['name']>(
  instructions: readonly TopInstruction[],
  program: string,
  decode: (ix: RawInstruction) => D | undefined,
  wanted: N,
  terms: Terms,
): (D & { name: N }) | undefined {
  const found: Array<D & { name: N }> = [];
  instructions.forEach((ix, i) => {
    if (ix.programId !== program) return;
    let d: D | undefined;
    try {
      d = decode(ix);
    } catch (err) {
      if (!(err instanceof ProgramLayoutError)) throw err;
      terms.fail('product-instruction', `instruction #${i} of ${program} cannot be read: ${err.message}`);
      return;
    }
    if (d === undefined) terms.fail('product-instruction', `instruction #${i} of ${program} is none the program's layouts know`);
    else if (d.name !== wanted) terms.fail('product-instruction', `instruction #${i} of ${program} is ${describe(d)}, not the ${wanted} the intent needs`);
    else found.push(d as D & { name: N });
  });
  if (found.length === 0) {
    if (terms.violations.length === 0) terms.fail('product-instruction', `the transaction has no ${wanted} instruction of ${program}`);
    return undefined;
  }
  if (found.length > 1) terms.fail('product-instruction', `the transaction has ${found.length} ${wanted} instructions of ${program}; the intent is one`);
  return found[0];
}

function describe(d: { name: string }): string {
  return 'idlName' in d && typeof d.idlName === 'string' ? d.idlName : d.name;
}

/** Whether a base58 address is one of the two token programs. */
export function isTokenProgram(program: string): boolean {
  return program === PROGRAM_IDS.splToken || program === PROGRAM_IDS.token2022;
}

/** The associated token account of `owner` for `mint` under `tokenProgram` (owner may be a program address). */
export function ata(owner: string, mint: string, tokenProgram: string): string {
  return associatedTokenAddress(new PublicKey(mint), new PublicKey(owner), new PublicKey(tokenProgram)).toBase58();
}

/**
 * Whether an address is off the ed25519 curve: no private key exists for it, so only a program can sign for it.
 * Where a program's seeds are not published, this is what ties an account to some program rather than a person.
 */
export function offCurve(address: string): boolean {
  return !PublicKey.isOnCurve(new PublicKey(address).toBytes());
}
