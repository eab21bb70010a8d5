import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkAddress, checkPagination, paginationSchema } from './common.js';
import { predictionOrderSchema } from './getPredictionOrder.js';

/** Query of GET /orders. */
export interface GetPredictionOrdersParams {
  /** The wallet whose orders to list (the live service requires it). */
  ownerPubkey: string;
  start?: number | undefined;
  end?: number | undefined;
}

/** The GET /orders body. */
export const getPredictionOrdersResponseSchema = z.object({
  data: z.array(predictionOrderSchema),
  pagination: paginationSchema,
});
/** A parsed page of orders. */
export type PredictionOrdersPage = z.output<typeof getPredictionOrdersResponseSchema>;

const ENDPOINT = 'prediction.getOrders';

/** GET /prediction/v1/orders: the wallet's open order accounts. */
export async function getPredictionOrders(client: JupiterTransport, params: GetPredictionOrdersParams, options: CallOptions = {}): Promise<PredictionOrdersPage> {
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  checkPagination(ENDPOINT, params.start, params.end);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/orders`,
    query: { ownerPubkey: params.ownerPubkey, start: params.start, end: params.end },
    schema: getPredictionOrdersResponseSchema,
    signal: options.signal,
  });
}
