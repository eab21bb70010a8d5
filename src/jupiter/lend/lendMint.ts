import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendTransactionResponseSchema, postShares, type LendSharesParams, type LendTransaction } from './shared.js';

/** Parameters of lendMint: `{asset, signer, shares}`, shares in base units. */
export type LendMintParams = LendSharesParams;

/** The /lend/v1/earn/mint body: `{transaction}`, a base64 unsigned versioned transaction. */
export const lendMintResponseSchema = lendTransactionResponseSchema;

/**
 * POST /lend/v1/earn/mint: an unsigned transaction to mint exactly `shares` jlToken base units.
 * `shares` is sent as a digit string; it must be greater than 0 and both addresses valid, or LimitError is thrown
 * before any request.
 */
export async function lendMint(client: JupiterTransport, params: LendMintParams, options: CallOptions = {}): Promise<LendTransaction> {
  return postShares(client, 'lend.mint', '/mint', params, lendMintResponseSchema, options);
}
