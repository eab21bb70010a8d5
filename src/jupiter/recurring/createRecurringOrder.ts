import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { toApproxNumber } from '../../lib/amounts.js';
import { base64Tx, pubkey } from '../schemas.js';

const ENDPOINT = 'recurring.createOrder';

/** The SPL Token-2022 program id; Recurring V1 refuses mints owned by it. */
export const TOKEN_2022_PROGRAM_ID = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** Minimum total value of a recurring order, in USD (jupiter-api.md §6). */
export const RECURRING_MIN_TOTAL_USD = 100;
/** Minimum value of each cycle, in USD. */
export const RECURRING_MIN_PER_ORDER_USD = 50;
/** Minimum number of cycles. */
export const RECURRING_MIN_ORDERS = 2;

/** Time-based terms: `inAmount` is split into `numberOfOrders` cycles, one every `interval` seconds. */
export interface RecurringTimeTerms {
  /** Total base units of the input mint deposited now. Sent as a JSON integer, so at most 2^53 - 1. */
  inAmount: bigint;
  /** Number of cycles, at least 2. */
  numberOfOrders: number;
  /** Seconds between cycles, an integer of at least 1. */
  interval: number;
  /**
   * Optional price bounds: how much output one whole input token must fetch (output tokens per input token). The
   * service turns them into each cycle's least and most output (the DCA program's `minOutAmount`/`maxOutAmount`:
   * a 0.5 SOL cycle with minPrice 200 into USDC gets at least 100 USDC); a cycle whose swap falls outside waits.
   */
  minPrice?: number | null | undefined;
  maxPrice?: number | null | undefined;
  /** First cycle as unix seconds; null or omitted starts now. */
  startAt?: number | null | undefined;
}

/** Parameters of POST /recurring/v1/createOrder (time-based). */
export interface CreateRecurringOrderParams {
  /** Wallet that deposits, owns the order and signs. */
  user: string;
  inputMint: string;
  outputMint: string;
  params: RecurringTimeTerms;
  /** USD price of one whole input token, used to check the USD minimums before sending. */
  inputUsdPrice: number;
  /** Decimals of the input mint. */
  inputDecimals: number;
  /** Owner program of the input mint, when known; Token-2022 is refused. */
  inputTokenProgram?: string | undefined;
  /** Owner program of the output mint, when known; Token-2022 is refused. */
  outputTokenProgram?: string | undefined;
}

/** `{requestId, transaction}`: an unsigned transaction to sign and pass to execute with the requestId. */
export const recurringTransactionResponseSchema = z.object({
  requestId: z.string().min(1, 'requestId must not be empty'),
  transaction: base64Tx,
});

/** A parsed unsigned recurring transaction. */
export type RecurringTransaction = z.output<typeof recurringTransactionResponseSchema>;

/** Throws LimitError unless `value` is a base58 address; the rule is `recurring.<name>.address`. */
export function checkRecurringAddress(endpoint: string, name: string, value: string): void {
  if (!pubkey.safeParse(value).success) throw new LimitError(endpoint, `recurring.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
}

/** Checks the documented Recurring minimums and request rules; throws LimitError naming the broken rule. */
export function checkRecurringOrderParams(p: CreateRecurringOrderParams): void {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError(ENDPOINT, rule, msg);
  };
  checkRecurringAddress(ENDPOINT, 'user', p.user);
  checkRecurringAddress(ENDPOINT, 'inputMint', p.inputMint);
  checkRecurringAddress(ENDPOINT, 'outputMint', p.outputMint);
  if (p.inputMint === p.outputMint) fail('recurring.mints.distinct', 'inputMint and outputMint must differ');
  if (p.inputTokenProgram === TOKEN_2022_PROGRAM_ID) fail('recurring.token2022', `the input mint ${p.inputMint} is a Token-2022 mint`);
  if (p.outputTokenProgram === TOKEN_2022_PROGRAM_ID) fail('recurring.token2022', `the output mint ${p.outputMint} is a Token-2022 mint`);
  const t = p.params;
  if (t.inAmount <= 0n) fail('recurring.inAmount.positive', `inAmount must be greater than 0, got ${t.inAmount}`);
  if (t.inAmount > BigInt(Number.MAX_SAFE_INTEGER)) fail('recurring.inAmount.safeInteger', `inAmount ${t.inAmount} is sent as a JSON integer and must not exceed 2^53 - 1`);
  if (!Number.isSafeInteger(t.numberOfOrders) || t.numberOfOrders < RECURRING_MIN_ORDERS) {
    fail('recurring.numberOfOrders.min', `numberOfOrders must be an integer of at least ${RECURRING_MIN_ORDERS}, got ${t.numberOfOrders}`);
  }
  if (!Number.isSafeInteger(t.interval) || t.interval < 1) fail('recurring.interval.min', `interval must be an integer of at least 1 second, got ${t.interval}`);
  if (!Number.isFinite(p.inputUsdPrice) || p.inputUsdPrice <= 0) fail('recurring.inputUsdPrice.positive', `inputUsdPrice must be a positive number, got ${p.inputUsdPrice}`);
  if (!Number.isInteger(p.inputDecimals) || p.inputDecimals < 0 || p.inputDecimals > 255) fail('recurring.inputDecimals.range', `inputDecimals must be an integer from 0 to 255, got ${p.inputDecimals}`);
  // Number only for the USD comparison; the amount sent is the exact bigint.
  const totalUsd = toApproxNumber(t.inAmount, p.inputDecimals) * p.inputUsdPrice;
  if (totalUsd < RECURRING_MIN_TOTAL_USD) fail('recurring.total.minUsd', `the order is worth ${totalUsd.toFixed(2)} USD; the minimum is ${RECURRING_MIN_TOTAL_USD} USD`);
  const perOrderUsd = totalUsd / t.numberOfOrders;
  if (perOrderUsd < RECURRING_MIN_PER_ORDER_USD) {
    fail('recurring.perOrder.minUsd', `each of the ${t.numberOfOrders} cycles is worth ${perOrderUsd.toFixed(2)} USD; the minimum is ${RECURRING_MIN_PER_ORDER_USD} USD`);
  }
  for (const [name, value] of [['minPrice', t.minPrice], ['maxPrice', t.maxPrice]] as const) {
    if (value !== undefined && value !== null && !(Number.isFinite(value) && value > 0)) fail(`recurring.${name}.positive`, `${name} must be a positive number, got ${value}`);
  }
  if (t.minPrice != null && t.maxPrice != null && t.minPrice > t.maxPrice) fail('recurring.priceRange.order', `minPrice ${t.minPrice} is above maxPrice ${t.maxPrice}`);
  if (t.startAt != null) {
    if (!Number.isSafeInteger(t.startAt) || t.startAt <= 0) fail('recurring.startAt.integer', `startAt must be a positive integer of unix seconds, got ${t.startAt}`);
    // 1e11 s is the year 5138; anything larger is almost surely milliseconds.
    if (t.startAt >= 1e11) fail('recurring.startAt.seconds', `startAt looks like milliseconds (${t.startAt}); send unix seconds`);
  }
}

/**
 * POST /recurring/v1/createOrder: builds the unsigned transaction that deposits `inAmount` and opens a time-based
 * recurring (DCA) order. The minimums (at least 2 cycles, 100 USD in total, 50 USD per cycle, no Token-2022) are
 * checked first, so a refused order costs no request.
 */
export async function createRecurringOrder(client: JupiterTransport, params: CreateRecurringOrderParams, options: CallOptions = {}): Promise<RecurringTransaction> {
  checkRecurringOrderParams(params);
  const t = params.params;
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/recurring/v1/createOrder',
    body: {
      user: params.user,
      inputMint: params.inputMint,
      outputMint: params.outputMint,
      params: {
        time: {
          // The spec types these as int64 JSON integers; inAmount was checked to be a safe integer.
          inAmount: Number(t.inAmount),
          numberOfOrders: t.numberOfOrders,
          interval: t.interval,
          minPrice: t.minPrice ?? null,
          maxPrice: t.maxPrice ?? null,
          startAt: t.startAt ?? null,
        },
      },
    },
    schema: recurringTransactionResponseSchema,
    signal: options.signal,
  });
}
