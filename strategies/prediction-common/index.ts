// What the three prediction-market strategies share: the venue's fee formula, cent rounding of price limits, the
// quotes of one side of a market, and how much of the instance's own buying and selling is still in flight.
import { z } from 'zod';
import type { MarketView, PendingIntentView, PredictionPositionView } from '../../src/sdk/index.js';

/** Micro-USD per dollar, and micro-contracts per contract. */
export const MICRO = 1_000_000n;
/** One cent in micro-USD: prices are quoted in cents and fees round up to one. */
export const CENT = 10_000n;
/** The lowest and highest price a prediction intent may name ($0.01 and $0.99). */
export const MIN_PRICE = 10_000n;
export const MAX_PRICE = 990_000n;
/** The service's smallest buy, micro-USD ($5). */
export const MIN_DEPOSIT = 5_000_000n;

/** A side of a binary market. */
export type Side = 'yes' | 'no';

/**
 * The venue's fee on a fill of `contractsMicro` at `priceMicro` a contract: 0.07 x contracts x p x (1 - p), rounded
 * up to the cent (jupiter-api.md §8 and §13 item 15: $1.32 for 100 contracts at $0.25). Micro-USD.
 */
export function predictionFee(contractsMicro: bigint, priceMicro: bigint): bigint {
  if (contractsMicro <= 0n || priceMicro <= 0n || priceMicro >= MICRO) return 0n;
  const raw = 7n * contractsMicro * priceMicro * (MICRO - priceMicro);
  const unit = 100n * MICRO * MICRO * CENT;
  return ((raw + unit - 1n) / unit) * CENT;
}

/** What one contract costs at `priceMicro`, the fee's share included (before the fill's rounding to a cent). */
export function costPerContract(priceMicro: bigint): bigint {
  return priceMicro + (7n * priceMicro * (MICRO - priceMicro) + 100n * MICRO - 1n) / (100n * MICRO);
}

/** What one contract sold at `priceMicro` brings, its fee taken off (before the fill's rounding to a cent). */
export function proceedsPerContract(priceMicro: bigint): bigint {
  return priceMicro - (7n * priceMicro * (MICRO - priceMicro) + 100n * MICRO - 1n) / (100n * MICRO);
}

/** Contracts (micro, whole hundredths as the venue fills) that `depositMicro` buys at `priceMicro`, fees included. */
export function contractsFor(depositMicro: bigint, priceMicro: bigint): bigint {
  let n = ((depositMicro * MICRO) / costPerContract(priceMicro) / CENT) * CENT;
  while (n > 0n && (n * priceMicro) / MICRO + predictionFee(n, priceMicro) > depositMicro) n -= CENT;
  return n;
}

/** A price rounded down / up to the cent, and kept within what an intent may name. */
export function floorCent(priceMicro: bigint): bigint {
  return clampPrice((priceMicro / CENT) * CENT);
}
export function ceilCent(priceMicro: bigint): bigint {
  return clampPrice(((priceMicro + CENT - 1n) / CENT) * CENT);
}
export function clampPrice(priceMicro: bigint): bigint {
  return priceMicro < MIN_PRICE ? MIN_PRICE : priceMicro > MAX_PRICE ? MAX_PRICE : priceMicro;
}

/** A probability or price written as a number 0..1, in micro-USD. */
export function micro(value: number): bigint {
  return BigInt(Math.round(value * 1_000_000));
}

/** What buying a side costs now (its ask), micro-USD a contract; null when the side is not quoted. */
export function askOf(m: MarketView, side: Side): bigint | null {
  return side === 'yes' ? m.buyYesMicroUsd : m.buyNoMicroUsd;
}

/** What selling a side brings now (its bid), micro-USD a contract; null when the side is not quoted. */
export function bidOf(m: MarketView, side: Side): bigint | null {
  return side === 'yes' ? m.sellYesMicroUsd : m.sellNoMicroUsd;
}

/** Whether a market takes orders: open, tradable, unresolved. */
export function isTrading(m: MarketView): boolean {
  return m.status === 'open' && m.isTradable && m.result === null;
}

/** The side a position holds. */
export function sideOf(p: PredictionPositionView): Side {
  return p.isYes ? 'yes' : 'no';
}

/**
 * The lowest price a sale may accept: the bid less `slippageBps`, to the cent below, at least $0.01. The venue
 * sets a market sell's floor a little under the bid; an intent's floor above the venue's is refused at build.
 */
export function sellFloor(bid: bigint, slippageBps: number): bigint {
  return floorCent((bid * BigInt(10_000 - slippageBps)) / 10_000n);
}

/** USD put into a position so far: its contracts at their average price, or at $1 each when the price is unknown. */
export function heldCost(p: PredictionPositionView): bigint {
  return (p.contractsMicro * (p.avgPriceMicroUsd ?? MICRO)) / MICRO;
}

/** Deposits of the instance's pending buys of a market (one side, or both when `side` is omitted), micro-USD. */
export function pendingBuys(pending: readonly PendingIntentView[], marketId: string, side?: Side): bigint {
  let sum = 0n;
  for (const { intent } of pending) {
    if (intent.kind === 'prediction.buy' && intent.marketId === marketId && (side === undefined || intent.side === side)) sum += intent.depositAmount;
  }
  return sum;
}

/** Whether a sale or close of a position is pending (asked for, in flight, or landed after the wallet snapshot). */
export function exitPending(pending: readonly PendingIntentView[], positionPubkey: string): boolean {
  return pending.some(({ intent }) => (intent.kind === 'prediction.sell' || intent.kind === 'prediction.closePosition') && intent.positionPubkey === positionPubkey);
}

/** A price param: a probability or price between $0.01 and $0.99, written as a number (0.62). */
export const priceParam = z.number().min(0.01).max(0.99);

/** Slippage of a sale below the bid, bps: the floor must stay under the venue's own (about 2 % below the bid). */
export const slippageParam = z.number().int().min(0).max(5_000).default(300);

/** Timestamps (unix ms) by key, as a strategy's state keeps them; a corrupt value is dropped rather than trusted. */
export const timesSchema = z.record(z.string(), z.number().int().nonnegative()).catch({});

/** The entries of `times` younger than `maxAgeMs` at `now` (older ones no longer matter). */
export function recentTimes(times: Readonly<Record<string, number>>, now: number, maxAgeMs: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [k, at] of Object.entries(times)) if (now - at < maxAgeMs && at <= now) out[k] = at;
  return out;
}

/** Micro-USD as dollars for a reason line ("$0.42", "$0.0125"). */
export function dollars(microUsd: bigint): string {
  const abs = microUsd < 0n ? -microUsd : microUsd;
  return `${microUsd < 0n ? '-' : ''}$${(Number(abs) / 1e6).toFixed(abs % CENT === 0n ? 2 : 4)}`;
}
