// What a real product program also does inside its creating instruction, and the simulator does not: it creates its
// state account (the order, the DCA, the prediction order and a first position, the invite) and its escrow token
// account (a DCA's account of the output mint too) at the payer's (the wallet's) expense. The simulator's venue opens
// the escrow itself when it builds the transaction (escrow.ts openEscrow, paid by the venue) and writes the state
// account when the transaction lands.
//
// The variant adds those creations to the sim-shaped original, before its moves, so that its mainnet twin carries
// them as inner instructions of the product instruction, with the wallet's lamports really paying their rent in the
// simulation: each token account by the associated-token-account program with the wallet as payer (as Anchor's
// `init` with `associated_token` does by CPI), the state account by a system createAccount of the account's size and
// rent-exempt minimum (the simulator's own rent), owned by the product's program. A PDA cannot sign a top-level
// instruction on a real cluster (its program signs for it by invoke_signed); the guard's simulation skips signatures,
// so the original may name it as a signer, and the twin, where the creation runs inside the instruction, does not.
// The escrow the venue already opened is taken off the chain while the guard looks (whileAbsent), as mainnet has none
// before the instruction, and put back after. Sizes are the programs' layouts (src/jupiter/programs): the trigger
// order, the DCA and the invite are fixed; a prediction order or position is taken at its largest (Anchor's InitSpace).
import { PublicKey, SystemProgram, TransactionMessage, VersionedTransaction, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction } from '@solana/spl-token';
import type { RawInstruction } from '../../src/jupiter/programs/instruction.js';
import { decodePredictionInstruction, PREDICTION_PROGRAM } from '../../src/jupiter/programs/prediction.js';
import { orderAccountSpace, positionAccountSpace } from '../../src/jupiter/programs/predictionAccounts.js';
import { DCA_ACCOUNT_SIZE, decodeRecurringInstruction, RECURRING_PROGRAM } from '../../src/jupiter/programs/recurring.js';
import { decodeSendInstruction, INVITE_INFO_TOKEN_SIZE, SEND_PROGRAM } from '../../src/jupiter/programs/send.js';
import { decodeTriggerInstruction, ORDER_ACCOUNT_SIZE, TRIGGER_PROGRAM } from '../../src/jupiter/programs/trigger.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import type { Venue } from '../../src/sim/venue.js';
import { runsInside } from './mainnetShape.js';

/** An account a product program creates inside its instruction at the wallet's expense. */
export type ProgramCreation =
  | { kind: 'state'; address: PublicKey; program: PublicKey; space: number; what: string }
  | { kind: 'escrow'; address: PublicKey; authority: PublicKey; mint: PublicKey; tokenProgram: PublicKey; what: string };

/** How the creations are paid; the defaults are the honest program's. */
export interface CreationTerms {
  /** Lamports paid for each state account beyond its rent-exempt minimum. */
  extraLamports?: bigint;
  /** Bytes allocated to each state account beyond its size. */
  extraSpace?: number;
}

const k = (address: string) => new PublicKey(address);
/** The programs whose instructions create accounts at the wallet's expense. */
const CREATING_PROGRAMS = [TRIGGER_PROGRAM, RECURRING_PROGRAM, PREDICTION_PROGRAM, SEND_PROGRAM];

/**
 * The accounts the creating instruction of a sim-shaped transaction has its program create: its state account (and a
 * prediction buy's first position) when the chain does not hold it yet, and its escrow. Empty for any other instruction.
 */
export function programCreations(tx: VersionedTransaction, venue: Venue): ProgramCreation[] {
  const out: ProgramCreation[] = [];
  const state = (address: string, program: PublicKey, space: bigint, what: string) => {
    if (!venue.chain.account(k(address))) out.push({ kind: 'state', address: k(address), program, space: Number(space), what });
  };
  const escrow = (address: string, authority: string, mint: string, tokenProgram: string, what: string) => out.push({ kind: 'escrow', address: k(address), authority: k(authority), mint: k(mint), tokenProgram: k(tokenProgram), what });
  for (const ix of TransactionMessage.decompile(tx.message).instructions) {
    const raw: RawInstruction = { programId: ix.programId.toBase58(), accounts: ix.keys.map((x) => x.pubkey.toBase58()), data: ix.data };
    if (ix.programId.equals(TRIGGER_PROGRAM)) {
      const d = decodeTriggerInstruction(raw);
      if (d?.name !== 'initializeOrder') continue;
      state(d.accounts.order, TRIGGER_PROGRAM, BigInt(ORDER_ACCOUNT_SIZE), 'limit order');
      escrow(d.accounts.reserve, d.accounts.order, d.accounts.inputMint, d.accounts.inputTokenProgram, 'order reserve');
    } else if (ix.programId.equals(RECURRING_PROGRAM)) {
      const d = decodeRecurringInstruction(raw);
      if (d?.name !== 'openDcaV2') continue;
      state(d.accounts.dca, RECURRING_PROGRAM, DCA_ACCOUNT_SIZE, 'DCA');
      escrow(d.accounts.inAta, d.accounts.dca, d.accounts.inputMint, d.accounts.tokenProgram, 'DCA input escrow');
      // openDcaV2 opens the order's account of the output mint too (where its fills land), at the payer's expense.
      escrow(d.accounts.outAta, d.accounts.dca, d.accounts.outputMint, d.accounts.tokenProgram, 'DCA output account');
    } else if (ix.programId.equals(PREDICTION_PROGRAM)) {
      const d = decodePredictionInstruction(raw);
      if (d?.name !== 'createOrder' || !d.args.isBuy) continue;
      state(d.accounts.order, PREDICTION_PROGRAM, orderAccountSpace().max, 'prediction order');
      state(d.accounts.position, PREDICTION_PROGRAM, positionAccountSpace().max, 'position');
      escrow(d.accounts.orderAta, d.accounts.order, d.accounts.settlementMint, PROGRAM_IDS.splToken, 'order escrow');
    } else if (ix.programId.equals(SEND_PROGRAM)) {
      const d = decodeSendInstruction(raw);
      if (d?.name !== 'initializeToken') continue;
      state(d.accounts.inviteInfo, SEND_PROGRAM, BigInt(INVITE_INFO_TOKEN_SIZE), 'invite');
      escrow(d.accounts.escrow, d.accounts.inviteInfo, d.accounts.mint, d.accounts.tokenProgram, 'invite escrow');
    }
  }
  return out;
}

/**
 * The sim-shaped transaction with the program's creations paid by `wallet`, placed where the program makes them:
 * before the moves that run inside its instruction (a deposit goes into an escrow once it exists). Unsigned.
 */
export function withProgramCreations(tx: VersionedTransaction, creations: readonly ProgramCreation[], wallet: PublicKey, venue: Venue, terms: CreationTerms = {}): VersionedTransaction {
  const m = TransactionMessage.decompile(tx.message);
  const creates: TransactionInstruction[] = creations.map((c) => {
    if (c.kind === 'escrow') return createAssociatedTokenAccountIdempotentInstruction(wallet, c.address, c.authority, c.mint, c.tokenProgram);
    const space = c.space + (terms.extraSpace ?? 0);
    const lamports = venue.chain.rentExempt(space) + (terms.extraLamports ?? 0n);
    return SystemProgram.createAccount({ fromPubkey: wallet, newAccountPubkey: c.address, lamports: Number(lamports), space, programId: c.program });
  });
  const anchor = m.instructions.findIndex((ix) => CREATING_PROGRAMS.some((p) => ix.programId.equals(p)));
  let at = anchor < 0 ? m.instructions.length : anchor;
  while (at > 0 && runsInside(m.instructions[at - 1]!, wallet)) at -= 1;
  const instructions = [...m.instructions.slice(0, at), ...creates, ...m.instructions.slice(at)];
  return new VersionedTransaction(new TransactionMessage({ payerKey: m.payerKey, recentBlockhash: m.recentBlockhash, instructions }).compileToV0Message());
}

/**
 * Runs `fn` with the escrows of `creations` off the chain (as before the program creates them) and puts them back
 * after, as they were (the venue's keeper their delegate).
 */
export async function whileAbsent<T>(venue: Venue, creations: readonly ProgramCreation[], fn: () => Promise<T>): Promise<T> {
  const saved = creations.filter((c) => c.kind === 'escrow').map((c) => [c.address, venue.chain.account(c.address)] as const);
  for (const [address] of saved) venue.chain.setAccount(address, { lamports: 0, data: new Uint8Array(0), owner: SystemProgram.programId, executable: false });
  try {
    return await fn();
  } finally {
    for (const [address, account] of saved) if (account) venue.chain.setAccount(address, account);
  }
}
