import { PublicKey } from '@solana/web3.js';
import type { EscrowHolding, VenueAmount, VenueFill, VenueOrder, VenueOrderStatus, VenuePort, VenuePosition, VenueProduct } from '../engine/keeperPorts.js';
import { NotFoundError } from '../jupiter/errors.js';
import type { JupiterClient } from '../jupiter/client.js';
import type { PredictionHistoryEvent } from '../jupiter/prediction/getPredictionHistory.js';
import type { PredictionOrder } from '../jupiter/prediction/getPredictionOrder.js';
import type { PredictionOrderStatus } from '../jupiter/prediction/getPredictionOrderStatus.js';
import type { RecurringOrder } from '../jupiter/recurring/getRecurringOrders.js';
import type { OrderTrade, TriggerOrder } from '../jupiter/trigger/getTriggerOrders.js';
import { knownByMint } from '../lib/mints.js';
import type { SolanaRpc } from '../solana/rpc.js';

const TOKEN_PROGRAMS = [new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')];
/** Pages of open orders read at most (10 trigger or recurring orders a page). */
const MAX_OPEN_PAGES = 20;
/** Pages of order history searched at most for the orders the ledger tracks (newest first). */
const MAX_HISTORY_PAGES = 10;
/** Prediction list pages: rows a page, pages at most. */
const PREDICTION_PAGE = 20;
const MAX_PREDICTION_PAGES = 50;

/**
 * The venue as the keeper jobs read it for one wallet, through the project's client: open and ended orders of
 * every product in one shape with one status vocabulary, prediction positions, and the token accounts an order
 * account owns (its escrows), read from the chain.
 */
export class VenueReader implements VenuePort {
  constructor(
    private readonly jup: JupiterClient,
    private readonly rpc: SolanaRpc,
    private readonly owner: string,
  ) {}

  async openOrders(products: readonly VenueProduct[]): Promise<VenueOrder[]> {
    const lists = await Promise.all(products.map((p) => (p === 'trigger' ? this.triggerPages('active', () => false, Infinity) : p === 'recurring' ? this.recurringPages('active', () => false, Infinity) : this.predictionOrders())));
    return lists.flat();
  }

  async endedOrders(product: 'trigger' | 'recurring', wanted: (o: VenueOrder) => boolean, count: number): Promise<VenueOrder[]> {
    return product === 'trigger' ? this.triggerPages('history', wanted, count) : this.recurringPages('history', wanted, count);
  }

  async predictionOrder(order: string): Promise<VenueOrder | undefined> {
    let s: PredictionOrderStatus;
    try {
      s = await this.jup.prediction.getPredictionOrderStatus({ orderPubkey: order });
    } catch (err) {
      // "no order history found": the venue has not indexed it yet.
      if (err instanceof NotFoundError) return undefined;
      throw err;
    }
    const status = endedPredictionStatus(s);
    return status ? { product: 'prediction', order, status, openTx: openSignature(s), position: null, createdAt: null } : undefined;
  }

  async predictionFills(orders: ReadonlySet<string>, since: number): Promise<Map<string, VenueFill[]>> {
    const out = new Map<string, VenueFill[]>();
    if (orders.size === 0) return out;
    // The wallet's history, newest first: read until it reaches back before `since`.
    for (let page = 0, start = 0; page < MAX_PREDICTION_PAGES; page += 1, start += PREDICTION_PAGE) {
      const r = await this.jup.prediction.getPredictionHistory({ ownerPubkey: this.owner, start, end: start + PREDICTION_PAGE });
      for (const e of r.data) {
        const fill = e.orderPubkey && orders.has(e.orderPubkey) ? predictionFill(e) : undefined;
        if (fill) out.set(e.orderPubkey!, [fill, ...(out.get(e.orderPubkey!) ?? [])]);
      }
      const oldest = r.data.at(-1)?.timestamp;
      if (!r.pagination.hasNext || r.data.length === 0 || (oldest !== undefined && oldest * 1000 < since)) break;
    }
    return out;
  }

  async positions(): Promise<VenuePosition[]> {
    const out: VenuePosition[] = [];
    for (let page = 0, start = 0; page < MAX_PREDICTION_PAGES; page += 1, start += PREDICTION_PAGE) {
      const r = await this.jup.prediction.getPredictionPositions({ ownerPubkey: this.owner, start, end: start + PREDICTION_PAGE });
      for (const p of r.data) {
        out.push({ position: p.pubkey, marketId: p.marketId, isYes: p.isYes, contractsMicro: p.contractsMicro ?? p.contracts * 1_000_000n, claimable: p.claimable, claimed: p.claimed, payoutMicroUsd: p.payoutUsd });
      }
      if (!r.pagination.hasNext || r.data.length === 0) break;
    }
    return out;
  }

  async escrowHoldings(authority: string): Promise<EscrowHolding[]> {
    const owner = new PublicKey(authority);
    const lists = await Promise.all(TOKEN_PROGRAMS.map((programId) => this.rpc.connection.getParsedTokenAccountsByOwner(owner, { programId })));
    return lists.flatMap((l) =>
      l.value.flatMap(({ pubkey, account }) => {
        const info = parsedAmount(account.data);
        return info ? [{ account: pubkey.toBase58(), mint: info.mint, amount: info.amount }] : [];
      }),
    );
  }

  private async triggerPages(orderStatus: 'active' | 'history', wanted: (o: VenueOrder) => boolean, count: number): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    const maxPages = orderStatus === 'active' ? MAX_OPEN_PAGES : MAX_HISTORY_PAGES;
    for (let page = 1; page <= maxPages; page += 1) {
      const r = await this.jup.trigger.getOrders({ user: this.owner, orderStatus, page });
      for (const o of r.orders) {
        const v = triggerOrder(o);
        if (v && (orderStatus === 'active' || wanted(v))) out.push(v);
      }
      if (!r.hasMore || out.length >= count) break;
    }
    return out;
  }

  private async recurringPages(orderStatus: 'active' | 'history', wanted: (o: VenueOrder) => boolean, count: number): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    const maxPages = orderStatus === 'active' ? MAX_OPEN_PAGES : MAX_HISTORY_PAGES;
    for (let page = 1; page <= maxPages; page += 1) {
      const r = await this.jup.recurring.getOrders({ user: this.owner, orderStatus, recurringType: 'time', page });
      for (const o of r.orders) {
        const v = recurringOrder(o, orderStatus === 'active');
        if (v && (orderStatus === 'active' || wanted(v))) out.push(v);
      }
      if (!r.hasMore || out.length >= count) break;
    }
    return out;
  }

  private async predictionOrders(): Promise<VenueOrder[]> {
    const out: VenueOrder[] = [];
    for (let page = 0, start = 0; page < MAX_PREDICTION_PAGES; page += 1, start += PREDICTION_PAGE) {
      const r = await this.jup.prediction.getPredictionOrders({ ownerPubkey: this.owner, start, end: start + PREDICTION_PAGE });
      out.push(...r.data.map(predictionOpenOrder));
      if (!r.pagination.hasNext || r.data.length === 0) break;
    }
    return out;
  }
}

/** A trigger order in the keeper's vocabulary; undefined for a status the service has not documented. */
export function triggerOrder(o: TriggerOrder): VenueOrder | undefined {
  let status: VenueOrderStatus | undefined;
  if (o.status === 'Open') status = o.trades.length > 0 ? 'partially-filled' : 'open';
  else if (o.status === 'Completed') status = 'filled';
  else if (o.status === 'Expired') status = 'expired';
  else if (o.status === 'Cancelled') {
    // The venue's keeper closes an order past its expiry and reports it Cancelled: that is an expiry.
    const expiry = timeMs(o.expiredAt);
    const closed = timeMs(o.updatedAt);
    status = expiry !== null && closed !== null && expiry <= closed ? 'expired' : 'cancelled';
  }
  if (!status) return undefined;
  return { product: 'trigger', order: o.orderKey, status, openTx: o.openTx || null, position: null, createdAt: timeMs(o.createdAt), fills: tradeFills('trigger', o.trades) };
}

/** A time-based recurring order in the keeper's vocabulary: closed by its owner is cancelled, run out is filled. */
export function recurringOrder(o: RecurringOrder, active: boolean): VenueOrder | undefined {
  if (o.recurringType !== 'time') return undefined;
  const status: VenueOrderStatus = active ? (o.rawInUsed > 0n ? 'partially-filled' : 'open') : o.userClosed ? 'cancelled' : 'filled';
  return { product: 'recurring', order: o.orderKey, status, openTx: o.openTx || null, position: null, createdAt: timeMs(o.createdAt), fills: tradeFills('recurring', o.trades) };
}

/**
 * The fills among an order's trades, oldest first (the venue lists them newest first): rows of action "Fill" with
 * both mints (a deposit row of a price-based recurring order has none).
 */
export function tradeFills(product: 'trigger' | 'recurring', trades: ReadonlyArray<Omit<OrderTrade, 'inputMint' | 'outputMint'> & { inputMint: string; outputMint: string }>): VenueFill[] {
  const fills: VenueFill[] = [];
  for (const t of trades) {
    if (t.action !== 'Fill' || t.inputMint === '' || t.outputMint === '' || t.txId === '') continue;
    const fee = t.feeMint && t.rawFeeAmount !== undefined && t.rawFeeAmount > 0n ? venueAmount(t.feeMint, t.rawFeeAmount, t.feeAmount) : null;
    fills.push({ product, signature: t.txId, at: timeMs(t.confirmedAt), paid: venueAmount(t.inputMint, t.rawInputAmount, t.inputAmount), received: venueAmount(t.outputMint, t.rawOutputAmount, t.outputAmount), fee });
  }
  return fills.sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
}

/** A prediction fill from a history row of type order_filled; undefined for any other row. */
export function predictionFill(e: PredictionHistoryEvent): VenueFill | undefined {
  if (e.eventType !== 'order_filled' || !e.signature || !e.marketId) return undefined;
  const contractsMicro = e.filledContractsMicro ?? (e.filledContracts !== null ? e.filledContracts * 1_000_000n : null);
  if (contractsMicro === null || contractsMicro === 0n) return undefined;
  const fee = e.feeUsd;
  // Cost with its fee (a buy) or proceeds net of it (a sell): what moved, the row's token transfer where it has one.
  const usdMicro = e.transferAmountToken ?? (e.isBuy ? (e.totalCostUsd ?? 0n) + (fee ?? 0n) : (e.netProceedsUsd ?? 0n));
  return { product: 'prediction', signature: e.signature, at: e.timestamp * 1000, side: e.isBuy ? 'buy' : 'sell', marketId: e.marketId, isYes: e.isYes, contractsMicro, usdMicro, priceMicroUsd: e.avgFillPriceUsd, feeMicroUsd: fee };
}

/** An amount with its decimals: the known mint's, else what the venue's UI amount says of the raw one. */
function venueAmount(mint: string, amount: bigint, ui: string | undefined): VenueAmount {
  return { mint, amount, decimals: knownByMint(mint)?.decimals ?? decimalsOf(ui, amount) };
}

/** The decimals d for which the decimal string `ui` is exactly `raw` / 10^d; null when none is (or raw is 0). */
export function decimalsOf(ui: string | undefined, raw: bigint): number | null {
  if (ui === undefined || raw === 0n || !/^\d+(\.\d+)?$/.test(ui)) return null;
  const [whole = '', frac = ''] = ui.split('.');
  const digits = BigInt(`${whole}${frac}`);
  for (let d = frac.length; d <= 18; d += 1) if (digits * 10n ** BigInt(d - frac.length) === raw) return d;
  return null;
}

/** An open prediction order (GET /orders lists only those), partially filled once a fill landed. */
export function predictionOpenOrder(o: PredictionOrder): VenueOrder {
  const filled = (o.filledContracts ?? 0n) > 0n || (o.filledAt ?? 0) > 0;
  return { product: 'prediction', order: o.pubkey, status: filled ? 'partially-filled' : 'open', openTx: null, position: o.position ?? null, createdAt: o.createdAt * 1000 };
}

/**
 * How an order the open listing no longer shows ended, from its history: closed by its owner is cancelled, closed
 * by the venue with nothing (or not everything) filled is expired, filled is filled. Undefined while the history
 * says it is only created (the listing may lag behind it).
 */
export function endedPredictionStatus(s: PredictionOrderStatus): VenueOrderStatus | undefined {
  const last = s.history.at(-1);
  const type = last?.eventType ?? s.latestEventType ?? null;
  const status = last?.status ?? s.status;
  if (type === 'order_closed') return 'cancelled';
  if (type === 'order_failed' || status === 'failed') return 'expired';
  if (status === 'filled') return 'filled';
  if (status === 'partiallyfilled') return 'expired';
  return undefined;
}

function openSignature(s: PredictionOrderStatus): string | null {
  return s.history.find((e) => e.eventType === 'order_created')?.signature ?? null;
}

/** Unix ms of a service time: ISO 8601, or unix seconds as digits. */
function timeMs(v: string | null | undefined): number | null {
  if (!v) return null;
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : null;
}

function parsedAmount(data: unknown): { mint: string; amount: bigint } | undefined {
  const info = (data as { parsed?: { info?: { mint?: unknown; tokenAmount?: { amount?: unknown } } } } | null)?.parsed?.info;
  const mint = info?.mint;
  const amount = info?.tokenAmount?.amount;
  if (typeof mint !== 'string' || typeof amount !== 'string' || !/^\d+$/.test(amount)) return undefined;
  return { mint, amount: BigInt(amount) };
}
