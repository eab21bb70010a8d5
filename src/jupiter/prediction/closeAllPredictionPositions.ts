import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { PREDICTION_PATH, checkAddress, parseInto } from './common.js';
import { createOrderResponseSchema, type PredictionOrderBuild } from './createPredictionOrder.js';
import { claimPositionResponseSchema, type PredictionClaimBuild } from './claimPredictionPosition.js';

/** Body of DELETE /positions. */
export interface CloseAllPredictionPositionsParams {
  ownerPubkey: string;
  /** Slippage applied to each sell's floor, in bps (0 to 10,000). Required by the service. */
  minSellPriceSlippageBps: number;
}

/** One build of a close-all: a sell of an open position, or a claim of a settled winner. Tagged by `kind`. */
export type CloseAllItem = ({ kind: 'sell' } & PredictionOrderBuild) | ({ kind: 'claim' } & PredictionClaimBuild);

/** An item is a claim when it carries `position` and no `order`; otherwise it must be a sell build. */
const closeAllItemSchema = z.unknown().transform((v, ctx): CloseAllItem => {
  const isClaim = typeof v === 'object' && v !== null && 'position' in v && !('order' in v);
  if (isClaim) return { kind: 'claim', ...parseInto(claimPositionResponseSchema, v, ctx) };
  return { kind: 'sell', ...parseInto(createOrderResponseSchema, v, ctx) };
});

/** The DELETE /positions body: `{data: (CreateOrderResponse | ClaimPositionResponse)[]}`, each item tagged. */
export const closeAllPositionsResponseSchema = z.object({
  data: z.array(closeAllItemSchema),
});
/** Parsed close-all builds. */
export type CloseAllPositionsBuild = z.output<typeof closeAllPositionsResponseSchema>;

const ENDPOINT = 'prediction.closeAllPositions';

/**
 * DELETE /prediction/v1/positions: builds one unsigned transaction per open position (a sell, or a claim for a
 * settled winner). Each must be signed and sent separately.
 */
export async function closeAllPredictionPositions(
  client: JupiterTransport,
  params: CloseAllPredictionPositionsParams,
  options: CallOptions = {},
): Promise<CloseAllPositionsBuild> {
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  const bps = params.minSellPriceSlippageBps;
  if (!Number.isInteger(bps) || bps < 0 || bps > 10_000) {
    throw new LimitError(ENDPOINT, 'prediction.minSellPriceSlippageBps.range', `minSellPriceSlippageBps must be an integer from 0 to 10000, got ${bps}`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'DELETE',
    path: `${PREDICTION_PATH}/positions`,
    body: { ownerPubkey: params.ownerPubkey, minSellPriceSlippageBps: bps },
    schema: closeAllPositionsResponseSchema,
    signal: options.signal,
  });
}
