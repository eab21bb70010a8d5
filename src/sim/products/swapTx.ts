import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, type MessageV0, type VersionedTransaction } from '@solana/web3.js';
import { ACCOUNT_SIZE, AuthorityType, createAssociatedTokenAccountIdempotentInstruction, createSetAuthorityInstruction, createSyncNativeInstruction, createTransferCheckedInstruction, ExtensionType, getAccountLen } from '@solana/spl-token';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { tokenProgramId, type SimToken } from '../catalog.js';
import { noopProgramElf } from '../chain/noopProgram.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import { compactU16, type LedgerRecord } from '../chain/chain.js';
import { seedBytes } from '../rng.js';
import type { Venue } from '../venue.js';

/** Memo program v2: each venue transaction carries a memo naming its request, which also makes it unique. */
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/** Where the hostile-order fault sends what it steals. */
export const ATTACKER = Keypair.fromSeed(seedBytes('attacker')).publicKey;
/** Compute-unit limit of a venue swap transaction. */
export const SWAP_COMPUTE_UNITS = 250_000;
/** Default compute-unit price, in micro-lamports. */
export const DEFAULT_MICRO_LAMPORTS = 10_000n;
/** Largest serialized transaction a Solana node accepts (PACKET_DATA_SIZE), in bytes. */
export const MAX_TRANSACTION_BYTES = 1232;
/**
 * Accounts of a leg's pool that a swap transaction names besides the ones it already holds (wallet, mints, token
 * programs): the pool, its two vaults and two state accounts (tick or bin arrays, an oracle). They are why a route
 * with more legs makes a larger transaction.
 */
export const POOL_KEYS_PER_LEG = 5;
/** Anchor discriminator of the aggregator's `route` instruction: sha256("global:route")[0..8]. */
const ROUTE_DISCRIMINATOR = createHash('sha256').update('global:route').digest().subarray(0, 8);

/** Everything that defines one swap the venue builds. */
export interface SwapPlan {
  taker: PublicKey;
  input: SimToken;
  output: SimToken;
  /** What the taker pays the vault, in input base units. */
  inAmount: bigint;
  /** What the vault pays, in output base units. */
  outAmount: bigint;
  /** Token account receiving the output (defaults to the taker's ATA, created when missing). */
  destination?: PublicKey | undefined;
  computeUnitPriceMicroLamports: bigint;
  memo: string;
  /** The hostile-order fault: also drains SOL and input tokens to an attacker. */
  hostile?: boolean;
  /** Pays the fee and the rent of accounts created (Ultra's gas wallet for a gasless order, an integrator's payer); defaults to the taker. */
  feePayer?: PublicKey | undefined;
  /** Close authority of the output account the swap opens, when not the taker (Ultra's `closeAuthority`, with `payer`). */
  closeAuthority?: PublicKey | undefined;
  /** Pool addresses of the route's legs (routePlan ammKeys): the route instruction names their accounts. */
  ammKeys?: readonly string[] | undefined;
  /** Payments the vault makes besides the output (an integrator's share of the fee into its referral token account). */
  vaultPayments?: ReadonlyArray<{ token: SimToken; to: PublicKey; amount: bigint }> | undefined;
}

/** The instructions of a swap, grouped as /swap-instructions reports them. */
export interface SwapInstructionSet {
  computeBudget: TransactionInstruction[];
  setup: TransactionInstruction[];
  /** The taker pays the vault. */
  payIn: TransactionInstruction;
  /** The vault pays the taker (needs the vault's signature). */
  payOut: TransactionInstruction;
  memo: TransactionInstruction;
  /** The aggregator's route instruction, naming every pool account of the route (read-only). */
  route: TransactionInstruction;
  /** The vault's other payments (needs the vault's signature). */
  vaultPayments: TransactionInstruction[];
  hostile: TransactionInstruction[];
  /** Lamports of rent the fee payer pays for accounts created. */
  rentLamports: bigint;
  priorityFeeLamports: bigint;
}

/** Builds a swap's instructions. */
export function swapInstructionSet(venue: Venue, plan: SwapPlan): SwapInstructionSet {
  const vault = venue.vault.publicKey;
  const setup: TransactionInstruction[] = [];
  let rentLamports = 0n;
  const payIn = transfer(venue, plan.input, plan.taker, vault, plan.inAmount);
  let payOut: TransactionInstruction;
  if (venue.isSol(plan.output.mint)) {
    payOut = SystemProgram.transfer({ fromPubkey: vault, toPubkey: plan.taker, lamports: plan.outAmount });
  } else {
    const program = new PublicKey(tokenProgramId(plan.output));
    const mint = new PublicKey(plan.output.mint);
    const destination = plan.destination ?? venue.ata(plan.taker, plan.output);
    if (!plan.destination && !venue.chain.account(destination)) {
      setup.push(createAssociatedTokenAccountIdempotentInstruction(plan.feePayer ?? plan.taker, destination, plan.taker, mint, program));
      if (plan.closeAuthority && !plan.closeAuthority.equals(plan.taker)) {
        setup.push(createSetAuthorityInstruction(destination, plan.taker, AuthorityType.CloseAccount, plan.closeAuthority, [], program));
      }
      rentLamports += creationRent(venue, plan.taker, plan.output);
    }
    payOut = createTransferCheckedInstruction(venue.ata(vault, plan.output), mint, destination, vault, plan.outAmount, plan.output.decimals, [], program);
  }
  const hostile: TransactionInstruction[] = [];
  if (plan.hostile) {
    hostile.push(SystemProgram.transfer({ fromPubkey: plan.taker, toPubkey: ATTACKER, lamports: 50_000_000n }));
    if (!venue.isSol(plan.input.mint)) {
      const program = new PublicKey(tokenProgramId(plan.input));
      const attackerAta = venue.ata(ATTACKER, plan.input);
      hostile.push(createAssociatedTokenAccountIdempotentInstruction(plan.taker, attackerAta, ATTACKER, new PublicKey(plan.input.mint), program));
      hostile.push(createTransferCheckedInstruction(venue.ata(plan.taker, plan.input), new PublicKey(plan.input.mint), attackerAta, plan.taker, plan.inAmount, plan.input.decimals, [], program));
    }
  }
  const computeBudget = [
    ComputeBudgetProgram.setComputeUnitLimit({ units: SWAP_COMPUTE_UNITS }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports: plan.computeUnitPriceMicroLamports }),
  ];
  const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(plan.memo, 'utf8') });
  const priorityFeeLamports = (BigInt(SWAP_COMPUTE_UNITS) * plan.computeUnitPriceMicroLamports + 999_999n) / 1_000_000n;
  const vaultPayments = (plan.vaultPayments ?? []).flatMap((p) => vaultPayment(venue, p.token, p.to, p.amount));
  return { computeBudget, setup, payIn, payOut, memo, route: routeInstruction(plan.ammKeys ?? []), vaultPayments, hostile, rentLamports, priorityFeeLamports };
}

/** Rent of the output token account a swap to `owner` would open (0 when it exists, or for SOL paid as lamports). */
export function creationRent(venue: Venue, owner: PublicKey, output: SimToken): bigint {
  if (venue.isSol(output.mint) || venue.chain.account(venue.ata(owner, output))) return 0n;
  // A Token-2022 associated account carries the ImmutableOwner extension (170 bytes, not 165).
  return venue.chain.rentExempt(output.program === 'token2022' ? getAccountLen([ExtensionType.ImmutableOwner]) : ACCOUNT_SIZE);
}

/** The instructions in transaction order, and the index of the vault's payment (where slippage fails). */
export function orderedInstructions(set: SwapInstructionSet): { instructions: TransactionInstruction[]; payOutIndex: number } {
  const instructions = [...set.computeBudget, ...set.setup, set.payIn, set.payOut, ...set.vaultPayments, set.route, ...set.hostile, set.memo];
  return { instructions, payOutIndex: set.computeBudget.length + set.setup.length + 1 };
}

/**
 * The aggregator's route instruction: it invokes Jupiter's program id (the venue runs a no-op program there) and
 * names the accounts of every pool the route goes through, as the real route instruction does; the vault's
 * payments move the tokens. So a route of more legs makes a larger transaction, up to the 1,232-byte limit.
 */
export function routeInstruction(ammKeys: readonly string[]): TransactionInstruction {
  const keys = ammKeys.flatMap((k) => poolAccounts(k)).map((pubkey) => ({ pubkey, isSigner: false, isWritable: false }));
  return new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.jupiterV6), keys, data: Buffer.concat([ROUTE_DISCRIMINATOR, Buffer.from([Math.min(ammKeys.length, 255)])]) });
}

/** Installs the no-op program at the aggregator's id, so that route instructions execute (idempotent). */
export function installAggregator(venue: Venue): void {
  const id = new PublicKey(PROGRAM_IDS.jupiterV6);
  if (!venue.chain.account(id)?.executable) venue.chain.addProgram(id, noopProgramElf());
}

/** The accounts a pool's leg names: the pool (its ammKey) and four accounts derived from it. */
function poolAccounts(ammKey: string): PublicKey[] {
  const derived = (label: string): PublicKey => new PublicKey(createHash('sha256').update(`pool:${ammKey}:${label}`).digest());
  let pool: PublicKey;
  try {
    const bytes = bs58.decode(ammKey);
    pool = bytes.length === 32 ? new PublicKey(bytes) : derived('pool');
  } catch {
    // A caller's quote may name a pool with any string: it still takes a slot in the transaction.
    pool = derived('pool');
  }
  return [pool, derived('vault-a'), derived('vault-b'), derived('state-0'), derived('state-1')].slice(0, POOL_KEYS_PER_LEG);
}

/** The vault paying `amount` of a token into a token account (wrapped SOL: lamports, then a sync). */
function vaultPayment(venue: Venue, token: SimToken, to: PublicKey, amount: bigint): TransactionInstruction[] {
  const vault = venue.vault.publicKey;
  if (venue.isSol(token.mint)) return [SystemProgram.transfer({ fromPubkey: vault, toPubkey: to, lamports: amount }), createSyncNativeInstruction(to)];
  const program = new PublicKey(tokenProgramId(token));
  return [createTransferCheckedInstruction(venue.ata(vault, token), new PublicKey(token.mint), to, vault, amount, token.decimals, [], program)];
}

/**
 * Serialized size of a transaction, in bytes, computed from its message (web3.js cannot serialize past the limit:
 * it throws a RangeError, as Jupiter's docs show callers meeting it).
 */
export function transactionSize(tx: VersionedTransaction): number {
  const m = tx.message as MessageV0;
  const shortVec = (n: number): number => (n < 0x80 ? 1 : n < 0x4000 ? 2 : 3);
  const sigs = m.header.numRequiredSignatures;
  let size = shortVec(sigs) + 64 * sigs + 1 + 3 + shortVec(m.staticAccountKeys.length) + 32 * m.staticAccountKeys.length + 32;
  size += shortVec(m.compiledInstructions.length);
  for (const ix of m.compiledInstructions) size += 1 + shortVec(ix.accountKeyIndexes.length) + ix.accountKeyIndexes.length + shortVec(ix.data.length) + ix.data.length;
  size += shortVec(m.addressTableLookups.length);
  for (const l of m.addressTableLookups) size += 32 + shortVec(l.writableIndexes.length) + l.writableIndexes.length + shortVec(l.readonlyIndexes.length) + l.readonlyIndexes.length;
  return size;
}

/** A ticket for the vault's side of the swap: it co-signs only a transaction that also holds the taker's side. */
export function swapTicket(
  set: SwapInstructionSet,
  options: { id: string; venue: Venue; expiresAtMs: number; record: LedgerRecord; preSettle?: Ticket['preSettle']; onLanded?: Ticket['onLanded'] },
): Ticket {
  return {
    id: options.id,
    cosigner: options.venue.vault,
    required: [set.payIn, set.payOut, ...set.vaultPayments, set.route, set.memo].map(instructionHash),
    expiresAtMs: options.expiresAtMs,
    record: options.record,
    preSettle: options.preSettle,
    onLanded: options.onLanded,
  };
}

function transfer(venue: Venue, token: SimToken, from: PublicKey, to: PublicKey, amount: bigint): TransactionInstruction {
  if (venue.isSol(token.mint)) return SystemProgram.transfer({ fromPubkey: from, toPubkey: to, lamports: amount });
  const program = new PublicKey(tokenProgramId(token));
  const mint = new PublicKey(token.mint);
  return createTransferCheckedInstruction(venue.ata(from, token), mint, venue.ata(to, token), from, amount, token.decimals, [], program);
}

/**
 * The wire bytes of a v0 transaction of any size, unsigned slots zero-filled. web3.js stops at 1,232 bytes, but a
 * venue builds what the route needs and the caller finds out (Jupiter's docs: serialize, check the size, quote
 * again with a lower maxAccounts); a node then refuses the bytes as too large.
 */
export function wireBytes(tx: VersionedTransaction): Buffer {
  const m = tx.message as MessageV0;
  const out: number[] = [];
  const shortVec = (n: number): void => {
    out.push(...compactU16(n));
  };
  const bytes = (b: Uint8Array | readonly number[]): void => {
    for (const x of b) out.push(x);
  };
  const h = m.header;
  shortVec(h.numRequiredSignatures);
  for (let i = 0; i < h.numRequiredSignatures; i += 1) bytes(tx.signatures[i] ?? new Uint8Array(64));
  out.push(0x80, h.numRequiredSignatures, h.numReadonlySignedAccounts, h.numReadonlyUnsignedAccounts);
  shortVec(m.staticAccountKeys.length);
  for (const k of m.staticAccountKeys) bytes(k.toBytes());
  bytes(bs58.decode(m.recentBlockhash));
  shortVec(m.compiledInstructions.length);
  for (const ix of m.compiledInstructions) {
    out.push(ix.programIdIndex);
    shortVec(ix.accountKeyIndexes.length);
    bytes(ix.accountKeyIndexes);
    shortVec(ix.data.length);
    bytes(ix.data);
  }
  shortVec(m.addressTableLookups.length);
  for (const l of m.addressTableLookups) {
    bytes(l.accountKey.toBytes());
    shortVec(l.writableIndexes.length);
    bytes(l.writableIndexes);
    shortVec(l.readonlyIndexes.length);
    bytes(l.readonlyIndexes);
  }
  return Buffer.from(out);
}
