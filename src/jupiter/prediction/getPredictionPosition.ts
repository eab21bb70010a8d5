import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import {
  PREDICTION_PATH,
  checkAddress,
  contractQuantity,
  eventMetadataSchema,
  marketMetadataSummarySchema,
  microUsd,
  microUsdOrNull,
  signedMicroUsd,
  signedMicroUsdOrNull,
  unixSeconds,
} from './common.js';


/**
 * A position account (one per owner, market and side). Every *Usd value is micro-USD bigint; P&L may be negative.
 * `valueUsd`, `markPriceUsd` and the P&L fields become null once the market is closed.
 */
export const predictionPositionSchema = z.object({
  pubkey: z.string(),
  owner: z.string().optional(),
  ownerPubkey: z.string(),
  /** Market PDA. */
  market: z.string().optional(),
  marketId: z.string(),
  marketIdHash: z.string().optional(),
  isYes: z.boolean(),
  /** Legacy whole contracts (floored); use contractsMicro for the exact quantity. */
  contracts: contractQuantity,
  /** Micro-contracts (1,000,000 = 1 contract). */
  contractsMicro: contractQuantity.optional(),
  contractsDecimal: z.string().optional(),
  source: z.string().nullish(),
  maxSlippageBps: z.number().int().nonnegative().nullish(),
  totalCostUsd: microUsd,
  sizeUsd: microUsd.optional(),
  valueUsd: microUsdOrNull,
  avgPriceUsd: microUsd,
  markPriceUsd: microUsdOrNull,
  sellPriceUsd: microUsdOrNull,
  pnlUsd: signedMicroUsdOrNull,
  pnlUsdPercent: z.number().nullish(),
  pnlUsdAfterFees: signedMicroUsdOrNull,
  pnlUsdAfterFeesPercent: z.number().nullish(),
  openOrders: z.number().int().nonnegative().optional(),
  feesPaidUsd: microUsd.optional(),
  /** Realized P&L, micro-USD (sent as a JSON number). */
  realizedPnlUsd: signedMicroUsd.optional(),
  claimed: z.boolean(),
  claimedUsd: microUsd.optional(),
  /** Unix seconds. */
  openedAt: unixSeconds.optional(),
  updatedAt: unixSeconds.optional(),
  /** Unix seconds when claimable; null when unknown. */
  claimableAt: unixSeconds.nullish(),
  /** Max payout if the side wins (contracts x $1), micro-USD. */
  payoutUsd: microUsd,
  bump: z.number().int().nonnegative().optional(),
  eventId: z.string().nullish(),
  eventMetadata: eventMetadataSchema.nullish(),
  marketMetadata: marketMetadataSummarySchema.nullish(),
  /** Unix seconds; null when unknown. */
  settlementDate: unixSeconds.nullish(),
  /** True when the position qualifies for a payout claim. */
  claimable: z.boolean(),
});
/** A parsed position. */
export type PredictionPosition = z.output<typeof predictionPositionSchema>;

/** Parameters of GET /positions/{positionPubkey}. */
export interface GetPredictionPositionParams {
  positionPubkey: string;
}

/** The GET /positions/{positionPubkey} body. */
export const getPredictionPositionResponseSchema = predictionPositionSchema;

const ENDPOINT = 'prediction.getPosition';

/** GET /prediction/v1/positions/{positionPubkey}: one position. An unknown account throws NotFoundError. */
export async function getPredictionPosition(
  client: JupiterTransport,
  params: GetPredictionPositionParams,
  options: CallOptions = {},
): Promise<PredictionPosition> {
  checkAddress(ENDPOINT, 'positionPubkey', params.positionPubkey);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/positions/${encodeURIComponent(params.positionPubkey)}`,
    schema: getPredictionPositionResponseSchema,
    signal: options.signal,
  });
}
