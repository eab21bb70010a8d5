import { PublicKey } from '@solana/web3.js';
import { ProgramLayoutError, type RawInstruction } from '../../jupiter/programs/instruction.js';
import { readTokenAccount, type AccountSnapshot } from '../../solana/guardChanges.js';
import type { CreatedAccount, GuardViolation, Payout, ProductRule, ProductVerdict, TopInstruction } from '../../solana/guardTypes.js';
import { PROGRAM_IDS } from '../../solana/programs.js';
import { associatedTokenAddress } from '../../solana/tokenPrograms.js';

// What the product checks share: finding the one product instruction of a transaction, collecting named
// violations, and deriving the addresses an instruction must name (associated token accounts, program addresses).

const SYSTEM = PROGRAM_IDS.system;

/** Reads one account as the chain held it before the transaction (undefined: not read, null: absent). */
export type AccountAt = (address: string) => AccountSnapshot | null | undefined;

/**
 * Collects the product rules an instruction breaks, each with a message naming what it found and what the intent
 * says, and the money movements the instruction stands for (ProductTerms): its escrow, the accounts it creates, the
 * accounts its payouts come out of and what must arrive.
 */
export class Terms {
  readonly violations: GuardViolation[] = [];
  private readonly escrowAccounts: string[] = [];
  private readonly createdAccounts: CreatedAccount[] = [];
  private readonly payerAccounts: string[] = [];
  private readonly payoutList: Payout[] = [];
  private readonly ownMintList: string[] = [];

  /** The escrow (or vault) the deposit goes into: the only account of the program that may receive it. */
  escrow(address: string): void {
    this.escrowAccounts.push(address);
  }

  /** An account the instruction creates at the wallet's expense. */
  created(account: CreatedAccount): void {
    this.createdAccounts.push(account);
  }

  /** An account a payout comes out of: what leaves it may go only to the wallet. */
  payer(address: string): void {
    this.payerAccounts.push(address);
  }

  /** Something that must arrive in the wallet's own accounts. */
  payout(payout: Payout): void {
    this.payoutList.push(payout);
  }

  /** A mint whose new tokens the instruction mints to the wallet alone (a deposit's shares). */
  ownMint(mint: string): void {
    this.ownMintList.push(mint);
  }

  /**
   * A new account the instruction names must not exist yet: an account that does is someone's (another order, a
   * pooled vault), and the deposit behind it would be theirs.
   */
  absent(rule: ProductRule, what: string, address: string, accountAt: AccountAt): void {
    const held = accountAt(address);
    // Lamports alone at the address (anyone may send some there) are no account yet: the program creates it on top
    // of them, and refusing would let a dusting stranger block the wallet's order.
    const dust = held !== null && held !== undefined && held.owner === SYSTEM && held.data.length === 0;
    if (held === undefined) this.fail(rule, `the ${what} ${address} could not be read, so it cannot be shown to be new`);
    else if (held !== null && !dust) this.fail(rule, `the ${what} ${address} already exists (owned by ${held.owner}, ${held.data.length} bytes): a new one's account cannot be someone else's`);
  }

  /** The violations and the terms, for the guard. */
  verdict(): ProductVerdict {
    return { violations: this.violations, terms: { escrows: this.escrowAccounts, creates: this.createdAccounts, payers: this.payerAccounts, payouts: this.payoutList, ownMints: this.ownMintList } };
  }

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

/** What a token account held before the transaction, base units (0 when it is not one). */
export function balanceOf(address: string, accountAt: AccountAt): bigint {
  return readTokenAccount(accountAt(address))?.amount ?? 0n;
}

/** A token account the instruction creates (an escrow), sized by its mint's token program. */
export function tokenAccount(address: string, mint: string, tokenProgram: string, what: string): CreatedAccount {
  return { address, owner: tokenProgram, space: { tokenAccountOf: mint }, what };
}

/** A state account of the product's program the instruction creates, of a fixed size or within bounds (bytes). */
export function stateAccount(address: string, program: string, size: bigint | { min: bigint; max: bigint }, what: string): CreatedAccount {
  return { address, owner: program, space: typeof size === 'bigint' ? { min: size, max: size } : size, what };
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
