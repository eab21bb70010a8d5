import { ComputeBudgetProgram, PublicKey, SystemProgram, type TransactionInstruction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createSyncNativeInstruction, createTransferCheckedInstruction } from '@solana/spl-token';
import { tokenProgramId, type SimToken } from '../catalog.js';
import type { Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import type { SimTriggerOrder } from './triggerOrders.js';
import { cancelOrderInstruction, fillOrderInstruction, initializeOrderInstruction } from '../../jupiter/programs/trigger.js';

/** Compute-unit limit of a trigger transaction (the captured createOrder transaction asks for 132,000). */
export const TRIGGER_COMPUTE_UNITS = 132_000;

/** The compute-budget instructions every trigger transaction starts with. */
export function computeBudget(microLamports: bigint): TransactionInstruction[] {
  return [ComputeBudgetProgram.setComputeUnitLimit({ units: TRIGGER_COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports })];
}

/**
 * The maker's createOrder instructions after the compute budget: the maker's token account of the output opened
 * (idempotent, as the real transaction does, so fills can pay into it), the deposit into the order's escrow (the
 * real program pulls it by CPI; the simulator's program does nothing, so the transfer is the maker's own
 * instruction, the same amount into the same account), then the program's initialize_order. SOL is deposited as
 * lamports wrapped in the escrow, or, with wrapAndUnwrapSol false, from the maker's wrapped-SOL account.
 */
export function createOrderInstructions(venue: Venue, escrows: EscrowBook, o: SimTriggerOrder, opts: { payer: PublicKey; wrapSol: boolean }): TransactionInstruction[] {
  const out: TransactionInstruction[] = [];
  if (!venue.isSol(o.output.mint)) {
    const program = new PublicKey(tokenProgramId(o.output));
    out.push(createAssociatedTokenAccountIdempotentInstruction(opts.payer, venue.ata(o.maker, o.output), o.maker, new PublicKey(o.output.mint), program));
  }
  const fromWrapped = venue.isSol(o.input.mint) && !opts.wrapSol;
  if (fromWrapped) {
    const program = new PublicKey(tokenProgramId(o.input));
    out.push(createTransferCheckedInstruction(venue.ata(o.maker, o.input), new PublicKey(o.input.mint), o.escrow, o.maker, o.making, o.input.decimals, [], program));
  } else {
    out.push(...escrows.depositInstructions(o.maker, o.input, o.escrow, o.making));
  }
  out.push(
    initializeOrderInstruction(
      {
        payer: opts.payer,
        maker: o.maker,
        order: o.key,
        reserve: o.escrow,
        makerInputAccount: venue.isSol(o.input.mint) && !fromWrapped ? o.maker : venue.ata(o.maker, o.input),
        referral: o.integrator?.account ?? null,
        inputMint: new PublicKey(o.input.mint),
        outputMint: new PublicKey(o.output.mint),
        inputTokenProgram: new PublicKey(tokenProgramId(o.input)),
        outputTokenProgram: new PublicKey(tokenProgramId(o.output)),
      },
      {
        uniqueId: o.uniqueId,
        makingAmount: o.making,
        takingAmount: o.taking,
        expiredAt: o.expiredAt === null ? null : BigInt(o.expiredAt),
        feeBps: o.integrator?.bps ?? null,
        slippageBps: o.slippageBps,
      },
    ),
  );
  return out;
}

/**
 * Closing an order: the program's cancel_order (signed by the maker, or by the keeper for an expired order) and the
 * refund of exactly what the escrow still holds to the maker, paid by the keeper as the escrow's delegate (the
 * real program pays it by CPI; here the keeper co-signs the maker's transaction, or sends its own).
 */
export function cancelInstructions(venue: Venue, escrows: EscrowBook, o: SimTriggerOrder, signer: PublicKey): TransactionInstruction[] {
  return [
    cancelOrderInstruction({
      signer,
      maker: o.maker,
      order: o.key,
      reserve: o.escrow,
      makerInputAccount: venue.isSol(o.input.mint) ? null : venue.ata(o.maker, o.input),
      inputMint: new PublicKey(o.input.mint),
      inputTokenProgram: new PublicKey(tokenProgramId(o.input)),
    }),
    ...escrows.payoutInstructions(o.escrow, o.input, o.maker, o.remainingMaking),
  ];
}

/** What one fill moves, base units. */
export interface FillPlan {
  /** Input sold out of the escrow to the vault. */
  making: bigint;
  /** Output the vault pays the maker. */
  paid: bigint;
  /** The integrator's fee, paid by the vault to the order's fee account. */
  integratorFee: bigint;
}

/**
 * A keeper's fill: the program's fill_order (the keeper is the taker), the escrow's input to the vault (the
 * keeper moves it as delegate), the output from the vault to the maker and the integrator's fee to its account.
 * The vault co-signs its payments.
 */
export function fillInstructions(venue: Venue, escrows: EscrowBook, o: SimTriggerOrder, plan: FillPlan): TransactionInstruction[] {
  const keeper = venue.keeper.publicKey;
  const vault = venue.vault.publicKey;
  const out: TransactionInstruction[] = [
    fillOrderInstruction(
      {
        taker: keeper,
        maker: o.maker,
        order: o.key,
        takerInputAccount: venue.isSol(o.input.mint) ? venue.keeperSolSink : venue.ata(vault, o.input),
        takerOutputAccount: venue.isSol(o.output.mint) ? vault : venue.ata(vault, o.output),
        makerOutputAccount: venue.isSol(o.output.mint) ? o.maker : venue.ata(o.maker, o.output),
        reserve: o.escrow,
        inputMint: new PublicKey(o.input.mint),
        inputTokenProgram: new PublicKey(tokenProgramId(o.input)),
        outputMint: new PublicKey(o.output.mint),
        outputTokenProgram: new PublicKey(tokenProgramId(o.output)),
      },
      plan.making,
    ),
    ...escrows.payoutInstructions(o.escrow, o.input, vault, plan.making),
    ...venue.transferInstructions(o.output, vault, o.maker, plan.paid, keeper),
  ];
  if (o.integrator && plan.integratorFee > 0n) out.push(...payFeeAccount(venue, o.output, o.integrator.account, plan.integratorFee));
  return out;
}

function payFeeAccount(venue: Venue, token: SimToken, account: PublicKey, amount: bigint): TransactionInstruction[] {
  // A wrapped-SOL fee account is paid in lamports and synced (the vault holds SOL, not wrapped SOL).
  if (venue.isSol(token.mint)) return [SystemProgram.transfer({ fromPubkey: venue.vault.publicKey, toPubkey: account, lamports: amount }), createSyncNativeInstruction(account)];
  const program = new PublicKey(tokenProgramId(token));
  return [createTransferCheckedInstruction(venue.ata(venue.vault.publicKey, token), new PublicKey(token.mint), account, venue.vault.publicKey, amount, token.decimals, [], program)];
}
