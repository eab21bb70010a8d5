import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkAddress } from './common.js';
import { createOrderResponseSchema, requireSignable, type SignablePredictionOrderBuild } from './createPredictionOrder.js';

/** Path and body of DELETE /positions/{positionPubkey}. */
export interface ClosePredictionPositionParams {
  positionPubkey: string;
  ownerPubkey: string;
}

/** The DELETE /positions/{positionPubkey} body: a CreateOrderResponse selling every contract. */
export const closePositionResponseSchema = createOrderResponseSchema;

const ENDPOINT = 'prediction.closePosition';

/**
 * DELETE /prediction/v1/positions/{positionPubkey}: builds an unsigned sell of the whole position. The service
 * sets the sell floor (`order.minSellPriceUsd`, micro-USD); check it before signing.
 */
export async function closePredictionPosition(
  client: JupiterTransport,
  params: ClosePredictionPositionParams,
  options: CallOptions = {},
): Promise<SignablePredictionOrderBuild> {
  checkAddress(ENDPOINT, 'positionPubkey', params.positionPubkey);
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  const build = await client.request({
    endpoint: ENDPOINT,
    method: 'DELETE',
    path: `${PREDICTION_PATH}/positions/${encodeURIComponent(params.positionPubkey)}`,
    body: { ownerPubkey: params.ownerPubkey },
    schema: closePositionResponseSchema,
    signal: options.signal,
  });
  return requireSignable(ENDPOINT, build);
}
