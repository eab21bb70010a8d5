import type { ProductKeeper, Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import { closeOrder, writeOrderAccount, type SimTriggerOrder, type TriggerBook } from './triggerOrders.js';
import { cancelInstructions, fillInstructions, type FillPlan } from './triggerTx.js';

/** Largest single fill, in USD of the input: the keeper's per-fill cap (larger orders fill in several trades). */
export const MAX_FILL_USD = 1_000;
/** Simulated ms between two fills of one order: a keeper serves each order at most this often. */
export const FILL_INTERVAL_MS = 5_000;

/** One fill, with the order's accounting besides what moves. */
interface Fill extends FillPlan {
  /** What the fill takes off the order's remaining taking amount (its proportional share). */
  share: bigint;
  /** Jupiter's fee, in the output mint (reported in the trade; the taker pays it). */
  fee: bigint;
}

/**
 * The Trigger product's keeper network: fills an open order when the market (the simulator's router, with its
 * price impact) pays at least the order's proportional taking amount plus the fees for a slice of it, capped per
 * fill and by what the vault holds; cancels orders past their expiry and refunds what their escrow holds; drops
 * orders whose creation never landed. Every move is a real keeper transaction on the ledger.
 */
export class TriggerKeeper implements ProductKeeper {
  readonly product = 'trigger';

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
    private readonly book: TriggerBook,
  ) {}

  /** Does what is due at `now` (sim ms): expiries, then fills whose price was crossed. */
  tick(now: number): number {
    for (const o of this.book.inStatus('Pending')) if (now > o.pendingUntilMs) this.abandon(o);
    return this.each(this.book.inStatus('Open'), (o) => {
      if (o.holdUntilMs > now) return false;
      if (o.expiredAt !== null && now >= o.expiredAt * 1000) return this.expire(o, now);
      if (now - o.lastFillMs < FILL_INTERVAL_MS) return false;
      const fill = this.marketFill(o);
      return fill !== undefined && this.fill(o, fill, now);
    });
  }

  /**
   * Fills open orders (one by order account, or all) now, whole and at their limit whatever the market: the vault
   * pays exactly the remaining taking amount. Orders whose cancel transaction may still land are left alone.
   */
  fillNow(order: string | undefined, now: number): number {
    return this.each(this.matching(order, now), (o) => this.fill(o, this.fillAt(o, o.remainingMaking, o.remainingTaking), now));
  }

  /** Expires open orders (one by order account, or all) now, refunding their escrow to the maker. */
  expireNow(order: string | undefined, now: number): number {
    return this.each(this.matching(order, now), (o) => this.expire(o, now));
  }

  private matching(order: string | undefined, now: number): SimTriggerOrder[] {
    return this.book.inStatus('Open').filter((o) => (order === undefined || o.address === order) && o.holdUntilMs <= now);
  }

  /** Runs `act` on each order; one order's failure does not stop the others, and is thrown once all were tried. */
  private each(orders: SimTriggerOrder[], act: (o: SimTriggerOrder) => boolean): number {
    let done = 0;
    let failure: Error | undefined;
    for (const o of orders) {
      try {
        if (act(o)) done += 1;
      } catch (err) {
        failure ??= err instanceof Error ? err : new Error(String(err));
      }
    }
    if (failure) throw failure;
    return done;
  }

  /**
   * The largest slice (up to the per-fill cap) the market takes at the order's limit: its output must cover the
   * slice's share of the remaining taking amount (less the order's slippage) and the fees. Undefined when the
   * price has not crossed the limit.
   */
  private marketFill(o: SimTriggerOrder): Fill | undefined {
    const { prices, router } = this.venue;
    const pIn = prices.usd(o.input.mint);
    const pOut = prices.usd(o.output.mint);
    if (pIn === undefined || pOut === undefined) return undefined;
    const cap = BigInt(Math.max(1, Math.floor((MAX_FILL_USD / pIn) * 10 ** o.input.decimals)));
    // The market's output must cover the share less the order's slippage, plus the fees, as a rate (no rounding
    // lets a tiny slice through a limit the order as a whole has not reached).
    const rateBps = BigInt(10_000 - o.slippageBps + o.feeBps + (o.integrator?.bps ?? 0));
    const test = (making: bigint, spotChecked: boolean): Fill | 'spot' | 'market' => {
      const share = shareOf(o, making);
      const need = ceilDiv(share * rateBps, 10_000n);
      // At the spot price first: when that does not reach the limit, no slice will (the curve only loses).
      if (!spotChecked && (Number(making) / 10 ** o.input.decimals) * (pIn / pOut) * 10 ** o.output.decimals < Number(need)) return 'spot';
      let out: bigint;
      try {
        out = router.quoteExactIn(o.input.mint, o.output.mint, making).outAmount;
      } catch {
        return 'market';
      }
      if (out < need) return 'market';
      const base = this.fillAt(o, making, share);
      const paid = min(share, out - base.fee - base.integratorFee);
      return this.venue.balance(this.venue.vault.publicKey, o.output.mint) < paid + base.integratorFee ? 'market' : { ...base, paid };
    };
    const whole = min(o.remainingMaking, cap);
    const first = test(whole, false);
    if (typeof first === 'object') return first;
    if (first === 'spot') return undefined;
    // The whole slice moves the pool past the limit (price impact): the largest smaller slice that still clears.
    let lo = 0n;
    let hi = whole;
    let best: Fill | undefined;
    for (let i = 0; i < 40 && hi - lo > 1n; i += 1) {
      const mid = (lo + hi) / 2n;
      const f = test(mid, true);
      if (typeof f === 'object') {
        best = f;
        lo = mid;
      } else hi = mid;
    }
    return best;
  }

  /** A fill of `making` whose share is `share`, the maker paid exactly that share. */
  private fillAt(o: SimTriggerOrder, making: bigint, share: bigint): Fill {
    const fee = (share * BigInt(o.feeBps)) / 10_000n;
    const integratorFee = o.integrator ? (share * BigInt(o.integrator.bps)) / 10_000n : 0n;
    return { making, share, paid: share, fee, integratorFee };
  }

  private fill(o: SimTriggerOrder, f: Fill, now: number): boolean {
    const { venue, escrows } = this;
    const record = { kind: 'trigger-fill', wallet: o.maker.toBase58(), requestId: null, inputMint: o.input.mint, inputAmount: f.making, outputMint: o.output.mint, outputAmount: f.paid };
    const signature = escrows.submitKeeper(fillInstructions(venue, escrows, o, f), record, [venue.vault]);
    o.remainingMaking -= f.making;
    o.remainingTaking = o.remainingMaking === 0n ? 0n : o.remainingTaking - min(f.share, o.remainingTaking);
    o.trades.unshift({ signature, keeper: venue.keeper.publicKey.toBase58(), inputAmount: f.making, outputAmount: f.paid, feeAmount: f.fee, atMs: now });
    o.lastFillMs = now;
    o.updatedAtMs = now;
    if (o.remainingMaking === 0n) closeOrder(escrows, o, 'Completed', signature, now);
    else writeOrderAccount(escrows, o);
    return true;
  }

  /** Cancels an order past its expiry as the program lets a keeper do: everything still escrowed goes back. */
  private expire(o: SimTriggerOrder, now: number): boolean {
    const { venue, escrows } = this;
    const record = { kind: 'trigger-cancel', wallet: o.maker.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: o.input.mint, outputAmount: o.remainingMaking };
    const signature = escrows.submitKeeper(cancelInstructions(venue, escrows, o, venue.keeper.publicKey), record);
    closeOrder(escrows, o, 'Cancelled', signature, now);
    return true;
  }

  /** An order whose creation never landed (its blockhash expired): its accounts go, unless funds reached it. */
  private abandon(o: SimTriggerOrder): void {
    if (this.escrows.balance(o.escrow) > 0n) return;
    this.escrows.closeState(o.key);
    this.escrows.closeState(o.escrow);
    this.escrows.forget(o.escrow);
    this.book.drop(o);
  }
}

/** The proportional share of the remaining taking amount for `making` of the remaining input, rounded for the maker. */
function shareOf(o: SimTriggerOrder, making: bigint): bigint {
  if (making >= o.remainingMaking) return o.remainingTaking;
  return ceilDiv(making * o.remainingTaking, o.remainingMaking);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
