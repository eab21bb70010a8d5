import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError, OrderError, SchemaError } from '../errors.js';
import { base64, pubkey, u64 } from '../schemas.js';

/** Routers Ultra can route through. */
export const ULTRA_ROUTERS = ['metis', 'jupiterz', 'dflow', 'okx'] as const;
/** An Ultra router. */
export type UltraRouter = (typeof ULTRA_ROUTERS)[number];

/** Parameters of GET /ultra/v1/order. Amounts are bigint base units of the input mint (ExactIn only). */
export interface GetOrderParams {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  /** Without a taker the service returns a quote with `transaction: null`. */
  taker?: string | undefined;
  /** Wallet (not token account) that receives the output. */
  receiver?: string | undefined;
  /** Integrator gas payer; requires referralAccount and referralFee. */
  payer?: string | undefined;
  /** Close authority of created ATAs; requires payer. */
  closeAuthority?: string | undefined;
  referralAccount?: string | undefined;
  /** Integrator fee in bps, 50 to 255; requires referralAccount. */
  referralFee?: number | undefined;
  excludeRouters?: readonly UltraRouter[] | undefined;
  excludeDexes?: readonly string[] | undefined;
  /** Manual mode: slippage in bps, 0 to 10,000. */
  slippageBps?: number | undefined;
  broadcastFeeType?: 'maxCap' | 'exactFee' | undefined;
  priorityFeeLamports?: number | undefined;
  /** At least 1,000 lamports. */
  jitoTipLamports?: number | undefined;
}

const swapInfoSchema = z.object({
  ammKey: z.string(),
  label: z.string().optional(),
  inputMint: pubkey,
  outputMint: pubkey,
  inAmount: u64,
  outAmount: u64,
  feeAmount: u64.optional(),
  feeMint: z.string().optional(),
});

/** One leg of a route plan. */
export const routePlanStepSchema = z.object({
  swapInfo: swapInfoSchema,
  percent: z.number().nullable().optional(),
  bps: z.number().optional(),
  usdValue: z.number().optional(),
});

/** The /ultra/v1/order body (jupiter-api.md §1.2). Amount fields become bigint; `requestId` is mandatory. */
export const orderResponseSchema = z.object({
  mode: z.string(),
  inputMint: pubkey,
  outputMint: pubkey,
  inAmount: u64,
  outAmount: u64,
  otherAmountThreshold: u64,
  swapMode: z.enum(['ExactIn', 'ExactOut']),
  slippageBps: z.number().int().min(0).max(10_000),
  priceImpactPct: z.string().optional(),
  priceImpact: z.number().optional(),
  inUsdValue: z.number().optional(),
  outUsdValue: z.number().optional(),
  swapUsdValue: z.number().optional(),
  routePlan: z.array(routePlanStepSchema),
  referralAccount: z.string().optional(),
  feeMint: z.string().optional(),
  feeBps: z.number(),
  platformFee: z.object({ amount: u64.optional(), feeBps: z.number() }).nullable().optional(),
  signatureFeeLamports: z.number().int().nonnegative().optional(),
  signatureFeePayer: z.string().nullable().optional(),
  prioritizationFeeLamports: z.number().int().nonnegative().optional(),
  prioritizationFeePayer: z.string().nullable().optional(),
  rentFeeLamports: z.number().int().nonnegative().optional(),
  rentFeePayer: z.string().nullable().optional(),
  swapType: z.string().optional(),
  router: z.string().optional(),
  /** Base64 unsigned v0 transaction; null without a taker; "" when errorCode is set. */
  transaction: base64.nullable(),
  gasless: z.boolean().optional(),
  requestId: z.string().min(1, 'requestId must not be empty'),
  totalTime: z.number().optional(),
  taker: z.string().nullable().optional(),
  quoteId: z.string().optional(),
  maker: z.string().optional(),
  /** Unix seconds, sent as a string (RFQ only); a number is read as its digits. */
  expireAt: z.union([z.string(), z.number().int().nonnegative().transform(String)]).optional(),
  lastValidBlockHeight: z.union([z.string(), z.number()]).optional(),
  /**
   * 1 to 3 are documented; the service may send others (a router added later), which are still its refusal of the
   * order, not a malformed body. A digit string is read as its number.
   */
  errorCode: z.union([z.number().int(), z.string().regex(/^-?\d+$/).transform(Number)]).optional(),
  errorMessage: z.string().optional(),
  error: z.string().optional(),
});

/** A parsed Ultra order (a quote, plus a transaction when a taker was given). */
export type UltraOrder = z.output<typeof orderResponseSchema>;

/** Checks the documented request rules; throws LimitError naming the broken rule. */
export function checkOrderParams(p: GetOrderParams): void {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError('ultra.order', rule, msg);
  };
  if (p.amount <= 0n) fail('order.amount.positive', `amount must be greater than 0, got ${p.amount}`);
  if (p.amount >= 1n << 64n) fail('order.amount.u64', 'amount does not fit in a u64');
  if (p.inputMint === p.outputMint) fail('order.mints.distinct', 'inputMint and outputMint must differ');
  for (const [name, value] of Object.entries({ inputMint: p.inputMint, outputMint: p.outputMint, taker: p.taker, receiver: p.receiver, payer: p.payer, closeAuthority: p.closeAuthority, referralAccount: p.referralAccount })) {
    if (value !== undefined && !pubkey.safeParse(value).success) fail(`order.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
  }
  if (p.referralFee !== undefined) {
    if (!Number.isInteger(p.referralFee) || p.referralFee < 50 || p.referralFee > 255) {
      fail('order.referralFee.range', `referralFee must be an integer from 50 to 255 bps, got ${p.referralFee}`);
    }
    if (p.referralAccount === undefined) fail('order.referralFee.account', 'referralFee needs referralAccount');
  }
  if (p.referralAccount !== undefined && p.referralFee === undefined) fail('order.referralAccount.fee', 'referralAccount needs referralFee');
  if (p.payer !== undefined && (p.referralAccount === undefined || p.referralFee === undefined)) {
    fail('order.payer.referral', 'payer may only be used together with referralAccount and referralFee');
  }
  if (p.closeAuthority !== undefined && p.payer === undefined) fail('order.closeAuthority.payer', 'closeAuthority needs payer');
  if (p.slippageBps !== undefined && (!Number.isInteger(p.slippageBps) || p.slippageBps < 0 || p.slippageBps > 10_000)) {
    fail('order.slippageBps.range', `slippageBps must be an integer from 0 to 10000, got ${p.slippageBps}`);
  }
  if (p.priorityFeeLamports !== undefined && !(p.priorityFeeLamports > 0)) fail('order.priorityFeeLamports.positive', 'priorityFeeLamports must be greater than 0');
  if (p.jitoTipLamports !== undefined && !(p.jitoTipLamports >= 1000)) fail('order.jitoTipLamports.min', 'jitoTipLamports must be at least 1000');
}

/**
 * GET /ultra/v1/order: a quote, and with `taker` an unsigned transaction plus the requestId for execute.
 * Throws OrderError when the service returns an errorCode (the documented 1 to 3, or any other) instead of a
 * transaction.
 */
export async function getOrder(client: JupiterTransport, params: GetOrderParams, options: CallOptions = {}): Promise<UltraOrder> {
  checkOrderParams(params);
  const order = await client.request({
    endpoint: 'ultra.order',
    method: 'GET',
    path: '/ultra/v1/order',
    query: {
      inputMint: params.inputMint,
      outputMint: params.outputMint,
      amount: params.amount,
      taker: params.taker,
      receiver: params.receiver,
      payer: params.payer,
      closeAuthority: params.closeAuthority,
      referralAccount: params.referralAccount,
      referralFee: params.referralFee,
      excludeRouters: params.excludeRouters?.join(','),
      excludeDexes: params.excludeDexes?.join(','),
      slippageBps: params.slippageBps,
      broadcastFeeType: params.broadcastFeeType,
      priorityFeeLamports: params.priorityFeeLamports,
      jitoTipLamports: params.jitoTipLamports,
    },
    schema: orderResponseSchema,
    signal: options.signal,
  });
  if (order.errorCode !== undefined && !order.transaction) {
    throw new OrderError('ultra.order', order.errorCode, order.router, order.errorMessage);
  }
  if (params.taker !== undefined && !order.transaction) {
    throw new SchemaError('ultra.order', [{ path: 'transaction', message: 'empty although a taker was given, and no errorCode says why' }]);
  }
  return order;
}
