import { createHash } from 'node:crypto';
import { AddressLookupTableAccount, AddressLookupTableProgram, TransactionMessage, type AccountInfo, type Keypair, type PublicKey, type TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import type { LedgerRecord } from './chain.js';

/**
 * A promise by one of the simulator's actors (the market-maker vault, an escrow) to co-sign a transaction that
 * contains a given set of instructions: for example "the vault pays 17 USDC to this wallet, provided the same
 * transaction pays the vault 0.1 SOL". Tickets let transactions built by the venue (swap, swap-instructions)
 * settle whether they arrive through execute or through RPC sendTransaction, and never let anyone take the
 * vault's side of a trade without its other side.
 */
export interface Ticket {
  id: string;
  cosigner: Keypair;
  /** Hashes of the instructions that must all be present (see instructionHash). */
  required: string[];
  /** Simulated ms after which the ticket is void. */
  expiresAtMs: number;
  /** What the ledger records when the transaction lands. */
  record: LedgerRecord;
  /**
   * Checked just before settlement: returns undefined to settle, or a Jupiter program error code (6001) when the
   * market moved past the trade's slippage; the transaction then lands as failed.
   */
  preSettle?: () => { failInstruction: number; code: number } | undefined;
  /** Runs once the transaction has landed. */
  onLanded?: (signature: string, slot: bigint) => void;
}

/** A stable hash of an instruction: program, account keys in order, and data. */
export function instructionHash(ix: TransactionInstruction): string {
  const h = createHash('sha256');
  h.update(ix.programId.toBuffer());
  for (const k of ix.keys) h.update(k.pubkey.toBuffer());
  h.update(ix.data);
  return h.digest('hex');
}

/** Reads an account as the chain holds it now (null when there is none). */
export type AccountReader = (address: PublicKey) => AccountInfo<Uint8Array> | null;

/**
 * The decompiled instructions of a transaction: with lookup tables, their addresses read with `read`, as the
 * runtime loads them (a co-signer judges what the transaction does, whichever way its accounts are listed). None
 * when a table is missing, not one, or too short for the indexes used (the runtime refuses such a transaction),
 * or when there are tables and nothing to read them with.
 */
export function instructionsOf(tx: VersionedTransaction, read?: AccountReader): TransactionInstruction[] {
  const lookups = tx.message.addressTableLookups;
  if (lookups.length === 0) return TransactionMessage.decompile(tx.message).instructions;
  if (!read) return [];
  const tables: AddressLookupTableAccount[] = [];
  for (const lookup of lookups) {
    const account = read(lookup.accountKey);
    if (!account?.owner.equals(AddressLookupTableProgram.programId)) return [];
    try {
      tables.push(new AddressLookupTableAccount({ key: lookup.accountKey, state: AddressLookupTableAccount.deserialize(account.data) }));
    } catch {
      return [];
    }
  }
  try {
    return TransactionMessage.decompile(tx.message, { addressLookupTableAccounts: tables }).instructions;
  } catch {
    return [];
  }
}

/** Live tickets, looked up by the hashes of their instructions. */
export class TicketBook {
  private readonly tickets = new Map<string, Ticket>();
  private readonly byInstruction = new Map<string, string>();

  /** `read` resolves the lookup tables of the transactions matched (without it, a transaction with tables matches nothing). */
  constructor(private readonly read?: AccountReader) {}

  add(ticket: Ticket): void {
    this.tickets.set(ticket.id, ticket);
    for (const h of ticket.required) this.byInstruction.set(h, ticket.id);
  }

  get(id: string): Ticket | undefined {
    return this.tickets.get(id);
  }

  /**
   * The live ticket whose every required instruction appears in the transaction, if any. At most one ticket per
   * transaction: a transaction bundling two trades is not something the venue ever builds. An instruction that names
   * the ticket's co-signer must be one of its required instructions, each used once: the co-signer's signature covers
   * the whole transaction, and an instruction added beside the ticket's (a transfer out of an escrow the keeper is the
   * delegate of, say, or a second copy of the ticket's own payment) must not borrow it. On chain the program moves such
   * funds by CPI only; nobody can append that.
   */
  match(tx: VersionedTransaction, nowMs: number): Ticket | undefined {
    const instructions = instructionsOf(tx, this.read).map((ix) => ({ ix, hash: instructionHash(ix) }));
    const hashes = new Set(instructions.map((i) => i.hash));
    for (const h of hashes) {
      const id = this.byInstruction.get(h);
      const t = id === undefined ? undefined : this.tickets.get(id);
      if (!t || t.expiresAtMs < nowMs || !t.required.every((r) => hashes.has(r))) continue;
      return borrows(t, instructions) ? undefined : t;
    }
    return undefined;
  }

  /** Whether a ticket may co-sign a transaction: all its instructions there, none borrowing its co-signer (see match). */
  covers(t: Ticket, tx: VersionedTransaction): boolean {
    const instructions = instructionsOf(tx, this.read).map((ix) => ({ ix, hash: instructionHash(ix) }));
    const hashes = new Set(instructions.map((i) => i.hash));
    return t.required.every((r) => hashes.has(r)) && !borrows(t, instructions);
  }

  /** Voids a ticket (after it settled, or when its order was replaced). */
  consume(id: string): void {
    const t = this.tickets.get(id);
    if (!t) return;
    this.tickets.delete(id);
    for (const h of t.required) if (this.byInstruction.get(h) === id) this.byInstruction.delete(h);
  }

  /** Drops expired tickets. */
  prune(nowMs: number): void {
    for (const t of [...this.tickets.values()]) if (t.expiresAtMs < nowMs) this.consume(t.id);
  }
}

/**
 * Whether an instruction naming the ticket's co-signer is left over once each of the ticket's own is used once: an
 * added one, or a copy of the ticket's own payment.
 */
function borrows(t: Ticket, instructions: ReadonlyArray<{ ix: TransactionInstruction; hash: string }>): boolean {
  const cosigner = t.cosigner.publicKey;
  const allowed = new Map<string, number>();
  for (const r of t.required) allowed.set(r, (allowed.get(r) ?? 0) + 1);
  return instructions.some(({ ix, hash }) => {
    if (!ix.keys.some((k) => k.pubkey.equals(cosigner))) return false;
    const left = allowed.get(hash) ?? 0;
    allowed.set(hash, left - 1);
    return left <= 0;
  });
}
