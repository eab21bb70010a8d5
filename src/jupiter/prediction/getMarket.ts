import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkId } from './common.js';
import { marketSchema, type Market } from './market.js';

/** Parameters of GET /markets/{marketId}. */
export interface GetMarketParams {
  /** e.g. `KXF1-25-LN` or a Polymarket id. */
  marketId: string;
}

/** The GET /markets/{marketId} body: one market in either shape, normalised. */
export const getMarketResponseSchema = marketSchema;

const ENDPOINT = 'prediction.getMarket';

/** GET /prediction/v1/markets/{marketId}: current status and micro-USD prices of one market. 404 throws NotFoundError. */
export async function getMarket(client: JupiterTransport, params: GetMarketParams, options: CallOptions = {}): Promise<Market> {
  checkId(ENDPOINT, 'marketId', params.marketId);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/markets/${encodeURIComponent(params.marketId)}`,
    schema: getMarketResponseSchema,
    signal: options.signal,
  });
}
