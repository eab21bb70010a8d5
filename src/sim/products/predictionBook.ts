import type { PublicKey } from '@solana/web3.js';
import type { SimToken } from '../catalog.js';
import type { Level, SimMarket } from './predictionMarkets.js';

/** Micro-USD (and micro-contracts) per unit: 1,000,000 = $1 = 1 contract. */
export const MICRO = 1_000_000n;
/** Smallest fill: 0.01 contract (jupiter-api.md §8: fills are floored to 0.01 contract). */
export const CONTRACT_STEP = 10_000n;
/** Simulated ms after an order lands before the keeper network first works it, and after which it gives up. */
export const FILL_DELAY_MS = 2_000;
export const ORDER_TTL_MS = 60_000;
/** One cent in micro-USD: fees round up to it. */
const CENT = 10_000n;

/**
 * Where an order is. `pending`: its transaction was handed out and has not landed (no account yet). `open`: its
 * account exists and the keeper network works it (reported `created`, or `partiallyfilled` once something filled).
 * `filled`: done, every contract it could buy or sell filled. `closed`: closed by its owner, the rest refunded.
 * `failed`: the keeper gave up (no fill within its time, or its market closed), the rest refunded.
 */
export type OrderPhase = 'pending' | 'open' | 'filled' | 'closed' | 'failed';

/** One entry of an order's status history (GET /orders/status). */
export interface OrderEvent {
  eventType: 'order_created' | 'order_filled' | 'order_failed' | 'order_closed';
  status: 'created' | 'partiallyfilled' | 'filled' | 'failed';
  atMs: number;
  signature: string | null;
}

/** A prediction position: one per owner, market and side. Contracts are micro-contracts; money micro-USD. */
export interface SimPosition {
  key: PublicKey;
  address: string;
  owner: PublicKey;
  market: SimMarket;
  isYes: boolean;
  /** The stable the position was paid in and pays out in (USDC or JupUSD). */
  mint: SimToken;
  contracts: bigint;
  /** Contracts promised to open sell orders. */
  reserved: bigint;
  /** Cost basis of the contracts held (what was paid for them, fees apart). */
  totalCostUsd: bigint;
  feesPaidUsd: bigint;
  realizedPnlUsd: bigint;
  openOrders: number;
  claimed: boolean;
  claimedUsd: bigint;
  /** Closed by the keeper after its market resolved against it. */
  lost: boolean;
  /** Whether its account was written (its first order landed). */
  opened: boolean;
  openedAtMs: number;
  updatedAtMs: number;
  /** A claim transaction handed out for it may land until then; the keeper's auto-claim waits. */
  claimHoldUntilMs: number;
}

/** A prediction order the venue keeps. */
export interface SimPredictionOrder {
  key: PublicKey;
  address: string;
  owner: PublicKey;
  position: SimPosition;
  isBuy: boolean;
  externalOrderId: string;
  /** The provider's order id (e.g. `order-1906029`), set when the keeper first works it. */
  orderId: string;
  /** The deposit's escrow (the order's token account of the mint); null for sells, which deposit nothing. */
  escrow: PublicKey | null;
  deposit: bigint;
  /** What the escrow still holds (buys). */
  remaining: bigint;
  /** Contracts to sell (sells), or the estimate at build (buys). */
  contracts: bigint;
  filledContracts: bigint;
  /** Buys: paid for the contracts filled; sells: gross proceeds. */
  costUsd: bigint;
  feeUsd: bigint;
  /** maxBuyPriceUsd of a buy, minSellPriceUsd of a sell. */
  limit: bigint;
  slippageBps: number;
  phase: OrderPhase;
  createdAtMs: number;
  updatedAtMs: number;
  filledAtMs: number | null;
  /** The keeper fills from then on (its network's latency). */
  fillFromMs: number;
  /** The keeper gives up after this. */
  expiresAtMs: number;
  /** A close transaction handed out for it may land until then: no fill meanwhile, so its refund stays exact. */
  holdUntilMs: number;
  /** A pending order whose transaction never landed is dropped after this. */
  pendingUntilMs: number;
  events: OrderEvent[];
  requestId: string;
}

/** One row of GET /history. */
export interface HistoryRow {
  id: number;
  eventType: 'order_created' | 'order_filled' | 'order_failed' | 'order_closed' | 'payout_claimed' | 'position_updated' | 'position_lost';
  signature: string | null;
  slot: bigint;
  atMs: number;
  order: SimPredictionOrder | null;
  position: SimPosition;
  isBuy: boolean;
  contracts: bigint | null;
  filledContracts: bigint | null;
  contractsSettled: bigint | null;
  avgFillPriceUsd: bigint | null;
  depositAmountUsd: bigint | null;
  totalCostUsd: bigint | null;
  feeUsd: bigint | null;
  grossProceedsUsd: bigint | null;
  netProceedsUsd: bigint | null;
  transferAmountToken: bigint | null;
  realizedPnl: bigint | null;
  payoutAmountUsd: bigint | null;
}

/**
 * The documented fee of a fill, micro-USD: 0.07 x contracts x p x (1 - p) for each price level taken, summed and
 * rounded up to the cent (jupiter-api.md §8 and §13 item 15: $1.32 for 100 contracts at $0.25). Claims pay none.
 */
export function fillFee(parts: ReadonlyArray<{ price: bigint; contracts: bigint }>): bigint {
  const raw = parts.reduce((s, p) => s + 7n * p.contracts * p.price * (MICRO - p.price), 0n);
  if (raw === 0n) return 0n;
  const unit = 100n * MICRO * MICRO * CENT; // 7/100, micro-contracts x micro-USD^2 / 1e12, then cents
  return ((raw + unit - 1n) / unit) * CENT;
}

/** What taking `contracts` from the book costs, level by level (best first); undefined when the book is too thin. */
export function walk(levels: readonly Level[], contracts: bigint): Array<{ level: Level; price: bigint; contracts: bigint }> | undefined {
  const out: Array<{ level: Level; price: bigint; contracts: bigint }> = [];
  let left = contracts;
  for (const level of levels) {
    if (left === 0n) break;
    const take = level.contracts < left ? (level.contracts / CONTRACT_STEP) * CONTRACT_STEP : left;
    if (take > 0n) out.push({ level, price: level.price, contracts: take });
    left -= take;
  }
  return left === 0n ? out : undefined;
}

/** Money of a walk: contracts x price, micro-USD (exact: both are multiples of 0.01). */
export function walkCost(parts: ReadonlyArray<{ price: bigint; contracts: bigint }>): bigint {
  return parts.reduce((s, p) => s + (p.contracts * p.price) / MICRO, 0n);
}

/**
 * The most contracts (a multiple of 0.01) a buy of `budget` micro-USD gets from `levels` (already cut at the order's
 * limit), paying their cost and the fee: a binary search, as cost and fee only grow with the contracts.
 */
export function affordable(levels: readonly Level[], budget: bigint): { parts: Array<{ level: Level; price: bigint; contracts: bigint }>; cost: bigint; fee: bigint } {
  const depth = levels.reduce((s, l) => s + (l.contracts / CONTRACT_STEP) * CONTRACT_STEP, 0n);
  let lo = 0n;
  let hi = depth / CONTRACT_STEP;
  const fits = (steps: bigint) => {
    const parts = walk(levels, steps * CONTRACT_STEP);
    if (!parts) return undefined;
    const cost = walkCost(parts);
    const fee = fillFee(parts);
    return cost + fee <= budget ? { parts, cost, fee } : undefined;
  };
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if (fits(mid)) lo = mid;
    else hi = mid - 1n;
  }
  return fits(lo) ?? { parts: [], cost: 0n, fee: 0n };
}

/** Contracts in the three forms the API writes: legacy whole contracts (floored), micro-contracts, decimal. */
export function contractForms(micro: bigint, prefix = 'contracts'): Record<string, string> {
  return { [prefix]: (micro / MICRO).toString(), [`${prefix}Micro`]: micro.toString(), [`${prefix}Decimal`]: decimal(micro) };
}

/** A micro amount as a decimal string with up to six places ("5.77", "12"). */
export function decimal(micro: bigint): string {
  const whole = micro / MICRO;
  const frac = (micro % MICRO).toString().padStart(6, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : whole.toString();
}
