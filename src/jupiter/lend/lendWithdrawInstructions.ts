import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendInstructionsResponseSchema, postAmount, type LendAmountParams, type LendInstructions } from './shared.js';

/** Parameters of lendWithdrawInstructions: `{asset, signer, amount}`, amount in base units. */
export type LendWithdrawInstructionsParams = LendAmountParams;

/** The /lend/v1/earn/withdraw-instructions body, one instruction or `{instructions}`, normalised to `{instructions}`. */
export const lendWithdrawInstructionsResponseSchema = lendInstructionsResponseSchema;

/**
 * POST /lend/v1/earn/withdraw-instructions: the instructions to withdraw `amount` base units of `asset`, for a transaction of one's own.
 * Always returned as `{instructions: ApiInstruction[]}`, whichever documented shape the service sent.
 */
export async function lendWithdrawInstructions(
  client: JupiterTransport,
  params: LendWithdrawInstructionsParams,
  options: CallOptions = {},
): Promise<LendInstructions> {
  return postAmount(client, 'lend.withdrawInstructions', '/withdraw-instructions', params, lendWithdrawInstructionsResponseSchema, options);
}
