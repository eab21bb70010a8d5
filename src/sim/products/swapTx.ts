import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { ACCOUNT_SIZE, createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, ExtensionType, getAccountLen } from '@solana/spl-token';
import { tokenProgramId, type SimToken } from '../catalog.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import type { LedgerRecord } from '../chain/chain.js';
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
  hostile: TransactionInstruction[];
  /** Lamports of rent the taker pays for accounts created. */
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
      setup.push(createAssociatedTokenAccountIdempotentInstruction(plan.taker, destination, plan.taker, mint, program));
      // A Token-2022 associated account carries the ImmutableOwner extension (170 bytes, not 165).
      const size = plan.output.program === 'token2022' ? getAccountLen([ExtensionType.ImmutableOwner]) : ACCOUNT_SIZE;
      rentLamports += venue.chain.rentExempt(size);
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
  return { computeBudget, setup, payIn, payOut, memo, hostile, rentLamports, priorityFeeLamports };
}

/** The instructions in transaction order, and the index of the vault's payment (where slippage fails). */
export function orderedInstructions(set: SwapInstructionSet): { instructions: TransactionInstruction[]; payOutIndex: number } {
  const instructions = [...set.computeBudget, ...set.setup, set.payIn, set.payOut, ...set.hostile, set.memo];
  return { instructions, payOutIndex: set.computeBudget.length + set.setup.length + 1 };
}

/** A ticket for the vault's side of the swap: it co-signs only a transaction that also holds the taker's side. */
export function swapTicket(
  set: SwapInstructionSet,
  options: { id: string; venue: Venue; expiresAtMs: number; record: LedgerRecord; preSettle?: Ticket['preSettle']; onLanded?: Ticket['onLanded'] },
): Ticket {
  return {
    id: options.id,
    cosigner: options.venue.vault,
    required: [instructionHash(set.payIn), instructionHash(set.payOut), instructionHash(set.memo)],
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
