import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { base64Tx } from '../schemas.js';
import { checkComputeUnitPrice, checkTriggerAddress } from './cancelTriggerOrder.js';

const ENDPOINT = 'trigger.cancelOrders';

/** Body of POST /trigger/v1/cancelOrders. */
export interface CancelTriggerOrdersParams {
  /** Wallet that owns the orders. */
  maker: string;
  /**
   * Order accounts to cancel. Omit it to cancel ALL open orders of the maker; an empty list is refused (LimitError)
   * so that an empty selection never turns into "cancel everything".
   */
  orders?: readonly string[] | undefined;
  /** Priority fee in micro-lamports per compute unit, or `auto` (default). */
  computeUnitPrice?: number | 'auto' | undefined;
}

/** The /trigger/v1/cancelOrders body: one requestId for every transaction (5 cancel instructions per transaction). */
export const cancelTriggerOrdersResponseSchema = z.object({
  requestId: z.string().min(1, 'requestId must not be empty'),
  transactions: z.array(base64Tx),
});

/** Unsigned cancel transactions; execute each with the same requestId. */
export type TriggerCancelTransactions = z.output<typeof cancelTriggerOrdersResponseSchema>;

/** POST /trigger/v1/cancelOrders: builds the unsigned transactions that cancel several (or all) open orders. */
export async function cancelTriggerOrders(client: JupiterTransport, params: CancelTriggerOrdersParams, options: CallOptions = {}): Promise<TriggerCancelTransactions> {
  checkTriggerAddress(ENDPOINT, 'maker', params.maker);
  checkComputeUnitPrice(ENDPOINT, params.computeUnitPrice);
  let orders: string[] | undefined;
  if (params.orders !== undefined) {
    if (params.orders.length === 0) {
      throw new LimitError(ENDPOINT, 'trigger.orders.empty', 'orders is an empty list; omit it to cancel all open orders');
    }
    orders = [...new Set(params.orders)];
    for (const order of orders) checkTriggerAddress(ENDPOINT, 'orders', order);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/trigger/v1/cancelOrders',
    body: { maker: params.maker, orders, computeUnitPrice: params.computeUnitPrice?.toString() },
    schema: cancelTriggerOrdersResponseSchema,
    signal: options.signal,
  });
}
