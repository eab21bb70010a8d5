import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkAddress, contractQuantity, eventMetadataSchema, marketMetadataSummarySchema, microUsd, microUsdOrNull, unixSeconds } from './common.js';

/** Order account statuses the spec lists; other strings are passed through. */
export type PredictionOrderState = 'pending' | 'filled' | 'failed' | (string & {});

/** An on-chain order account (GET /orders, GET /orders/{orderPubkey}). Every *Usd value is micro-USD bigint. */
export const predictionOrderSchema = z.object({
  pubkey: z.string(),
  owner: z.string().optional(),
  ownerPubkey: z.string(),
  /** Market PDA. */
  market: z.string().optional(),
  marketId: z.string(),
  marketIdHash: z.string().optional(),
  eventId: z.string().nullish(),
  /** Position PDA. */
  position: z.string().optional(),
  status: z.string().transform((s): PredictionOrderState => s),
  isYes: z.boolean(),
  isBuy: z.boolean(),
  /** Unix seconds. */
  createdAt: unixSeconds,
  updatedAt: unixSeconds.optional(),
  contracts: contractQuantity,
  contractsMicro: contractQuantity.optional(),
  contractsDecimal: z.string().optional(),
  maxFillPriceUsd: microUsd.optional(),
  maxBuyPriceUsd: microUsdOrNull,
  minSellPriceUsd: microUsdOrNull,
  /** Unix seconds; 0 while pending. */
  filledAt: unixSeconds.optional(),
  filledContracts: contractQuantity.optional(),
  avgFillPriceUsd: microUsd.optional(),
  settled: z.boolean().optional(),
  orderId: z.string().nullish(),
  /** Notional, micro-USD. */
  sizeUsd: microUsd.optional(),
  eventMetadata: eventMetadataSchema.nullish(),
  marketMetadata: marketMetadataSummarySchema.nullish(),
  externalOrderId: z.string().nullish(),
  bump: z.number().int().nonnegative().optional(),
});
/** A parsed order account. */
export type PredictionOrder = z.output<typeof predictionOrderSchema>;

/** Parameters of GET /orders/{orderPubkey}. */
export interface GetPredictionOrderParams {
  orderPubkey: string;
}

/** The GET /orders/{orderPubkey} body. */
export const getPredictionOrderResponseSchema = predictionOrderSchema;

const ENDPOINT = 'prediction.getOrder';

/**
 * GET /prediction/v1/orders/{orderPubkey}: one open order account. Once filled, the account is closed and the
 * service answers 400 or 404 (BadRequestError / NotFoundError); use getPredictionOrderStatus for finished orders.
 */
export async function getPredictionOrder(client: JupiterTransport, params: GetPredictionOrderParams, options: CallOptions = {}): Promise<PredictionOrder> {
  checkAddress(ENDPOINT, 'orderPubkey', params.orderPubkey);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/orders/${encodeURIComponent(params.orderPubkey)}`,
    schema: getPredictionOrderResponseSchema,
    signal: options.signal,
  });
}
