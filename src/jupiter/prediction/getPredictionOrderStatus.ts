import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkAddress, unixSeconds } from './common.js';

/** Fill states of an order: `created`, `partiallyfilled`, `filled`, `failed` (early polls may see `pending`). */
export type PredictionFillStatus = 'created' | 'partiallyfilled' | 'filled' | 'failed' | 'pending' | (string & {});

const fillStatus = z.string().transform((s): PredictionFillStatus => s);

/** One event of an order's history. */
export const orderStatusEventSchema = z.object({
  eventType: z.string(),
  status: fillStatus,
  rawStatus: z.string().nullish(),
  /** Unix seconds. */
  timestamp: unixSeconds,
  signature: z.string().nullish(),
  externalOrderId: z.string().nullish(),
  orderId: z.string().nullish(),
});

/** The GET /orders/status/{orderPubkey} body: latest status plus the event history. */
export const orderStatusResponseSchema = z.object({
  orderPubkey: z.string(),
  status: fillStatus,
  latestEventType: z.string().nullish(),
  latestSignature: z.string().nullish(),
  externalOrderId: z.string().nullish(),
  orderId: z.string().nullish(),
  history: z.array(orderStatusEventSchema),
});
/** A parsed order status. */
export type PredictionOrderStatus = z.output<typeof orderStatusResponseSchema>;

/** Parameters of GET /orders/status/{orderPubkey}. */
export interface GetPredictionOrderStatusParams {
  orderPubkey: string;
}

const ENDPOINT = 'prediction.getOrderStatus';

/**
 * GET /prediction/v1/orders/status/{orderPubkey}: fill status and history, also for closed orders. Polling right
 * after submission can give 404 ("no order history found", NotFoundError): poll again a few slots later.
 */
export async function getPredictionOrderStatus(
  client: JupiterTransport,
  params: GetPredictionOrderStatusParams,
  options: CallOptions = {},
): Promise<PredictionOrderStatus> {
  checkAddress(ENDPOINT, 'orderPubkey', params.orderPubkey);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/orders/status/${encodeURIComponent(params.orderPubkey)}`,
    schema: orderStatusResponseSchema,
    signal: options.signal,
  });
}
