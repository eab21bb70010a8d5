import { z } from 'zod';
import { address, nonEmpty, u64String } from './params.js';

/*
 * Requests of the Trigger API V1 (limit orders), /trigger/v1 (openapi/trigger-v1.yaml; jupiter-api.md §5). The
 * spec types every number of these bodies as a string, and so does the simulator: a JSON number is refused. Bad
 * input is answered `{error, cause, code: 400}` with 400, the service's shape.
 */

/** A small integer the spec types `string`: digits, within bounds. */
function digitString(min: number, max: number) {
  return z
    .string({ error: 'must be an integer in a string' })
    .regex(/^\d+$/, 'must be an integer in a string')
    .transform(Number)
    .refine((n) => Number.isSafeInteger(n) && n >= min && n <= max, `must be from ${min} to ${max}`);
}

/** `computeUnitPrice`: "auto" (the default: the service's p95) or micro-lamports per compute unit, as a string. */
export const computeUnitPrice = z
  .union([z.literal('auto'), z.string().regex(/^\d+$/)], { error: 'must be "auto" or an integer of micro-lamports in a string' })
  .transform((v) => (v === 'auto' ? undefined : BigInt(v)));

/**
 * Body of POST /createOrder (createOrdersRequestBody): the mints, maker and payer, and `params` with the raw
 * `makingAmount` and `takingAmount` (u64 strings above 0); `expiredAt` is unix seconds, `slippageBps` (default
 * "0") and `feeBps` are basis points, all strings. `feeBps` needs `feeAccount` (the desk refuses it without).
 */
export const createOrderBody = z.object({
  inputMint: address,
  outputMint: address,
  maker: address,
  payer: address,
  params: z.object({
    makingAmount: u64String,
    takingAmount: u64String,
    /** Unix seconds. */
    expiredAt: digitString(1, 99_999_999_999).optional(),
    slippageBps: digitString(0, 10_000).optional(),
    feeBps: digitString(0, 10_000).optional(),
  }),
  computeUnitPrice: computeUnitPrice.optional(),
  feeAccount: address.optional(),
  wrapAndUnwrapSol: z.boolean().optional(),
});
/** A parsed createOrder body. */
export type CreateOrderBody = z.output<typeof createOrderBody>;

/**
 * Body of POST /cancelOrder: `maker` and `order` required. The maker is read by the desk, which answers the
 * documented `{"error":"invalid maker pubkey","code":400}` for one that is missing or not an address.
 */
export const cancelOrderBody = z.object({ maker: z.unknown(), order: address, computeUnitPrice: computeUnitPrice.optional() });
/** A parsed cancelOrder body. */
export type CancelOrderBody = z.output<typeof cancelOrderBody>;

/** Body of POST /cancelOrders: without `orders` (or with none), every open order of the maker; the maker as above. */
export const cancelOrdersBody = z.object({ maker: z.unknown(), orders: z.array(address).max(100).optional(), computeUnitPrice: computeUnitPrice.optional() });
/** A parsed cancelOrders body. */
export type CancelOrdersBody = z.output<typeof cancelOrdersBody>;

/** Body of POST /execute (executeRequestBody): both fields required. */
export const triggerExecuteBody = z.object({ requestId: nonEmpty, signedTransaction: nonEmpty });
/** A parsed execute body. */
export type TriggerExecuteBody = z.output<typeof triggerExecuteBody>;

/**
 * Query of GET /getTriggerOrders: `user` and `orderStatus` (active or history) required; `page` a string from 1
 * (default "1"), `includeFailedTx` "true" or "false", and the mints to filter by.
 */
export const getTriggerOrdersQuery = z.object({
  user: address,
  orderStatus: z.enum(['active', 'history']),
  page: digitString(1, 1_000_000).optional(),
  includeFailedTx: z.enum(['true', 'false']).optional(),
  inputMint: address.optional(),
  outputMint: address.optional(),
});
/** A parsed getTriggerOrders query. */
export type GetTriggerOrdersQuery = z.output<typeof getTriggerOrdersQuery>;
