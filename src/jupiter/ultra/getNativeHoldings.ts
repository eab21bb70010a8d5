import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey, u64 } from '../schemas.js';

/** The /ultra/v1/holdings/{address}/native body: native SOL, `amount` in lamports (bigint). */
export const nativeHoldingsResponseSchema = z.object({
  amount: u64,
  /** SOL, for display only. */
  uiAmount: z.number().nullable(),
  uiAmountString: z.string(),
});
/** A parsed native SOL balance. */
export type NativeHoldings = z.output<typeof nativeHoldingsResponseSchema>;

/** Parameters of getHoldings and getNativeHoldings. */
export interface GetHoldingsParams {
  /** The wallet (not a token account). */
  address: string;
}

/** Throws LimitError unless `address` is a base58 wallet address (it goes into the path). */
export function checkWalletAddress(endpoint: string, address: string): void {
  if (!pubkey.safeParse(address).success) {
    throw new LimitError(endpoint, 'holdings.address', `not a base58 wallet address: ${JSON.stringify(address)}`);
  }
}

/** GET /ultra/v1/holdings/{address}/native: the wallet's native SOL balance, `amount` in lamports (bigint). */
export async function getNativeHoldings(client: JupiterTransport, params: GetHoldingsParams, options: CallOptions = {}): Promise<NativeHoldings> {
  checkWalletAddress('ultra.holdingsNative', params.address);
  return client.request({
    endpoint: 'ultra.holdingsNative',
    method: 'GET',
    path: `/ultra/v1/holdings/${params.address}/native`,
    schema: nativeHoldingsResponseSchema,
    signal: options.signal,
  });
}
