import type { LedgerRecord } from '../chain/chain.js';
import type { ProductKeeper, Venue } from '../venue.js';
import type { EscrowBook } from './escrow.js';
import { affordable, CONTRACT_STEP, FILL_DELAY_MS, fillFee, MICRO, ORDER_TTL_MS, walk, walkCost, type HistoryRow, type OrderEvent, type SimPosition, type SimPredictionOrder } from './predictionBook.js';
import type { MarketBook, SimMarket } from './predictionMarkets.js';
import type { PredictionTx } from './predictionTx.js';
import { PREDICTION_PROGRAM } from '../../jupiter/programs/prediction.js';
import { encodeMarketResultAccount } from '../../jupiter/programs/predictionAccounts.js';
import { marketResultAddress } from './predictionSeeds.js';

/**
 * What the keeper works on of its desk (PredictionDesk, which creates the keeper and hands itself in): named here so
 * that the keeper does not import the desk's module, which imports this one.
 */
export interface KeeperDesk {
  readonly venue: Venue;
  readonly escrows: EscrowBook;
  readonly markets: MarketBook;
  readonly tx: PredictionTx;
  /** Every order by account, ended ones too. */
  readonly orders: Map<string, SimPredictionOrder>;
  /** Orders pending or open. */
  readonly live: Set<SimPredictionOrder>;
  readonly positions: Map<string, SimPosition>;
  /** Positions by market. */
  readonly positionsOf: Map<SimMarket, Set<SimPosition>>;
  /** Newest last. */
  readonly history: HistoryRow[];
  /** Writes an order's account to the chain as it is now. */
  writeOrder(o: SimPredictionOrder): void;
  /** Writes a position's account to the chain as it is now. */
  writePosition(p: SimPosition): void;
}

/** Winnings nobody claimed are claimed for their owner this long after the market settles (jupiter-api.md §8: 24 h). */
export const AUTO_CLAIM_MS = 24 * 3_600_000;

/**
 * The prediction product's keeper network: it works each open order against its market's book (a buy takes the
 * asks up to its limit with what its deposit pays for, fees included; a sell hits the bids down to its floor),
 * closes orders it cannot fill in time and those of markets that closed, refunding what their escrow holds, settles
 * markets as they resolve (a losing position is closed, its dollars back to the market maker), and claims winnings
 * left unclaimed for a day. Every move is a keeper transaction on the ledger.
 */
export class PredictionKeeper implements ProductKeeper {
  readonly product = 'prediction';
  private nextHistoryId = 1;
  /** Markets that resolved and are not yet settled. */
  private readonly unsettled = new Set<SimMarket>();
  /** Winning positions of settled markets not yet claimed: the auto-claim's work. */
  private readonly unclaimed = new Set<SimPosition>();

  constructor(private readonly desk: KeeperDesk) {}

  /** Does what is due; one failing action (thrown once all were tried) does not hold up the others. */
  tick(now: number): number {
    let done = 0;
    let failure: Error | undefined;
    const attempt = (act: () => number) => {
      try {
        done += act();
      } catch (err) {
        failure ??= err instanceof Error ? err : new Error(String(err));
      }
    };
    attempt(() => this.resolve(this.desk.markets.advance()));
    for (const o of [...this.desk.live]) {
      if (o.phase === 'pending' && now > o.pendingUntilMs) this.abandon(o);
      if (o.phase !== 'open' || o.holdUntilMs > now) continue;
      if (now >= o.expiresAtMs) attempt(() => this.expire(o));
      else if (now >= o.fillFromMs) attempt(() => (this.fill(o) ? 1 : 0));
    }
    for (const p of [...this.unclaimed]) {
      if (!this.claimable(p)) this.unclaimed.delete(p);
      else if (now >= p.market.latent.resolvedAtMs! + AUTO_CLAIM_MS && p.claimHoldUntilMs <= now) attempt(() => this.autoClaim(p));
    }
    if (failure) throw failure;
    return done;
  }

  /** Works open orders (one, or all) now, without waiting for the network's latency; limits still hold. */
  fillNow(order: string | undefined, now: number): number {
    return this.matching(order, now).filter((o) => this.fill(o)).length;
  }

  /** Closes open orders (one, or all) now, refunding what their escrow holds. */
  expireNow(order: string | undefined, now: number): number {
    return this.matching(order, now).reduce((n, o) => n + this.expire(o), 0);
  }

  /**
   * Settles markets that resolved: a result account is written, their open orders close, losing positions close.
   * A market whose settling failed part-way is kept and tried again on the next tick.
   */
  resolve(markets: SimMarket[]): number {
    for (const m of markets) this.unsettled.add(m);
    let done = 0;
    let failure: Error | undefined;
    for (const m of [...this.unsettled]) {
      try {
        done += this.settleMarket(m);
        this.unsettled.delete(m);
      } catch (err) {
        failure ??= err instanceof Error ? err : new Error(String(err));
      }
    }
    if (failure !== undefined) throw failure;
    return done;
  }

  /** An order's transaction landed: its account opens and the network starts working it after its latency. */
  openOrder(o: SimPredictionOrder, signature: string, slot: bigint): void {
    const now = this.desk.venue.clock.now();
    const p = o.position;
    o.phase = 'open';
    o.createdAtMs = o.updatedAtMs = now;
    o.fillFromMs = now + FILL_DELAY_MS;
    o.expiresAtMs = now + ORDER_TTL_MS;
    p.openOrders += 1;
    if (!o.isBuy) p.reserved += o.contracts;
    if (!p.opened) p.openedAtMs = now;
    p.opened = true;
    p.updatedAtMs = now;
    this.desk.writeOrder(o);
    this.desk.writePosition(p);
    this.event(o, 'order_created', 'created', signature);
    this.row(o.position, o, 'order_created', signature, slot, { contracts: o.contracts, depositAmountUsd: o.isBuy ? o.deposit : null, transferAmountToken: o.isBuy ? o.deposit : null });
  }

  /**
   * Ends an open order: `closed` by its owner's transaction, otherwise by the keeper (`filled` or, with nothing
   * filled, `failed`). Its account and escrow close; a sell's unsold contracts are free again.
   */
  endOrder(o: SimPredictionOrder, phase: 'filled' | 'closed' | 'failed', signature: string, slot: bigint): void {
    const now = this.desk.venue.clock.now();
    const p = o.position;
    o.phase = phase;
    o.updatedAtMs = now;
    o.holdUntilMs = 0;
    this.desk.live.delete(o);
    const refund = o.remaining;
    o.remaining = 0n;
    if (!o.isBuy) p.reserved -= o.contracts - o.filledContracts;
    p.openOrders -= 1;
    p.updatedAtMs = now;
    this.desk.escrows.closeState(o.key);
    if (o.escrow) {
      this.desk.escrows.closeState(o.escrow);
      this.desk.escrows.forget(o.escrow);
    }
    this.desk.writePosition(p);
    const status = phase === 'filled' || o.filledContracts > 0n ? 'filled' : 'failed';
    const eventType = phase === 'closed' ? 'order_closed' : phase === 'failed' ? 'order_failed' : 'order_filled';
    if (phase !== 'filled') {
      this.event(o, eventType, status, signature);
      this.row(p, o, eventType, signature, slot, { contracts: o.contracts, filledContracts: o.filledContracts, transferAmountToken: o.isBuy ? refund : null });
    }
  }

  /** A claim landed (the owner's, or the keeper's auto-claim): $1 a contract paid, the position done. */
  settleClaim(p: SimPosition, signature: string, slot: bigint): void {
    const now = this.desk.venue.clock.now();
    this.unclaimed.delete(p);
    p.claimed = true;
    p.claimedUsd = p.contracts;
    const realized = p.contracts - p.totalCostUsd - p.feesPaidUsd;
    p.realizedPnlUsd += realized;
    p.updatedAtMs = now;
    this.desk.writePosition(p);
    this.row(p, null, 'payout_claimed', signature, slot, { contractsSettled: p.contracts, payoutAmountUsd: p.contracts, transferAmountToken: p.contracts, realizedPnl: realized });
  }

  private settleMarket(m: SimMarket): number {
    let done = 0;
    const outcome = m.latent.result === 'yes' ? 'yes' : 'no';
    const now = this.desk.venue.clock.now();
    const positions = this.desk.positionsOf.get(m);
    // The result account the claims read; a market nobody holds a position in needs none.
    if (positions) {
      const { address, bump } = marketResultAddress(m.marketId);
      this.desk.escrows.writeState(PREDICTION_PROGRAM, address, encodeMarketResultAccount({ marketId: m.marketId, outcome, settlementTime: BigInt(Math.floor(now / 1000)), claimsEnabled: true, createdAt: BigInt(Math.floor(now / 1000)), bump }));
    }
    for (const o of [...this.desk.live]) if (o.position.market === m && o.phase === 'open') done += this.expire(o);
    for (const p of positions ?? []) {
      if (!p.opened || p.lost || p.claimed || p.contracts === 0n) continue;
      if ((outcome === 'yes') === p.isYes) this.unclaimed.add(p);
      else done += this.closeLost(p);
    }
    return done;
  }

  private matching(order: string | undefined, now: number): SimPredictionOrder[] {
    return [...this.desk.live].filter((o) => o.phase === 'open' && o.holdUntilMs <= now && (order === undefined || o.address === order));
  }

  private claimable(p: SimPosition): boolean {
    return p.opened && !p.claimed && !p.lost && p.contracts > 0n && p.market.status === 'closed' && (p.market.latent.result === 'yes') === p.isYes;
  }

  /** One fill of an order from the book; false when nothing could fill now. */
  private fill(o: SimPredictionOrder): boolean {
    const { desk } = this;
    const p = o.position;
    const m = p.market;
    if (!desk.markets.tradable(m)) return false;
    const levels = desk.markets.levels(m, p.isYes, o.isBuy).filter((l) => (o.isBuy ? l.price <= o.limit : l.price >= o.limit));
    let parts: Array<{ level: (typeof levels)[number]; price: bigint; contracts: bigint }>;
    if (o.isBuy) parts = affordable(levels, o.remaining).parts;
    else {
      const depth = levels.reduce((s, l) => s + (l.contracts / CONTRACT_STEP) * CONTRACT_STEP, 0n);
      const want = o.contracts - o.filledContracts;
      parts = walk(levels, want < depth ? want : depth) ?? [];
    }
    const contracts = parts.reduce((s, x) => s + x.contracts, 0n);
    const usd = walkCost(parts);
    const fee = fillFee(parts);
    if (contracts === 0n || (!o.isBuy && fee >= usd)) return false;
    const left = o.isBuy ? o.remaining - usd - fee : 0n;
    const last = o.isBuy ? left < unitCost(o.limit) : o.filledContracts + contracts === o.contracts;
    const refund = o.isBuy && last ? left : 0n;
    const mint = p.mint.mint;
    const record: LedgerRecord = o.isBuy
      ? { kind: 'prediction-fill', wallet: o.owner.toBase58(), requestId: null, inputMint: mint, inputAmount: usd + fee, outputMint: refund > 0n ? mint : null, outputAmount: refund > 0n ? refund : null }
      : { kind: 'prediction-fill', wallet: o.owner.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: mint, outputAmount: usd - fee };
    const signature = desk.escrows.submitKeeper(desk.tx.fill(o, { contracts, usd, fee, refund }), record, [desk.venue.vault]);
    const slot = desk.venue.clock.slot();
    for (const x of parts) desk.markets.take(m, p.isYes, o.isBuy, x.level, x.contracts);
    const now = desk.venue.clock.now();
    o.filledContracts += contracts;
    o.costUsd += usd;
    o.feeUsd += fee;
    o.remaining = left;
    o.filledAtMs = now;
    o.updatedAtMs = now;
    let realized: bigint | null = null;
    if (o.isBuy) {
      // The entry fee stays with the contracts held (the program's Position.fees_paid_usd) until they are sold or settled.
      p.contracts += contracts;
      p.totalCostUsd += usd;
      p.feesPaidUsd += fee;
    } else {
      // The sold contracts take their share of the cost basis and of the entry fees into the realized P&L.
      const basis = (p.totalCostUsd * contracts) / p.contracts;
      const entryFees = (p.feesPaidUsd * contracts) / p.contracts;
      realized = usd - fee - basis - entryFees;
      p.realizedPnlUsd += realized;
      p.totalCostUsd -= basis;
      p.feesPaidUsd -= entryFees;
      p.contracts -= contracts;
      p.reserved -= contracts;
    }
    this.event(o, 'order_filled', last ? 'filled' : 'partiallyfilled', signature);
    this.row(p, o, 'order_filled', signature, slot, {
      contracts: o.contracts, filledContracts: contracts, avgFillPriceUsd: (usd * MICRO) / contracts, totalCostUsd: o.isBuy ? usd : null, feeUsd: fee,
      grossProceedsUsd: o.isBuy ? null : usd, netProceedsUsd: o.isBuy ? null : usd - fee, transferAmountToken: o.isBuy ? usd + fee : usd - fee, realizedPnl: realized,
    });
    if (last) {
      this.endOrder(o, 'filled', signature, slot);
    } else {
      desk.writeOrder(o);
      desk.writePosition(p);
    }
    return true;
  }

  /** The keeper closes an order it will not fill (too long, market closed, or told to), refunding its escrow. */
  private expire(o: SimPredictionOrder): number {
    const { desk } = this;
    const mint = o.position.mint.mint;
    const record: LedgerRecord = { kind: 'prediction-close', wallet: o.owner.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: o.escrow ? mint : null, outputAmount: o.escrow ? o.remaining : null };
    const signature = desk.escrows.submitKeeper(desk.tx.close(o, false), record);
    this.endOrder(o, o.filledContracts > 0n ? 'filled' : 'failed', signature, desk.venue.clock.slot());
    return 1;
  }

  /** A position on the losing side: closed (its account too), its contracts' dollars back to the market maker. */
  private closeLost(p: SimPosition): number {
    const { desk } = this;
    const record: LedgerRecord = { kind: 'prediction-close', wallet: p.owner.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: p.mint.mint, outputAmount: 0n };
    const signature = desk.escrows.submitKeeper(desk.tx.closeLost(p), record);
    const realized = -(p.totalCostUsd + p.feesPaidUsd);
    p.lost = true;
    p.realizedPnlUsd += realized;
    p.updatedAtMs = desk.venue.clock.now();
    desk.escrows.closeState(p.key);
    this.row(p, null, 'position_lost', signature, desk.venue.clock.slot(), { contractsSettled: p.contracts, payoutAmountUsd: 0n, realizedPnl: realized });
    return 1;
  }

  private autoClaim(p: SimPosition): number {
    const { desk } = this;
    const record: LedgerRecord = { kind: 'prediction-claim', wallet: p.owner.toBase58(), requestId: null, inputMint: null, inputAmount: null, outputMint: p.mint.mint, outputAmount: p.contracts };
    const signature = desk.escrows.submitKeeper(desk.tx.claim(p, false), record);
    this.settleClaim(p, signature, desk.venue.clock.slot());
    return 1;
  }

  /** An order whose transaction never landed (its blockhash expired): its accounts go. */
  private abandon(o: SimPredictionOrder): void {
    const { desk } = this;
    if (o.escrow && desk.escrows.balance(o.escrow) > 0n) return;
    o.phase = 'failed';
    desk.escrows.closeState(o.key);
    if (o.escrow) {
      desk.escrows.closeState(o.escrow);
      desk.escrows.forget(o.escrow);
    }
    desk.orders.delete(o.address);
    desk.live.delete(o);
    const p = o.position;
    if (!p.opened && ![...desk.live].some((x) => x.position === p)) {
      desk.positions.delete(p.address);
      desk.positionsOf.get(p.market)?.delete(p);
    }
  }

  private event(o: SimPredictionOrder, eventType: OrderEvent['eventType'], status: OrderEvent['status'], signature: string | null): void {
    o.events.push({ eventType, status, atMs: this.desk.venue.clock.now(), signature });
  }

  private row(p: SimPosition, o: SimPredictionOrder | null, eventType: HistoryRow['eventType'], signature: string, slot: bigint, fields: Partial<HistoryRow>): void {
    this.desk.history.push({
      id: this.nextHistoryId++, eventType, signature, slot, atMs: this.desk.venue.clock.now(), order: o, position: p, isBuy: o?.isBuy ?? false,
      contracts: null, filledContracts: null, contractsSettled: null, avgFillPriceUsd: null, depositAmountUsd: null, totalCostUsd: null, feeUsd: null,
      grossProceedsUsd: null, netProceedsUsd: null, transferAmountToken: null, realizedPnl: null, payoutAmountUsd: null, ...fields,
    });
  }
}

/** The most a 0.01-contract fill can cost under a limit, fee included: a buy left with less is done. */
function unitCost(limit: bigint): bigint {
  const part = [{ price: limit, contracts: CONTRACT_STEP }];
  return walkCost(part) + fillFee(part);
}
