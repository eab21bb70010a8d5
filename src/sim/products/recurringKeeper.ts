import { TransactionInstruction } from '@solana/web3.js';
import type { Venue, ProductKeeper } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import { remainingOf, type RecurringBook, type RecurringOrderState } from './recurringBook.js';
import { RECURRING_FEE_BPS } from '../../jupiter/programs/recurring.js';
import { MEMO_PROGRAM_ID } from './swapTx.js';

/** Most slices one order fills in one run (a clock moved far ahead catches up over a few runs, not all at once). */
const MAX_SLICES_PER_RUN = 16;

/**
 * The recurring program's keeper on the simulator: each slice that is due is swapped at the market (the venue's
 * router, the vault as counterparty) out of the order's escrow, and the output, less the program's 0.1 % fee, goes
 * straight to the user's wallet (time-based orders withdraw it at once). A slice whose output falls outside the
 * order's price bounds waits for the market. The next slice is due one interval after this one was, so a keeper that
 * fell behind catches up. Each fill is a real transaction of the keeper (the escrow's delegate) and the vault.
 */
export class RecurringKeeper implements ProductKeeper {
  readonly product = 'recurring';

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
    private readonly book: RecurringBook,
  ) {}

  tick(now: number): number {
    let done = 0;
    for (const o of this.book.active()) {
      if (this.cancelPending(o, now)) continue;
      for (let i = 0; i < MAX_SLICES_PER_RUN && o.status === 'active' && o.nextCycleAtMs <= now; i += 1) {
        if (!this.fill(o, now, false)) break;
        done += 1;
      }
    }
    return done;
  }

  /** Fills the next slice of one order (or of every open order) now, whatever its schedule and price bounds. */
  fillNow(order: string | undefined, now: number): number {
    let done = 0;
    for (const o of this.targets(order)) {
      if (!this.cancelPending(o, now) && this.attempt(() => this.fill(o, now, true))) done += 1;
    }
    return done;
  }

  /** Ends one order (or every open order) now: the keeper returns what its escrow holds to the user. */
  expireNow(order: string | undefined, _now: number): number {
    let done = 0;
    for (const o of this.targets(order)) if (this.attempt(() => this.expire(o))) done += 1;
    return done;
  }

  private expire(o: RecurringOrderState): boolean {
    const refund = remainingOf(o);
    let signature = '';
    if (refund > 0n) {
      const record = { kind: 'recurring-cancel', wallet: o.user.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: o.input.mint, outputAmount: refund };
      signature = this.escrows.submitKeeper([...this.escrows.payoutInstructions(o.escrow, o.input, o.user, refund), memo(`expire ${o.key.toBase58()}`)], record);
    }
    // A cancel still out would pay a refund the escrow no longer holds.
    if (o.pendingCancel) this.venue.tickets.consume(o.pendingCancel.ticketId);
    o.inWithdrawn += refund;
    this.book.close(o, signature, false);
    return true;
  }

  /** Runs one keeper action for the control API; a failure is kept as the venue's last keeper error, not thrown. */
  private attempt(action: () => boolean): boolean {
    try {
      return action();
    } catch (err) {
      this.venue.lastKeeperError = `${this.product}: ${err instanceof Error ? err.message : String(err)}`;
      return false;
    }
  }

  private targets(order: string | undefined): RecurringOrderState[] {
    if (order === undefined) return this.book.active();
    const o = this.book.get(order);
    return o?.status === 'active' ? [o] : [];
  }

  /** A cancel is out and may still land: its refund is the escrow's balance now, so no slice may move it. */
  private cancelPending(o: RecurringOrderState, now: number): boolean {
    return o.pendingCancel !== undefined && o.pendingCancel.expiresAtMs >= now;
  }

  /** Swaps one slice; false when it waits (price out of bounds, no route). Throws when the keeper's transaction fails. */
  private fill(o: RecurringOrderState, now: number, force: boolean): boolean {
    const v = this.venue;
    const remaining = remainingOf(o);
    if (remaining <= 0n) return false;
    const fills = o.trades.length;
    // The last slice takes what the division left over, so an order fills exactly numberOfOrders times.
    const slice = fills + 1 >= o.numberOfOrders || remaining < o.inAmountPerCycle ? remaining : o.inAmountPerCycle;
    let gross: bigint;
    try {
      gross = v.router.quoteExactIn(o.input.mint, o.output.mint, slice).outAmount;
    } catch {
      return false;
    }
    // The bounds are per cycle of inAmountPerCycle; a larger last slice is held to the same price.
    const per = o.inAmountPerCycle > 0n ? o.inAmountPerCycle : slice;
    if (!force && o.minOutAmount > 0n && gross * per < o.minOutAmount * slice) return false;
    if (!force && o.maxOutAmount > 0n && gross * per > o.maxOutAmount * slice) return false;
    const fee = (gross * RECURRING_FEE_BPS) / 10_000n;
    const net = gross - fee;
    if (net <= 0n) return false;
    const vault = v.vault.publicKey;
    const instructions = [
      ...this.escrows.payoutInstructions(o.escrow, o.input, vault, slice),
      ...v.transferInstructions(o.output, vault, o.user, net, v.keeper.publicKey),
      // Two equal slices of one order in one slot would otherwise be the same transaction.
      memo(`fill ${o.key.toBase58()} #${fills + 1}`),
    ];
    const record = { kind: 'recurring-fill', wallet: o.user.toBase58(), requestId: null, inputMint: o.input.mint, inputAmount: slice, outputMint: o.output.mint, outputAmount: net };
    const signature = this.escrows.submitKeeper(instructions, record, [v.vault]);
    o.inUsed += slice;
    o.outReceived += net;
    o.outWithdrawn += net;
    o.trades.unshift({ action: 'Fill', inputAmount: slice, outputAmount: net, feeAmount: fee, txId: signature, confirmedAtMs: now });
    o.nextCycleAtMs += o.cycleSeconds * 1000;
    o.updatedAtMs = now;
    if (remainingOf(o) === 0n) {
      this.book.close(o, signature, false);
    } else {
      this.book.writeAccount(o);
    }
    return true;
  }
}

function memo(text: string): TransactionInstruction {
  return new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`jup-keeper-sim recurring ${text}`, 'utf8') });
}
