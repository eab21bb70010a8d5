import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { u64Loose } from '../schemas.js';
import {
  PREDICTION_PATH,
  checkAddress,
  checkPagination,
  contractQuantity,
  eventMetadataSchema,
  marketMetadataSummarySchema,
  microUsdOrNull,
  paginationSchema,
  signedMicroUsdOrNull,
  unixSeconds,
} from './common.js';

/** History event types; there is no `position_won` (wins surface as `payout_claimed`). */
export type PredictionHistoryEventType =
  | 'order_created'
  | 'order_filled'
  | 'order_failed'
  | 'order_closed'
  | 'payout_claimed'
  | 'position_updated'
  | 'position_lost'
  | (string & {});

const quantityOrNull = contractQuantity.nullish().transform((v) => v ?? null);

/**
 * One history row. Money fields are micro-USD bigint or null (null also when a row type does not carry the field);
 * quantities are bigint (legacy whole contracts, or micro-contracts in the *Micro fields).
 */
export const predictionHistoryEventSchema = z.object({
  id: z.number().int(),
  eventType: z.string().transform((s): PredictionHistoryEventType => s),
  signature: z.string().nullish(),
  /** Slot (u64 string in the spec), as bigint. */
  slot: u64Loose.nullish(),
  /** Unix seconds. */
  timestamp: unixSeconds,
  orderPubkey: z.string().nullish(),
  positionPubkey: z.string().nullish(),
  marketId: z.string().nullish(),
  ownerPubkey: z.string(),
  keeperPubkey: z.string().nullish(),
  externalOrderId: z.string().nullish(),
  orderId: z.string().nullish(),
  isBuy: z.boolean(),
  isYes: z.boolean(),
  contracts: quantityOrNull,
  contractsMicro: quantityOrNull,
  contractsDecimal: z.string().nullish(),
  filledContracts: quantityOrNull,
  filledContractsMicro: quantityOrNull,
  filledContractsDecimal: z.string().nullish(),
  contractsSettled: quantityOrNull,
  contractsSettledMicro: quantityOrNull,
  contractsSettledDecimal: z.string().nullish(),
  maxFillPriceUsd: microUsdOrNull,
  avgFillPriceUsd: microUsdOrNull,
  maxBuyPriceUsd: microUsdOrNull,
  minSellPriceUsd: microUsdOrNull,
  depositAmountUsd: microUsdOrNull,
  totalCostUsd: microUsdOrNull,
  feeUsd: microUsdOrNull,
  grossProceedsUsd: microUsdOrNull,
  netProceedsUsd: microUsdOrNull,
  /** Native units of the deposit mint. */
  transferAmountToken: u64Loose.nullish().transform((v) => v ?? null),
  /** Realized P&L of this event, micro-USD; may be negative. */
  realizedPnl: signedMicroUsdOrNull,
  realizedPnlBeforeFees: signedMicroUsdOrNull,
  /** Set on payout_claimed rows. */
  payoutAmountUsd: microUsdOrNull,
  eventId: z.string().nullish(),
  marketMetadata: marketMetadataSummarySchema.nullish(),
  eventMetadata: eventMetadataSchema.nullish(),
});
/** A parsed history row. */
export type PredictionHistoryEvent = z.output<typeof predictionHistoryEventSchema>;

/** The GET /history body. */
export const getPredictionHistoryResponseSchema = z.object({
  data: z.array(predictionHistoryEventSchema),
  pagination: paginationSchema,
});
/** A parsed page of history. */
export type PredictionHistoryPage = z.output<typeof getPredictionHistoryResponseSchema>;

/** Query of GET /history. */
export interface GetPredictionHistoryParams {
  ownerPubkey?: string | undefined;
  /** One history row by id (a positive integer). */
  id?: number | undefined;
  positionPubkey?: string | undefined;
  start?: number | undefined;
  end?: number | undefined;
}

const ENDPOINT = 'prediction.getHistory';

/** GET /prediction/v1/history: fills, closes, claims and losses of a wallet or position. */
export async function getPredictionHistory(
  client: JupiterTransport,
  params: GetPredictionHistoryParams,
  options: CallOptions = {},
): Promise<PredictionHistoryPage> {
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey, false);
  checkAddress(ENDPOINT, 'positionPubkey', params.positionPubkey, false);
  if (params.id !== undefined && (!Number.isInteger(params.id) || params.id < 1)) {
    throw new LimitError(ENDPOINT, 'prediction.id.range', `id must be a positive integer, got ${params.id}`);
  }
  checkPagination(ENDPOINT, params.start, params.end);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/history`,
    query: { ownerPubkey: params.ownerPubkey, id: params.id, positionPubkey: params.positionPubkey, start: params.start, end: params.end },
    schema: getPredictionHistoryResponseSchema,
    signal: options.signal,
  });
}
