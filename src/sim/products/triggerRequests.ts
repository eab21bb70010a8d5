import { z } from 'zod';
import { addressParam, amountParam } from './common.js';

/** A small integer sent as digits in a string (the service's documented form) or as a JSON integer. */
function intString(min: number, max: number) {
  return z.union([z.string().regex(/^\d+$/, 'must be an integer in a string'), z.number().int('must be an integer')]).transform((v, ctx) => {
    const n = Number(v);
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      ctx.addIssue({ code: 'custom', message: `must be from ${min} to ${max}` });
      return z.NEVER;
    }
    return n;
  });
}

/** `computeUnitPrice`: "auto" (the default) or micro-lamports per compute unit. */
export const computeUnitPriceParam = z
  .union([z.literal('auto'), z.string().regex(/^\d+$/, 'must be "auto" or an integer of micro-lamports'), z.number().int().nonnegative()])
  .transform((v) => (v === 'auto' ? undefined : BigInt(v)));

/** Body of POST /trigger/v1/createOrder (DOCS openapi-spec/trigger/v1/trigger.yaml, createOrdersRequestBody). */
export const createOrderBody = z.object({
  inputMint: addressParam,
  outputMint: addressParam,
  maker: addressParam,
  payer: addressParam,
  params: z.object({
    makingAmount: amountParam,
    takingAmount: amountParam,
    /** Unix seconds. */
    expiredAt: intString(1, 99_999_999_999).optional(),
    slippageBps: intString(0, 10_000).optional(),
    feeBps: intString(0, 10_000).optional(),
  }),
  computeUnitPrice: computeUnitPriceParam.optional(),
  feeAccount: addressParam.optional(),
  wrapAndUnwrapSol: z.boolean().optional(),
});
/** A parsed createOrder body. */
export type CreateOrderBody = z.output<typeof createOrderBody>;

/** Body of POST /trigger/v1/cancelOrder. The maker is checked apart, for the documented "invalid maker pubkey". */
export const cancelOrderBody = z.object({ maker: z.unknown(), order: addressParam, computeUnitPrice: computeUnitPriceParam.optional() });
/** A parsed cancelOrder body. */
export type CancelOrderBody = z.output<typeof cancelOrderBody>;

/** Body of POST /trigger/v1/cancelOrders: without `orders` (or with none), every open order of the maker. */
export const cancelOrdersBody = z.object({ maker: z.unknown(), orders: z.array(addressParam).max(100).optional(), computeUnitPrice: computeUnitPriceParam.optional() });
/** A parsed cancelOrders body. */
export type CancelOrdersBody = z.output<typeof cancelOrdersBody>;

/** Body of POST /trigger/v1/execute. */
export const triggerExecuteBody = z.object({ requestId: z.string().min(1, 'is required'), signedTransaction: z.string().min(1, 'is required') });
/** A parsed execute body. */
export type TriggerExecuteBody = z.output<typeof triggerExecuteBody>;

/** Query of GET /trigger/v1/getTriggerOrders. */
export const getTriggerOrdersQuery = z.object({
  user: addressParam,
  orderStatus: z.enum(['active', 'history']),
  page: intString(1, 1_000_000).optional(),
  includeFailedTx: z.enum(['true', 'false']).optional(),
  inputMint: addressParam.optional(),
  outputMint: addressParam.optional(),
});
/** A parsed getTriggerOrders query. */
export type GetTriggerOrdersQuery = z.output<typeof getTriggerOrdersQuery>;
