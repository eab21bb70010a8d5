import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkAddress, checkPagination, paginationSchema } from './common.js';
import { predictionPositionSchema } from './getPredictionPosition.js';

/** Query of GET /positions. */
export interface GetPredictionPositionsParams {
  /** The wallet whose positions to list (the live service answers 400 without it). */
  ownerPubkey: string;
  /** Filter by market PDA. */
  marketPubkey?: string | undefined;
  /** Filter by market id. */
  marketId?: string | undefined;
  /** Filter by side. */
  isYes?: boolean | undefined;
  start?: number | undefined;
  end?: number | undefined;
}

/** The GET /positions body. */
export const getPredictionPositionsResponseSchema = z.object({
  data: z.array(predictionPositionSchema),
  pagination: paginationSchema,
});
/** A parsed page of positions. */
export type PredictionPositionsPage = z.output<typeof getPredictionPositionsResponseSchema>;

const ENDPOINT = 'prediction.getPositions';

/** GET /prediction/v1/positions: the wallet's positions, optionally filtered by market and side. */
export async function getPredictionPositions(
  client: JupiterTransport,
  params: GetPredictionPositionsParams,
  options: CallOptions = {},
): Promise<PredictionPositionsPage> {
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  checkAddress(ENDPOINT, 'marketPubkey', params.marketPubkey, false);
  checkPagination(ENDPOINT, params.start, params.end);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/positions`,
    query: {
      ownerPubkey: params.ownerPubkey,
      marketPubkey: params.marketPubkey,
      marketId: params.marketId,
      isYes: params.isYes === undefined ? undefined : String(params.isYes),
      start: params.start,
      end: params.end,
    },
    schema: getPredictionPositionsResponseSchema,
    signal: options.signal,
  });
}
