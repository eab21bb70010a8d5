import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendInstructionsResponseSchema, postAmount, type LendAmountParams, type LendInstructions } from './shared.js';

/** Parameters of lendDepositInstructions: `{asset, signer, amount}`, amount in base units. */
export type LendDepositInstructionsParams = LendAmountParams;

/** The /lend/v1/earn/deposit-instructions body, one instruction or `{instructions}`, normalised to `{instructions}`. */
export const lendDepositInstructionsResponseSchema = lendInstructionsResponseSchema;

/**
 * POST /lend/v1/earn/deposit-instructions: the instructions to deposit `amount` base units of `asset`, for a transaction of one's own.
 * Always returned as `{instructions: ApiInstruction[]}`, whichever documented shape the service sent.
 */
export async function lendDepositInstructions(
  client: JupiterTransport,
  params: LendDepositInstructionsParams,
  options: CallOptions = {},
): Promise<LendInstructions> {
  return postAmount(client, 'lend.depositInstructions', '/deposit-instructions', params, lendDepositInstructionsResponseSchema, options);
}
