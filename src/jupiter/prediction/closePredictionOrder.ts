import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { base64Tx } from '../schemas.js';
import { PREDICTION_PATH, checkAddress, executionSchema, txMetaSchema } from './common.js';

/**
 * Body of DELETE /orders. The published OpenAPI has no such operation (only the service spec and the docs' page
 * summary name it, without a body); `{ownerPubkey, orderPubkey}` follows the shape of the position DELETEs.
 */
export interface ClosePredictionOrderParams {
  ownerPubkey: string;
  orderPubkey: string;
}

/**
 * The DELETE /orders body as far as known: an unsigned transaction that closes the order account and returns the
 * unfilled deposit. The transaction is required; the rest is optional.
 */
export const closeOrderResponseSchema = z.object({
  transaction: base64Tx,
  txMeta: txMetaSchema.nullish(),
  requiredSigners: z.array(z.string()).optional(),
  execution: executionSchema.nullish(),
  orderPubkey: z.string().optional(),
});
/** A parsed order-close build. */
export type PredictionOrderCloseBuild = z.output<typeof closeOrderResponseSchema>;

const ENDPOINT = 'prediction.closeOrder';

/** DELETE /prediction/v1/orders: builds an unsigned transaction closing a not (fully) filled order; funds return to the owner. */
export async function closePredictionOrder(
  client: JupiterTransport,
  params: ClosePredictionOrderParams,
  options: CallOptions = {},
): Promise<PredictionOrderCloseBuild> {
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  checkAddress(ENDPOINT, 'orderPubkey', params.orderPubkey);
  return client.request({
    endpoint: ENDPOINT,
    method: 'DELETE',
    path: `${PREDICTION_PATH}/orders`,
    body: { ownerPubkey: params.ownerPubkey, orderPubkey: params.orderPubkey },
    schema: closeOrderResponseSchema,
    signal: options.signal,
  });
}
