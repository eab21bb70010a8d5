import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import type { JupiterError } from '../errors.js';
import { base64Tx } from '../schemas.js';
import { PREDICTION_PATH, checkAddress, contractQuantity, microUsd, txMetaSchema } from './common.js';
import { AlreadyClaimedError, ClaimNotRequiredError, MarketNotSettledError, readPredictionErrorBody } from './errors.js';

/** Body and path of POST /positions/{positionPubkey}/claim. */
export interface ClaimPredictionPositionParams {
  positionPubkey: string;
  ownerPubkey: string;
}

/**
 * The position a claim pays out; `payoutAmountUsd` is micro-USD ($1 per winning contract, no fee). `ownerPubkey`
 * is in the CLI's type but not in the docs' example rewritten to match the live API (jupiter-api.md §13 item 11):
 * both are read.
 */
export const claimedPositionSchema = z.object({
  positionPubkey: z.string(),
  marketPubkey: z.string().optional(),
  userPubkey: z.string().optional(),
  ownerPubkey: z.string().optional(),
  isYes: z.boolean(),
  /** Legacy whole contracts. */
  contracts: contractQuantity,
  contractsMicro: contractQuantity.optional(),
  contractsDecimal: z.string().optional(),
  payoutAmountUsd: microUsd,
});

/** ClaimPositionResponse: an unsigned claim transaction (required and non-empty), its txMeta and the position. */
export const claimPositionResponseSchema = z.object({
  transaction: base64Tx,
  txMeta: txMetaSchema,
  position: claimedPositionSchema,
});
/** A parsed claim build. */
export type PredictionClaimBuild = z.output<typeof claimPositionResponseSchema>;

const ENDPOINT = 'prediction.claimPosition';

/**
 * Turns the claim refusals a keeper must tell apart into typed errors, so no caller matches text: "Market not
 * settled yet" becomes MarketNotSettledError, "no claim required" ClaimNotRequiredError, "already claimed"
 * AlreadyClaimedError.
 */
export function claimErrorFromBody(status: number, body: unknown): JupiterError | undefined {
  if (status !== 400) return undefined;
  const read = readPredictionErrorBody(body);
  const text = read ? `${String(read.code ?? '')} ${read.message ?? ''}` : typeof body === 'string' ? body : '';
  const normalised = text.replace(/[_-]+/g, ' ').toLowerCase();
  if (/\bnot (yet )?settled\b/.test(normalised)) return new MarketNotSettledError(ENDPOINT, status, body);
  if (/\bno claim required\b/.test(normalised)) return new ClaimNotRequiredError(ENDPOINT, status, body);
  if (/\balready claimed\b/.test(normalised)) return new AlreadyClaimedError(ENDPOINT, status, body);
  return undefined;
}

/**
 * POST /prediction/v1/positions/{positionPubkey}/claim: builds the payout transaction of a winning position.
 * Throws MarketNotSettledError before settlement, ClaimNotRequiredError on auto-settling markets and
 * AlreadyClaimedError once the payout was claimed.
 */
export async function claimPredictionPosition(
  client: JupiterTransport,
  params: ClaimPredictionPositionParams,
  options: CallOptions = {},
): Promise<PredictionClaimBuild> {
  checkAddress(ENDPOINT, 'positionPubkey', params.positionPubkey);
  checkAddress(ENDPOINT, 'ownerPubkey', params.ownerPubkey);
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: `${PREDICTION_PATH}/positions/${encodeURIComponent(params.positionPubkey)}/claim`,
    body: { ownerPubkey: params.ownerPubkey },
    schema: claimPositionResponseSchema,
    mapError: claimErrorFromBody,
    signal: options.signal,
  });
}
