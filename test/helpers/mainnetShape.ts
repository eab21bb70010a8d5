// The mainnet shape of a product transaction (issue 20, item 7). The simulator's product programs are no-ops
// (src/sim/chain/noopProgram.ts), so the venue puts every money move of a product BESIDE its instruction as top-level
// system and token instructions: the user's deposit, the jlToken mint or burn, the payouts the venue's keeper signs as
// the escrow's delegate (the "sim shape"). On mainnet the program makes those moves itself, by CPI, so a node shows
// them as inner instructions of the product instruction (the "mainnet shape"). The guard must judge both alike.
//
// The twin: the sim-shaped transaction's message minus its moves, i.e. every top-level instruction of the system and
// token programs, and every associated-token-account instruction but the wallet creating its own account at its own
// expense (the keeper opening the wallet's payout account, or an escrow paid by the wallet, is the program's doing on
// mainnet). What stays: compute budget, memos, the wallet's own ATA set-up, the product instruction and any other
// program's. Same payer and blockhash, optionally compiled against lookup tables; no program address as a signer.
//
// Its simulation (mainnetShapeRpc.ts) is the sim-shaped original's, run on the simulator, answered for the twin: the
// removed moves, parsed by the simulator's own parser (the Agave jsonParsed form every inner instruction of the
// simulator has), are listed as inner instructions of the product instruction's index at stackHeight 2, in the order
// they ran, each followed by its own CPIs one level deeper; the other instructions' CPIs move to their twin indexes.
//
// Faithful: the movements (source, destination, amount, mint; creations with their size, owner and rent), the
// post-simulation state of every account, the order of events, the top-level program each movement runs under, and
// the form a node gives system and token CPIs. The fee: a node charges the twin's signatures, not the original's (the
// keeper co-signs a payout beside the instruction; on mainnet the program signs for its escrow inside it), so the fee
// payer's simulated lamports are given back 5,000 per signature the twin does not carry.
//
// Not faithful: a payout's authority is still the keeper (the escrow's delegate in the simulator) where the program's
// PDA signs on mainnet, and an escrow paying SOL pays through the keeper's wrapped-SOL account (escrow.ts
// payoutInstructions); the logs and compute units are the original's. What a program does without an instruction is
// missing in both shapes: closing its own state account moves its rent by direct lamport writes (the simulator's venue
// closes it when the transaction lands, not in a simulation). The product instruction's account metas are the
// layouts' (src/jupiter/programs): where a real program marks writable an account the layout does not, the twin asks
// for fewer post states than a real transaction would. The creating instructions' own account creations (the order and
// its escrow, paid by the wallet) are mainnetShapeCreates.ts's variant: the simulator's venue pays for them instead.
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction, type AddressLookupTableAccount } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';

/** Programs whose top-level instructions are moves: a real product program makes them by CPI. */
const MOVE_PROGRAMS: ReadonlySet<string> = new Set([PROGRAM_IDS.system, PROGRAM_IDS.splToken, PROGRAM_IDS.token2022]);
/** Signature fee of one signature, lamports (mainnet and LiteSVM). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;

/** A sim-shaped transaction and its mainnet twin, with where each original instruction runs in the twin. */
export interface MainnetTwin {
  /** The sim-shaped transaction (v0, no lookup tables) whose simulation stands for the twin's. */
  original: VersionedTransaction;
  /** The same message without its moves, unsigned. */
  twin: VersionedTransaction;
  /** Index of the product instruction in the twin (its inner instructions are the moves). */
  productIndex: number;
  /** For each top-level instruction of the original: its index in the twin, or 'inner' when it runs inside the product instruction. */
  placement: ReadonlyArray<number | 'inner'>;
  /** The fee payer (the wallet), base58. */
  payer: string;
  /** Lamports the twin's fee is below the original's (signatures it does not carry). */
  feeRefund: bigint;
  /** The base64 message of the twin: what the RPC front recognises it by. */
  key: string;
}

/** Options of a twin. */
export interface TwinOptions {
  /** The product's program (base58): its first instruction is the one the moves run inside. */
  program: string;
  /** The wallet: its own associated token accounts created at its own expense stay top-level. */
  wallet: PublicKey;
  /** Lookup tables to compile the twin against (the original has none). */
  tables?: AddressLookupTableAccount[];
}

/**
 * The mainnet twin of a sim-shaped product transaction: its moves taken out to run inside the product instruction.
 * Throws when the original uses lookup tables or has no instruction of the product's program.
 */
export function mainnetTwin(original: VersionedTransaction, o: TwinOptions): MainnetTwin {
  if (original.message.addressTableLookups.length > 0) throw new Error('the original of a mainnet twin must have no lookup tables (the simulator builds none)');
  const m = TransactionMessage.decompile(original.message);
  const anchor = m.instructions.findIndex((ix) => ix.programId.toBase58() === o.program);
  if (anchor < 0) throw new Error(`the transaction has no instruction of ${o.program} for its moves to run inside`);
  const placement: Array<number | 'inner'> = [];
  const kept: TransactionInstruction[] = [];
  m.instructions.forEach((ix, i) => {
    if (i !== anchor && runsInside(ix, o.wallet)) {
      placement.push('inner');
      return;
    }
    placement.push(kept.length);
    kept.push(offCurveUnsigned(ix));
  });
  const message = new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions: kept }).compileToV0Message(o.tables);
  const twin = new VersionedTransaction(message);
  const dropped = original.message.header.numRequiredSignatures - message.header.numRequiredSignatures;
  return {
    original,
    twin,
    productIndex: placement[anchor] as number,
    placement,
    payer: m.payerKey.toBase58(),
    feeRefund: BigInt(dropped) * LAMPORTS_PER_SIGNATURE,
    key: Buffer.from(message.serialize()).toString('base64'),
  };
}

/**
 * The instruction with no address off the ed25519 curve as a signer. A message says who signs, not an instruction:
 * decompiled, every instruction naming a signer of the message names it as one. A program address signs only
 * through its program's CPIs (invoke_signed), never a transaction, so where the original had one sign a move beside
 * the instruction (mainnetShapeCreates.ts: a PDA's createAccount), the twin, whose moves run inside, does not.
 */
function offCurveUnsigned(ix: TransactionInstruction): TransactionInstruction {
  if (!ix.keys.some((k) => k.isSigner && !PublicKey.isOnCurve(k.pubkey.toBytes()))) return ix;
  return new TransactionInstruction({ programId: ix.programId, keys: ix.keys.map((k) => (k.isSigner && !PublicKey.isOnCurve(k.pubkey.toBytes()) ? { ...k, isSigner: false } : k)), data: ix.data });
}

/**
 * Whether an instruction beside the product's is what the program does inside its own on mainnet: a system or token
 * move, or an associated token account created by anyone but the wallet for itself (a payout's destination the
 * keeper opens, an escrow).
 */
export function runsInside(ix: TransactionInstruction, wallet: PublicKey): boolean {
  const program = ix.programId.toBase58();
  if (MOVE_PROGRAMS.has(program)) return true;
  if (program !== PROGRAM_IDS.associatedToken) return false;
  // Create and createIdempotent: [payer, account, owner, mint, system, token program].
  const [payer, , owner] = ix.keys.map((k) => k.pubkey);
  return !(payer?.equals(wallet) && owner?.equals(wallet));
}

/** The top-level instructions of a transaction without lookup tables, decompiled (for tests that read them). */
export function instructionsOf(tx: VersionedTransaction): TransactionInstruction[] {
  return TransactionMessage.decompile(tx.message).instructions;
}

/** Whether a base58 address is a program whose top-level instructions the twin moves inside. */
export function isMoveProgram(program: PublicKey | string): boolean {
  return MOVE_PROGRAMS.has(typeof program === 'string' ? program : program.toBase58());
}
