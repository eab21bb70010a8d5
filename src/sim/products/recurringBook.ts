import { PublicKey } from '@solana/web3.js';
import type { SimToken } from '../catalog.js';
import type { Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import { encodeDcaAccount, RECURRING_PROGRAM } from '../../jupiter/programs/recurring.js';

/** One fill (or other action) of a recurring order, in base units. */
export interface RecurringTrade {
  action: 'Fill';
  inputAmount: bigint;
  /** What the user received, after the fee. */
  outputAmount: bigint;
  feeAmount: bigint;
  txId: string;
  confirmedAtMs: number;
}

/**
 * A time-based recurring order as the venue keeps it. `pending` until the user's opening transaction lands, `active`
 * while it has slices to fill, `closed` once filled out, cancelled or expired. Amounts are base units.
 */
export interface RecurringOrderState {
  key: PublicKey;
  user: PublicKey;
  input: SimToken;
  output: SimToken;
  /** The order's input token account (the escrow), its authority the order account. */
  escrow: PublicKey;
  /** The order account's own output token account (`outAta`); fills pay the user directly, so it stays empty. */
  outAccount: PublicKey;
  idx: bigint;
  bump: number;
  status: 'pending' | 'active' | 'closed';
  numberOfOrders: number;
  inDeposited: bigint;
  inWithdrawn: bigint;
  inUsed: bigint;
  outReceived: bigint;
  outWithdrawn: bigint;
  inAmountPerCycle: bigint;
  cycleSeconds: number;
  /** Least and most output per cycle (0: no bound), derived from the order's minPrice and maxPrice. */
  minOutAmount: bigint;
  maxOutAmount: bigint;
  /** When the next slice is due, simulated ms. */
  nextCycleAtMs: number;
  createdAtMs: number;
  updatedAtMs: number;
  openTx: string;
  closeTx: string;
  userClosed: boolean;
  /** Newest first. */
  trades: RecurringTrade[];
  /** A cancel handed out and not yet landed or expired: slices wait, so the refund it carries stays exact. */
  pendingCancel?: { ticketId: string; expiresAtMs: number } | undefined;
}

/** What an order's escrow must hold: the deposit less what was used and withdrawn. */
export function remainingOf(o: RecurringOrderState): bigint {
  return o.inDeposited - o.inUsed - o.inWithdrawn;
}

/** The recurring orders of the venue, by order account and by user. */
export class RecurringBook {
  private readonly orders = new Map<string, RecurringOrderState>();
  private readonly byUser = new Map<string, string[]>();
  /** Open orders, kept apart so the keeper's frequent runs do not walk every order ever placed. */
  private readonly open = new Set<RecurringOrderState>();

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {}

  add(o: RecurringOrderState): void {
    const key = o.key.toBase58();
    this.orders.set(key, o);
    const user = o.user.toBase58();
    this.byUser.set(user, [...(this.byUser.get(user) ?? []), key]);
  }

  get(key: string): RecurringOrderState | undefined {
    return this.orders.get(key);
  }

  has(key: PublicKey): boolean {
    return this.orders.has(key.toBase58());
  }

  /** Forgets an order that never opened (its opening transaction can no longer land). */
  drop(o: RecurringOrderState): void {
    const key = o.key.toBase58();
    this.orders.delete(key);
    const user = o.user.toBase58();
    this.byUser.set(user, (this.byUser.get(user) ?? []).filter((k) => k !== key));
    this.escrows.closeState(o.key);
    this.escrows.forget(o.escrow);
  }

  /** A user's orders that have opened, newest first. */
  ofUser(user: string): RecurringOrderState[] {
    return (this.byUser.get(user) ?? [])
      .map((k) => this.orders.get(k)!)
      .filter((o) => o.status !== 'pending')
      .sort((a, b) => b.createdAtMs - a.createdAtMs);
  }

  /** Orders with slices left. */
  active(): RecurringOrderState[] {
    return [...this.open];
  }

  /** Opens an order whose opening transaction landed (signature `openTx`), as of `nowMs`. */
  activate(o: RecurringOrderState, openTx: string, nowMs: number): void {
    o.status = 'active';
    o.openTx = openTx;
    o.createdAtMs = o.updatedAtMs = nowMs;
    o.nextCycleAtMs = Math.max(o.nextCycleAtMs, nowMs);
    this.open.add(o);
    this.writeAccount(o);
  }

  /** Writes the order account as the program keeps it (also after each fill). */
  writeAccount(o: RecurringOrderState): void {
    const data = encodeDcaAccount({
      user: o.user,
      inputMint: new PublicKey(o.input.mint),
      outputMint: new PublicKey(o.output.mint),
      idx: o.idx,
      nextCycleAt: BigInt(Math.floor(o.nextCycleAtMs / 1000)),
      inDeposited: o.inDeposited,
      inWithdrawn: o.inWithdrawn,
      outWithdrawn: o.outWithdrawn,
      inUsed: o.inUsed,
      outReceived: o.outReceived,
      inAmountPerCycle: o.inAmountPerCycle,
      cycleFrequency: BigInt(o.cycleSeconds),
      nextCycleAmountLeft: remainingOf(o) < o.inAmountPerCycle ? remainingOf(o) : o.inAmountPerCycle,
      inAccount: o.escrow,
      outAccount: o.outAccount,
      minOutAmount: o.minOutAmount,
      maxOutAmount: o.maxOutAmount,
      keeperInBalanceBeforeBorrow: 0n,
      dcaOutBalanceBeforeSwap: 0n,
      createdAt: BigInt(Math.floor(o.createdAtMs / 1000)),
      bump: o.bump,
    });
    this.escrows.writeState(RECURRING_PROGRAM, o.key, data);
  }

  /**
   * Ends an order: the program closes its account (the rent goes back), its escrow is empty and no longer listed.
   * `userClosed` says whether the user cancelled it.
   */
  close(o: RecurringOrderState, closeTx: string, userClosed: boolean): void {
    o.status = 'closed';
    this.open.delete(o);
    o.closeTx = closeTx;
    o.userClosed = userClosed;
    o.pendingCancel = undefined;
    o.updatedAtMs = this.venue.clock.now();
    this.escrows.closeState(o.key);
    this.escrows.forget(o.escrow);
  }
}
