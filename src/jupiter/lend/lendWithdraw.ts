import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendTransactionResponseSchema, postAmount, type LendAmountParams, type LendTransaction } from './shared.js';

/** Parameters of lendWithdraw: `{asset, signer, amount}`, amount in base units. */
export type LendWithdrawParams = LendAmountParams;

/** The /lend/v1/earn/withdraw body: `{transaction}`, a base64 unsigned versioned transaction. */
export const lendWithdrawResponseSchema = lendTransactionResponseSchema;

/**
 * POST /lend/v1/earn/withdraw: an unsigned transaction to withdraw `amount` base units of `asset`.
 * `amount` is sent as a digit string; it must be greater than 0 and both addresses valid, or LimitError is thrown
 * before any request.
 */
export async function lendWithdraw(client: JupiterTransport, params: LendWithdrawParams, options: CallOptions = {}): Promise<LendTransaction> {
  return postAmount(client, 'lend.withdraw', '/withdraw', params, lendWithdrawResponseSchema, options);
}
