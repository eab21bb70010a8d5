import type { CallOptions, JupiterTransport } from '../transport.js';
import { lendTransactionResponseSchema, postAmount, type LendAmountParams, type LendTransaction } from './shared.js';

/** Parameters of lendDeposit: `{asset, signer, amount}`, amount in base units. */
export type LendDepositParams = LendAmountParams;

/** The /lend/v1/earn/deposit body: `{transaction}`, a base64 unsigned versioned transaction. */
export const lendDepositResponseSchema = lendTransactionResponseSchema;

/**
 * POST /lend/v1/earn/deposit: an unsigned transaction to deposit `amount` base units of `asset`.
 * `amount` is sent as a digit string; it must be greater than 0 and both addresses valid, or LimitError is thrown
 * before any request.
 */
export async function lendDeposit(client: JupiterTransport, params: LendDepositParams, options: CallOptions = {}): Promise<LendTransaction> {
  return postAmount(client, 'lend.deposit', '/deposit', params, lendDepositResponseSchema, options);
}
