import { z } from 'zod';
import { address, nonEmpty, queryInt, u64StringOrNumber } from './params.js';

/*
 * Requests of the Prediction Market API, /prediction/v1 (openapi/prediction.yaml; jupiter-api.md §8 and §13 items
 * 13 and 14). Bad input is answered with the service's ErrorResponse, `{type: "invalid_request_error", message,
 * code, param?, request_id}`, status 400.
 */

const bool = z.union([z.boolean(), z.enum(['true', 'false']).transform((v) => v === 'true')]);
/** A contract quantity the spec types `anyOf: [string, number]`: digits or a JSON integer. */
const wholeContracts = z.union([z.string().regex(/^\d+$/, 'must be an integer'), z.number().int().nonnegative()]).transform((v) => BigInt(v));
/** A micro-USD price limit of the February 2026 body (10,000 to 999,999): later docs send none; still taken when sent. */
const priceLimit = z
  .union([z.string().regex(/^\d+$/, 'must be an integer of micro-USD'), z.number().int()])
  .transform((v) => BigInt(v))
  .refine((n) => n >= 10_000n && n <= 999_999n, 'must be from 10000 to 999999 micro-USD');

/** The data providers of the discovery endpoints (default polymarket; bisonfi is Jupiter Forecast). */
export const PREDICTION_PROVIDERS = ['polymarket', 'kalshi', 'bisonfi'] as const;
const provider = z.enum(PREDICTION_PROVIDERS);

/**
 * Body of POST /orders (CreateOrderRequest). The spec requires only `isBuy`; a buy needs `marketId`, `isYes` and
 * `depositAmount` (raw units of `depositMint`, default USDC), a sell `positionPubkey` and exactly one of
 * `contracts`, `contractsMicro`, `contractsDecimal`, each a string or a number: the desk refuses what is missing
 * with the service's words. `ownerPubkey` is optional in the spec, where the service then only quotes (no
 * transaction); the simulator builds every order, so it requires the owner. `skipSigning` is what Jupiter's CLI
 * sends before POST /orders/execute.
 */
export const createOrderBody = z.object({
  isBuy: z.boolean({ error: 'isBuy is required (true or false)' }),
  ownerPubkey: address,
  marketId: z.string().min(1).max(128).optional(),
  positionPubkey: address.optional(),
  isYes: z.boolean().optional(),
  depositAmount: u64StringOrNumber.optional(),
  depositMint: address.optional(),
  contracts: wholeContracts.optional(),
  contractsMicro: wholeContracts.optional(),
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

/**
 * Body of POST /execute (ExecuteRequest) and of the CLI's POST /orders/execute: `signedTransaction` required; the
 * order build's `execution.context`, passed unchanged, and a client `requestId`, optional.
 */
export const executeBody = z.object({
  signedTransaction: nonEmpty,
  context: z.record(z.string(), z.unknown()).optional(),
  requestId: z.string().max(128).optional(),
});
/** A parsed execute body. */
export type ExecuteBody = z.output<typeof executeBody>;

/** Body of DELETE /orders (the earlier spec's close of an open order): the order and its owner. */
export const closeOrderBody = z.object({ ownerPubkey: address, orderPubkey: address });
/** Body of DELETE /positions/{pubkey} and POST /positions/{pubkey}/claim: the owner (the desk builds the owner's transaction). */
export const ownerBody = z.object({ ownerPubkey: address });
/** Body of DELETE /positions: the owner, and `minSellPriceSlippageBps` (required), applied to each sell. */
export const closeAllBody = z.object({
  ownerPubkey: address,
  minSellPriceSlippageBps: z.number({ error: 'is required' }).int('must be an integer of basis points').min(0).max(10_000),
});

/** `start` and `end` of the paged lists: integers from 0. */
const pageBound = queryInt(0);

/** Query of GET /events. */
export const eventsQuery = z.object({
  provider: provider.optional(),
  includeMarkets: bool.optional(),
  includeAllMarkets: bool.optional(),
  start: pageBound.optional(),
  end: pageBound.optional(),
  category: z.enum(['all', 'crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech']).optional(),
  subcategory: z.string().max(200).optional(),
  sortBy: z.enum(['volume', 'beginAt']).optional(),
  sortDirection: z.enum(['asc', 'desc']).optional(),
  filter: z.enum(['new', 'live', 'trending', 'upcoming']).optional(),
  tags: z.string().max(200).optional(),
});
/** A parsed events query. */
export type EventsQuery = z.output<typeof eventsQuery>;

/** Query of GET /events/{eventId}. */
export const eventQuery = z.object({ includeMarkets: bool.optional(), includeAllMarkets: bool.optional() });

/** Query of GET /events/search: `query` of 1 to 200 characters, `limit` 1 to 20. */
export const searchQuery = z.object({
  query: z.string({ error: 'is required' }).min(1).max(200),
  limit: queryInt(1, 20).optional(),
  provider: provider.optional(),
});

/**
 * Query of the owner's lists, /orders, /positions and /history (and the `start`/`end` of an event's markets): the
 * union of their parameters, each as its endpoint types it.
 */
export const ownerListQuery = z.object({
  ownerPubkey: address.optional(),
  start: pageBound.optional(),
  end: pageBound.optional(),
  marketId: z.string().min(1).max(128).optional(),
  marketPubkey: address.optional(),
  isYes: z.enum(['true', 'false']).transform((v) => v === 'true').optional(),
  positionPubkey: address.optional(),
  id: queryInt(1).optional(),
});
/** A parsed list query. */
export type OwnerListQuery = z.output<typeof ownerListQuery>;
