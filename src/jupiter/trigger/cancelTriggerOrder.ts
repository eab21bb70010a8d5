import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { base64Tx, pubkey } from '../schemas.js';

const ENDPOINT = 'trigger.cancelOrder';

/** Body of POST /trigger/v1/cancelOrder. */
export interface CancelTriggerOrderParams {
  /** Wallet that owns the order. */
  maker: string;
  /** The order account (base58), as createOrder or getTriggerOrders returned it. */
  order: string;
  /** Priority fee in micro-lamports per compute unit, or `auto` (default). */
  computeUnitPrice?: number | 'auto' | undefined;
}

/** `{requestId, transaction}`: an unsigned transaction to sign and pass to execute with the requestId. */
export const triggerTransactionResponseSchema = z.object({
  requestId: z.string().min(1, 'requestId must not be empty'),
  transaction: base64Tx,
});

/** A parsed unsigned trigger transaction. */
export type TriggerTransaction = z.output<typeof triggerTransactionResponseSchema>;

/** Throws LimitError unless `value` is a base58 address; `rule` is e.g. `trigger.maker.address`. */
export function checkTriggerAddress(endpoint: string, name: string, value: string): void {
  if (!pubkey.safeParse(value).success) throw new LimitError(endpoint, `trigger.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
}

/** Throws LimitError unless the compute unit price is `auto` or a non-negative integer (micro-lamports). */
export function checkComputeUnitPrice(endpoint: string, cu: number | 'auto' | undefined): void {
  if (cu !== undefined && cu !== 'auto' && (!Number.isSafeInteger(cu) || cu < 0)) {
    throw new LimitError(endpoint, 'trigger.computeUnitPrice.integer', `computeUnitPrice must be "auto" or a non-negative integer of micro-lamports, got ${cu}`);
  }
}

/** POST /trigger/v1/cancelOrder: builds the unsigned transaction that cancels one open order. */
export async function cancelTriggerOrder(client: JupiterTransport, params: CancelTriggerOrderParams, options: CallOptions = {}): Promise<TriggerTransaction> {
  checkTriggerAddress(ENDPOINT, 'maker', params.maker);
  checkTriggerAddress(ENDPOINT, 'order', params.order);
  checkComputeUnitPrice(ENDPOINT, params.computeUnitPrice);
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/trigger/v1/cancelOrder',
    body: { maker: params.maker, order: params.order, computeUnitPrice: params.computeUnitPrice?.toString() },
    schema: triggerTransactionResponseSchema,
    signal: options.signal,
  });
}
