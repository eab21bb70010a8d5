import { z } from 'zod';
import { addressParam, amountParam } from './common.js';

const bool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
const int = (min: number, max: number) => z.coerce.number().int('must be an integer').min(min).max(max);
/** A micro-USD price limit of the February 2026 body (10,000 to 999,999): still taken when sent. */
const priceLimit = z.union([z.string().regex(/^\d+$/, 'must be an integer of micro-USD'), z.number().int()]).transform((v) => BigInt(v)).refine((n) => n >= 10_000n && n <= 999_999n, 'must be from 10000 to 999999 micro-USD');
/** A contract quantity: digits, or (decimal form) up to six places. */
const digits = z.union([z.string().regex(/^\d+$/, 'must be an integer'), z.number().int().nonnegative()]).transform((v) => BigInt(v));

/**
 * Body of POST /prediction/v1/orders (CreateOrderRequest): a buy spends `depositAmount` of `depositMint` on a
 * market's YES or NO contracts; a sell sells contracts of a position, given in exactly one of three forms.
 * `skipSigning` is what Jupiter's CLI sends before POST /orders/execute; the venue never pre-signs anyway.
 */
export const createOrderBody = z.object({
  isBuy: z.boolean({ error: 'isBuy is required (true or false)' }),
  ownerPubkey: addressParam,
  marketId: z.string().min(1).max(128).optional(),
  positionPubkey: addressParam.optional(),
  isYes: z.boolean().optional(),
  depositAmount: amountParam.optional(),
  depositMint: addressParam.optional(),
  contracts: digits.optional(),
  contractsMicro: digits.optional(),
  // A string or a number (CreateOrderRequest: anyOf string, number).
  contractsDecimal: z
    .union([z.string(), z.number().nonnegative()])
    .transform(String)
    .pipe(z.string().regex(/^\d+(\.\d{1,6})?$/, 'must be a decimal with at most 6 places'))
    .optional(),
  maxBuyPriceUsd: priceLimit.optional(),
  minSellPriceUsd: priceLimit.optional(),
  skipSigning: z.boolean().optional(),
});
/** A parsed create body. */
export type CreateOrderBody = z.output<typeof createOrderBody>;

/** Body of POST /prediction/v1/execute (ExecuteRequest) and of the CLI's POST /orders/execute. */
export const executeBody = z.object({
  signedTransaction: z.string().min(1, 'is required'),
  context: z.record(z.string(), z.unknown()).optional(),
  requestId: z.string().max(128).optional(),
});
/** A parsed execute body. */
export type ExecuteBody = z.output<typeof executeBody>;

/** Body of DELETE /orders: the order to close and its owner. */
export const closeOrderBody = z.object({ ownerPubkey: addressParam, orderPubkey: addressParam });
/** Body of DELETE /positions/{pubkey} and POST /positions/{pubkey}/claim. */
export const ownerBody = z.object({ ownerPubkey: addressParam });
/** Body of DELETE /positions. */
export const closeAllBody = z.object({ ownerPubkey: addressParam, minSellPriceSlippageBps: int(0, 10_000) });

/** Query of GET /events. */
export const eventsQuery = z.object({
  provider: z.enum(['polymarket', 'kalshi', 'bisonfi']).optional(),
  includeMarkets: bool.optional(),
  includeAllMarkets: bool.optional(),
  start: int(0, 1_000_000).optional(),
  end: int(0, 1_000_000).optional(),
  category: z.enum(['all', 'crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech']).optional(),
  subcategory: z.string().max(200).optional(),
  sortBy: z.enum(['volume', 'beginAt']).optional(),
  sortDirection: z.enum(['asc', 'desc']).optional(),
  filter: z.enum(['new', 'live', 'trending', 'upcoming']).optional(),
  tags: z.string().max(200).optional(),
});
/** A parsed events query. */
export type EventsQuery = z.output<typeof eventsQuery>;

/** Query of GET /events/search. */
export const searchQuery = z.object({
  query: z.string().min(1).max(200),
  limit: int(1, 20).optional(),
  provider: z.enum(['polymarket', 'kalshi', 'bisonfi']).optional(),
});

/** Query of the owner's lists (orders, positions, history). */
export const ownerListQuery = z.object({
  ownerPubkey: addressParam.optional(),
  start: int(0, 1_000_000).optional(),
  end: int(0, 1_000_000).optional(),
  marketId: z.string().max(128).optional(),
  marketPubkey: addressParam.optional(),
  isYes: bool.optional(),
  positionPubkey: addressParam.optional(),
  id: int(1, Number.MAX_SAFE_INTEGER).optional(),
});
/** A parsed list query. */
export type OwnerListQuery = z.output<typeof ownerListQuery>;
