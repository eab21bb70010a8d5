import type { CallOptions, JupiterTransport } from '../transport.js';
import { checkRecurringAddress, recurringTransactionResponseSchema, type RecurringTransaction } from './createRecurringOrder.js';

const ENDPOINT = 'recurring.cancelOrder';

/** Body of POST /recurring/v1/cancelOrder. */
export interface CancelRecurringOrderParams {
  /** The recurring order account (base58). */
  order: string;
  /** Wallet that owns the order. */
  user: string;
  /** Kind of the order; `time` by default (`price` orders are deprecated). */
  recurringType?: 'time' | 'price' | undefined;
}

/**
 * POST /recurring/v1/cancelOrder: builds the unsigned transaction that closes one recurring order and returns
 * the remaining deposit (one order per transaction).
 */
export async function cancelRecurringOrder(client: JupiterTransport, params: CancelRecurringOrderParams, options: CallOptions = {}): Promise<RecurringTransaction> {
  checkRecurringAddress(ENDPOINT, 'order', params.order);
  checkRecurringAddress(ENDPOINT, 'user', params.user);
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/recurring/v1/cancelOrder',
    body: { order: params.order, user: params.user, recurringType: params.recurringType ?? 'time' },
    schema: recurringTransactionResponseSchema,
    signal: options.signal,
  });
}
