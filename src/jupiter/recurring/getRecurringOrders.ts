import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError, SchemaError } from '../errors.js';
import { pubkey, u64Loose } from '../schemas.js';
import { closeTxSchema, intLikeSchema, orderTradeSchema, uiAmountSchema } from '../trigger/getTriggerOrders.js';

const ENDPOINT = 'recurring.getRecurringOrders';

/** Which recurring orders to list; `price` orders are deprecated. */
export type RecurringOrderType = 'time' | 'price' | 'all';

/** A mint of a recurring trade row: an address, or "" where the row has none (a deposit has no output or fee). */
const tradeMint = z.union([pubkey, z.literal('')]);

/**
 * One row of a recurring order's `trades`: the trigger fill shape, except that the deposit rows of price-based
 * orders carry `keeper: ""`, `outputMint: ""` and `feeMint: ""` (real 2025 data, jupiter-api.md §13 item 12), which
 * must not fail the page. A row with an empty mint is kept as it came; only `action: "Fill"` rows are fills.
 */
export const recurringTradeSchema = orderTradeSchema.extend({ inputMint: tradeMint, outputMint: tradeMint });

/** A parsed recurring trade row. */
export type RecurringTrade = z.output<typeof recurringTradeSchema>;

/** One time-based recurring order. UI amounts stay decimal strings; raw* amounts are bigint base units. */
export const timeRecurringOrderSchema = z.object({
  userPubkey: pubkey,
  orderKey: pubkey,
  inputMint: pubkey,
  outputMint: pubkey,
  inDeposited: uiAmountSchema,
  inWithdrawn: uiAmountSchema,
  rawInDeposited: u64Loose,
  rawInWithdrawn: u64Loose,
  /** Seconds between cycles; sent as "60" (2025 docs) or 60 (newer spec example). */
  cycleFrequency: intLikeSchema,
  outWithdrawn: uiAmountSchema,
  inAmountPerCycle: uiAmountSchema,
  minOutAmount: uiAmountSchema,
  maxOutAmount: uiAmountSchema,
  inUsed: uiAmountSchema,
  outReceived: uiAmountSchema,
  rawOutWithdrawn: u64Loose,
  rawInAmountPerCycle: u64Loose,
  rawMinOutAmount: u64Loose,
  rawMaxOutAmount: u64Loose,
  rawInUsed: u64Loose,
  rawOutReceived: u64Loose,
  openTx: z.string().optional(),
  closeTx: closeTxSchema,
  userClosed: z.boolean(),
  createdAt: z.string(),
  updatedAt: z.string(),
  trades: z.array(recurringTradeSchema).default([]),
});

/**
 * One price-based recurring order (a kind Jupiter deprecated, still listed). USD values are USDC base units. The
 * spec requires `inLeft` and `estimatedUsdcValueSpent` (UI and raw), but the real 2025 history rows carry neither,
 * so they are optional here.
 */
export const priceRecurringOrderSchema = z.object({
  userPubkey: pubkey,
  orderKey: pubkey,
  inputMint: pubkey,
  outputMint: pubkey,
  inDeposited: uiAmountSchema,
  inWithdrawn: uiAmountSchema,
  inLeft: uiAmountSchema.optional(),
  inUsed: uiAmountSchema,
  outReceived: uiAmountSchema,
  outWithdrawn: uiAmountSchema,
  /** Seconds between cycles. */
  orderInterval: intLikeSchema,
  incrementalUsdValue: uiAmountSchema,
  supposedUsdValue: uiAmountSchema,
  estimatedUsdcValueSpent: uiAmountSchema.optional(),
  rawInDeposited: u64Loose,
  rawInWithdrawn: u64Loose,
  rawInLeft: u64Loose.optional(),
  rawInUsed: u64Loose,
  rawOutReceived: u64Loose,
  rawOutWithdrawn: u64Loose,
  rawIncrementalUsdValue: u64Loose,
  rawSupposedUsdValue: u64Loose,
  rawEstimatedUsdcValueSpent: u64Loose.optional(),
  status: z.string(),
  closedBy: z.string().optional(),
  openTx: z.string().optional(),
  closeTx: closeTxSchema,
  createdAt: z.string(),
  startAt: z.string().nullish(),
  updatedAt: z.string(),
  trades: z.array(recurringTradeSchema).default([]),
});

const timeTagged = timeRecurringOrderSchema.extend({ recurringType: z.literal('time') });
const priceTagged = priceRecurringOrderSchema.extend({ recurringType: z.literal('price') });

/** A recurring order of either kind, tagged with `recurringType`. */
export const recurringOrderSchema = z.discriminatedUnion('recurringType', [timeTagged, priceTagged]);
/** A parsed recurring order; narrow on `recurringType`. */
export type RecurringOrder = z.output<typeof recurringOrderSchema>;
/** A parsed time-based recurring order. */
export type TimeRecurringOrder = Extract<RecurringOrder, { recurringType: 'time' }>;

/**
 * The /recurring/v1/getRecurringOrders body. The order list sits under `time`, `price` or `all` depending on the
 * requested recurringType (the spec example shows all three keys); items are tagged here with their type.
 */
export const getRecurringOrdersResponseSchema = z.object({
  user: z.string().optional(),
  orderStatus: z.string().optional(),
  totalPages: intLikeSchema.optional(),
  page: intLikeSchema.optional(),
  time: z.array(timeRecurringOrderSchema.transform((o) => ({ ...o, recurringType: 'time' as const }))).optional(),
  price: z.array(priceRecurringOrderSchema.transform((o) => ({ ...o, recurringType: 'price' as const }))).optional(),
  all: z.array(recurringOrderSchema).optional(),
});

/** The raw parsed body, before the order list is picked. */
export type RecurringOrdersBody = z.output<typeof getRecurringOrdersResponseSchema>;

/** One page of recurring orders (10 per page), normalised into a single `orders` list. */
export interface RecurringOrdersPage {
  user: string | undefined;
  orderStatus: string | undefined;
  orders: RecurringOrder[];
  totalPages: number | undefined;
  page: number | undefined;
  /** True when a later page exists. */
  hasMore: boolean;
}

/**
 * Picks the order list the requested type answers under. For `all`, a body without an `all` key falls back to
 * `time` plus `price`. Throws SchemaError when the expected key is missing.
 */
export function recurringOrdersPage(body: RecurringOrdersBody, recurringType: RecurringOrderType): RecurringOrdersPage {
  let orders: RecurringOrder[] | undefined = body[recurringType];
  if (orders === undefined && recurringType === 'all' && (body.time || body.price)) orders = [...(body.time ?? []), ...(body.price ?? [])];
  if (orders === undefined) throw new SchemaError(ENDPOINT, [{ path: recurringType, message: `expected the order list under "${recurringType}"` }]);
  const { user, orderStatus, totalPages, page } = body;
  return { user, orderStatus, orders, totalPages, page, hasMore: page !== undefined && totalPages !== undefined && page < totalPages };
}

/** Query of GET /recurring/v1/getRecurringOrders. */
export interface GetRecurringOrdersParams {
  /** Wallet whose orders to list. */
  user: string;
  /** `active` for running orders, `history` for closed ones. */
  orderStatus: 'active' | 'history';
  /** `time` (default), `price` (deprecated) or `all`. */
  recurringType?: RecurringOrderType | undefined;
  /** 1-based page. */
  page?: number | undefined;
  /** Only orders with this mint on either side. */
  mint?: string | undefined;
  /** Sent always (the spec marks it required); false by default. */
  includeFailedTx?: boolean | undefined;
}

/** GET /recurring/v1/getRecurringOrders: one page of a wallet's recurring orders, in one tagged `orders` list. */
export async function getRecurringOrders(client: JupiterTransport, params: GetRecurringOrdersParams, options: CallOptions = {}): Promise<RecurringOrdersPage> {
  for (const [name, value] of Object.entries({ user: params.user, mint: params.mint })) {
    if (value !== undefined && !pubkey.safeParse(value).success) {
      throw new LimitError(ENDPOINT, `recurring.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
    }
  }
  if (params.page !== undefined && (!Number.isSafeInteger(params.page) || params.page < 1)) {
    throw new LimitError(ENDPOINT, 'recurring.page.min', `page must be an integer of at least 1, got ${params.page}`);
  }
  const recurringType = params.recurringType ?? 'time';
  const body = await client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: '/recurring/v1/getRecurringOrders',
    query: {
      user: params.user,
      orderStatus: params.orderStatus,
      recurringType,
      page: params.page,
      mint: params.mint,
      includeFailedTx: params.includeFailedTx ?? false,
    },
    schema: getRecurringOrdersResponseSchema,
    signal: options.signal,
  });
  return recurringOrdersPage(body, recurringType);
}
