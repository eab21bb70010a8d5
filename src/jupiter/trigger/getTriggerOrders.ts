import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey, u64Loose } from '../schemas.js';

const ENDPOINT = 'trigger.getTriggerOrders';

/** A human (UI) amount such as "32.071840924", kept exact as a decimal string; a JSON number is turned into one. */
export const uiAmountSchema = z.union([
  z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a decimal amount as a string'),
  z.number().finite().transform((n) => String(n)),
]);

/** A small non-negative integer sent as a digit string ("50") or a JSON integer, kept as a number (bps, seconds, pages). */
export const intLikeSchema = z.union([
  z.string().regex(/^\d+$/, 'expected an integer as a string').transform((s) => Number(s)),
  z.number().int('expected an integer').nonnegative('expected a non-negative integer'),
]);

/** A closing transaction signature: "" (real, while open) and null (spec example) both become null. */
export const closeTxSchema = z
  .string()
  .nullish()
  .transform((v) => v || null);

/** One fill of a trigger or recurring order (the same shape in both APIs). Raw amounts are bigint base units. */
export const orderTradeSchema = z.object({
  orderKey: pubkey,
  keeper: z.string(),
  inputMint: pubkey,
  outputMint: pubkey,
  inputAmount: uiAmountSchema,
  outputAmount: uiAmountSchema,
  rawInputAmount: u64Loose,
  rawOutputAmount: u64Loose,
  feeMint: z.string().optional(),
  feeAmount: uiAmountSchema.optional(),
  rawFeeAmount: u64Loose.optional(),
  txId: z.string(),
  /** ISO 8601 time, e.g. "2025-03-17T08:09:37Z". */
  confirmedAt: z.string(),
  /** "Fill" is the only action observed. */
  action: z.string(),
  productMeta: z.unknown().optional(),
});

/** A parsed fill. */
export type OrderTrade = z.output<typeof orderTradeSchema>;

/** Order statuses observed (`Expired` is a guess); the service may send others, which are kept as is. */
export const TRIGGER_ORDER_STATUSES = ['Open', 'Completed', 'Cancelled', 'Expired'] as const;

/** One trigger order (jupiter-api.md §5). UI amounts stay decimal strings; raw* amounts are bigint base units. */
export const triggerOrderSchema = z.object({
  userPubkey: pubkey,
  orderKey: pubkey,
  inputMint: pubkey,
  outputMint: pubkey,
  makingAmount: uiAmountSchema,
  takingAmount: uiAmountSchema,
  remainingMakingAmount: uiAmountSchema,
  remainingTakingAmount: uiAmountSchema,
  rawMakingAmount: u64Loose,
  rawTakingAmount: u64Loose,
  rawRemainingMakingAmount: u64Loose,
  rawRemainingTakingAmount: u64Loose,
  slippageBps: intLikeSchema,
  /** Expiry as the service sends it (a string), or null when the order never expires. */
  expiredAt: z
    .union([z.string(), z.number().transform((n) => String(n))])
    .nullish()
    .transform((v) => v || null),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** `Open` (an Open order with trades is partly filled), `Completed`, `Cancelled`, `Expired`, or another string. */
  status: z.string().min(1),
  openTx: z.string().optional(),
  closeTx: closeTxSchema,
  /** Trigger program id, e.g. `j1o2qRpjcyUwEvwtcfhEQefh773ZgjxcVRry7LDqg5X`. */
  programVersion: z.string().optional(),
  trades: z.array(orderTradeSchema).default([]),
});

/** A parsed trigger order. */
export type TriggerOrder = z.output<typeof triggerOrderSchema>;

/**
 * The /trigger/v1/getTriggerOrders body: `{user, orderStatus, orders, totalPages, page}`. The old `hasMoreData`
 * format is tolerated; `hasMore` is derived from whichever is present (false when neither says more).
 */
export const getTriggerOrdersResponseSchema = z
  .object({
    user: z.string().optional(),
    orderStatus: z.string().optional(),
    orders: z.array(triggerOrderSchema),
    totalPages: intLikeSchema.optional(),
    page: intLikeSchema.optional(),
    hasMoreData: z.boolean().optional(),
  })
  .transform((b) => ({
    ...b,
    /** True when a later page exists. */
    hasMore: b.hasMoreData ?? (b.page !== undefined && b.totalPages !== undefined && b.page < b.totalPages),
  }));

/** One page of trigger orders (10 per page). */
export type TriggerOrdersPage = z.output<typeof getTriggerOrdersResponseSchema>;

/** Query of GET /trigger/v1/getTriggerOrders. */
export interface GetTriggerOrdersParams {
  /** Wallet whose orders to list. */
  user: string;
  /** `active` for open orders, `history` for closed ones. */
  orderStatus: 'active' | 'history';
  /** 1-based page (service default 1). */
  page?: number | undefined;
  includeFailedTx?: boolean | undefined;
  inputMint?: string | undefined;
  outputMint?: string | undefined;
}

/** GET /trigger/v1/getTriggerOrders: one page of a wallet's active or historical trigger orders. */
export async function getTriggerOrders(client: JupiterTransport, params: GetTriggerOrdersParams, options: CallOptions = {}): Promise<TriggerOrdersPage> {
  for (const [name, value] of Object.entries({ user: params.user, inputMint: params.inputMint, outputMint: params.outputMint })) {
    if (value !== undefined && !pubkey.safeParse(value).success) {
      throw new LimitError(ENDPOINT, `trigger.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
    }
  }
  if (params.page !== undefined && (!Number.isSafeInteger(params.page) || params.page < 1)) {
    throw new LimitError(ENDPOINT, 'trigger.page.min', `page must be an integer of at least 1, got ${params.page}`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: '/trigger/v1/getTriggerOrders',
    query: {
      user: params.user,
      orderStatus: params.orderStatus,
      page: params.page,
      includeFailedTx: params.includeFailedTx,
      inputMint: params.inputMint,
      outputMint: params.outputMint,
    },
    schema: getTriggerOrdersResponseSchema,
    signal: options.signal,
  });
}
