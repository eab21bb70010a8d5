import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendInstructionsResponseSchema, postShares, type LendSharesParams, type LendInstructions } from './shared.js';

/** Parameters of lendRedeemInstructions: `{asset, signer, shares}`, shares in base units. */
export type LendRedeemInstructionsParams = LendSharesParams;

/** The /lend/v1/earn/redeem-instructions body, one instruction or `{instructions}`, normalised to `{instructions}`. */
export const lendRedeemInstructionsResponseSchema = lendInstructionsResponseSchema;

/**
 * POST /lend/v1/earn/redeem-instructions: the instructions to redeem exactly `shares` jlToken base units, for a transaction of one's own.
 * Always returned as `{instructions: ApiInstruction[]}`, whichever documented shape the service sent.
 */
export async function lendRedeemInstructions(
  client: JupiterTransport,
  params: LendRedeemInstructionsParams,
  options: CallOptions = {},
): Promise<LendInstructions> {
  return postShares(client, 'lend.redeemInstructions', '/redeem-instructions', params, lendRedeemInstructionsResponseSchema, options);
}
