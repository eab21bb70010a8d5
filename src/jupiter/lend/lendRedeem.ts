import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendTransactionResponseSchema, postShares, type LendSharesParams, type LendTransaction } from './shared.js';

/** Parameters of lendRedeem: `{asset, signer, shares}`, shares in base units. */
export type LendRedeemParams = LendSharesParams;

/** The /lend/v1/earn/redeem body: `{transaction}`, a base64 unsigned versioned transaction. */
export const lendRedeemResponseSchema = lendTransactionResponseSchema;

/**
 * POST /lend/v1/earn/redeem: an unsigned transaction to redeem exactly `shares` jlToken base units.
 * `shares` is sent as a digit string; it must be greater than 0 and both addresses valid, or LimitError is thrown
 * before any request.
 */
export async function lendRedeem(client: JupiterTransport, params: LendRedeemParams, options: CallOptions = {}): Promise<LendTransaction> {
  return postShares(client, 'lend.redeem', '/redeem', params, lendRedeemResponseSchema, options);
}
