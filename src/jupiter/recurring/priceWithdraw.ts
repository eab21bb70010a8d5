import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { checkRecurringAddress, recurringTransactionResponseSchema, type RecurringTransaction } from './createRecurringOrder.js';

const ENDPOINT = 'recurring.priceWithdraw';

/**
 * Body of POST /recurring/v1/priceWithdraw.
 * @deprecated Price-based recurring orders are deprecated by Jupiter; use time-based orders.
 */
export interface PriceWithdrawParams {
  /** Wallet that owns the order. */
  user: string;
  /** The price-based recurring order account (base58). */
  order: string;
  /** `In` withdraws unspent input, `Out` withdraws received output. */
  inputOrOutput: 'In' | 'Out';
  /** Base units to withdraw (sent as a digit string, as the spec types it); omitted withdraws everything. */
  amount?: bigint | undefined;
}

/**
 * POST /recurring/v1/priceWithdraw: builds the unsigned transaction that withdraws from a price-based order.
 * @deprecated Price-based recurring orders are deprecated by Jupiter; use time-based orders.
 */
export async function priceWithdraw(client: JupiterTransport, params: PriceWithdrawParams, options: CallOptions = {}): Promise<RecurringTransaction> {
  checkRecurringAddress(ENDPOINT, 'user', params.user);
  checkRecurringAddress(ENDPOINT, 'order', params.order);
  if (params.amount !== undefined && params.amount <= 0n) {
    throw new LimitError(ENDPOINT, 'recurring.amount.positive', `amount must be greater than 0 (omit it to withdraw everything), got ${params.amount}`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/recurring/v1/priceWithdraw',
    body: { user: params.user, order: params.order, inputOrOutput: params.inputOrOutput, amount: params.amount?.toString() },
    schema: recurringTransactionResponseSchema,
    signal: options.signal,
  });
}
