import { z } from 'zod';
import { address, jsonInt, nonEmpty, queryBool, queryInt } from './params.js';

/*
 * Requests of the Recurring API V1 (time-based DCA), /recurring/v1 (openapi/recurring.yaml; jupiter-api.md §6).
 * Bad input is answered `{code: 400, error, status: "Bad Request"}` with 400, the service's shape, the error
 * beginning as the service's JSON reader words it ("Failed to deserialize ...").
 */

/**
 * `params.time` of POST /createOrder: `inAmount` (raw, int64 from 0), `numberOfOrders` (int64 from 0) and
 * `interval` (seconds, int64) required; `minPrice`/`maxPrice` (double) and `startAt` (unix seconds) nullable.
 * JSON integers, as the spec types them. The desk applies the service's rules (at least 2 orders, $100 in all, $50
 * an order, the SDK's shortest interval), each with the service's own words; the JSON type is the schema's.
 */
const timeParams = z.object({
  inAmount: jsonInt(0),
  numberOfOrders: jsonInt(0),
  interval: jsonInt(1),
  minPrice: z.number().positive().finite().nullish(),
  maxPrice: z.number().positive().finite().nullish(),
  startAt: jsonInt(1).nullish(),
});

/**
 * Body of POST /createOrder: `user`, the mints, and `params`, one of `{time}` or the deprecated `{price}` (which the
 * desk answers as deprecated, whatever it holds).
 */
export const recurringCreateBody = z.object({
  user: address,
  inputMint: address,
  outputMint: address,
  params: z.object({ time: timeParams.optional(), price: z.unknown().optional() }),
});
/** A parsed createOrder body. */
export type RecurringCreateBody = z.output<typeof recurringCreateBody>;

/** Body of POST /cancelOrder: `order`, `user` and `recurringType` (time or price), all required. */
export const recurringCancelBody = z.object({ order: address, user: address, recurringType: z.enum(['time', 'price']) });
/** A parsed cancelOrder body. */
export type RecurringCancelBody = z.output<typeof recurringCancelBody>;

/** Body of POST /execute: both fields required. */
export const recurringExecuteBody = z.object({ requestId: nonEmpty, signedTransaction: nonEmpty });
/** A parsed execute body. */
export type RecurringExecuteBody = z.output<typeof recurringExecuteBody>;

/**
 * The query parameters the service cannot do without. The spec marks all six required, but its examples leave out
 * `page` and `mint` (jupiter-api.md §6): those two are optional, the boolean `includeFailedTx` is not.
 */
export const RECURRING_REQUIRED_QUERY = ['user', 'orderStatus', 'recurringType', 'includeFailedTx'] as const;

/** Query of GET /getRecurringOrders. */
export const recurringOrdersQuery = z.object({
  user: address,
  orderStatus: z.enum(['active', 'history']),
  recurringType: z.enum(['time', 'price', 'all']),
  includeFailedTx: queryBool,
  page: queryInt(1).optional(),
  mint: address.optional(),
});
/** A parsed getRecurringOrders query. */
export type RecurringOrdersQuery = z.output<typeof recurringOrdersQuery>;
