import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { checkRecurringAddress, recurringTransactionResponseSchema, type RecurringTransaction } from './createRecurringOrder.js';

const ENDPOINT = 'recurring.priceDeposit';

/**
 * Body of POST /recurring/v1/priceDeposit.
 * @deprecated Price-based recurring orders are deprecated by Jupiter; use time-based orders.
 */
export interface PriceDepositParams {
  /** Wallet that owns the order. */
  user: string;
  /** The price-based recurring order account (base58). */
  order: string;
  /** Base units of the input mint to add; sent as a JSON integer, so at most 2^53 - 1. */
  amount: bigint;
}

/**
 * POST /recurring/v1/priceDeposit: builds the unsigned transaction that adds `amount` to a price-based order.
 * @deprecated Price-based recurring orders are deprecated by Jupiter; use time-based orders.
 */
export async function priceDeposit(client: JupiterTransport, params: PriceDepositParams, options: CallOptions = {}): Promise<RecurringTransaction> {
  checkRecurringAddress(ENDPOINT, 'user', params.user);
  checkRecurringAddress(ENDPOINT, 'order', params.order);
  if (params.amount <= 0n) throw new LimitError(ENDPOINT, 'recurring.amount.positive', `amount must be greater than 0, got ${params.amount}`);
  if (params.amount > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new LimitError(ENDPOINT, 'recurring.amount.safeInteger', `amount ${params.amount} is sent as a JSON integer and must not exceed 2^53 - 1`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/recurring/v1/priceDeposit',
    // The spec types amount as an int64 JSON integer; it was checked to be a safe integer.
    body: { user: params.user, order: params.order, amount: Number(params.amount) },
    schema: recurringTransactionResponseSchema,
    signal: options.signal,
  });
}
