import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendInstructionsResponseSchema, postShares, type LendSharesParams, type LendInstructions } from './shared.js';

/** Parameters of lendMintInstructions: `{asset, signer, shares}`, shares in base units. */
export type LendMintInstructionsParams = LendSharesParams;

/** The /lend/v1/earn/mint-instructions body, one instruction or `{instructions}`, normalised to `{instructions}`. */
export const lendMintInstructionsResponseSchema = lendInstructionsResponseSchema;

/**
 * POST /lend/v1/earn/mint-instructions: the instructions to mint exactly `shares` jlToken base units, for a transaction of one's own.
 * Always returned as `{instructions: ApiInstruction[]}`, whichever documented shape the service sent.
 */
export async function lendMintInstructions(
  client: JupiterTransport,
  params: LendMintInstructionsParams,
  options: CallOptions = {},
): Promise<LendInstructions> {
  return postShares(client, 'lend.mintInstructions', '/mint-instructions', params, lendMintInstructionsResponseSchema, options);
}
