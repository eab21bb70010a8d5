import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { pubkey, u64 } from '../schemas.js';
import { checkWalletAddress, nativeHoldingsResponseSchema, type GetHoldingsParams } from './getNativeHoldings.js';

/** One token account of a wallet. `amount` is bigint base units; `uiAmount` is for display only. */
export const holdingsTokenAccountSchema = z.object({
  account: pubkey,
  amount: u64,
  uiAmount: z.number().nullable(),
  uiAmountString: z.string(),
  isFrozen: z.boolean(),
  isAssociatedTokenAccount: z.boolean(),
  decimals: z.number().int().min(0).max(255),
  programId: pubkey,
  /** Lamports held by the account (its rent), per the official CLI type. */
  lamports: u64.optional(),
  /** Lamports recoverable by closing the account. */
  reclaimableLamports: u64.optional(),
  excludeFromNetWorth: z.boolean().optional(),
});
/** A parsed token account. */
export type HoldingsTokenAccount = z.output<typeof holdingsTokenAccountSchema>;

/** The /ultra/v1/holdings/{address} body: native SOL (lamports) plus token accounts keyed by mint. */
export const holdingsResponseSchema = nativeHoldingsResponseSchema.extend({
  tokens: z.record(z.string(), z.array(holdingsTokenAccountSchema)),
});
/** Parsed holdings: `amount` is native SOL in lamports; `tokens` maps mint to that mint's token accounts. */
export type Holdings = z.output<typeof holdingsResponseSchema>;

/** GET /ultra/v1/holdings/{address}: native SOL (lamports) and every token account, amounts in bigint base units. */
export async function getHoldings(client: JupiterTransport, params: GetHoldingsParams, options: CallOptions = {}): Promise<Holdings> {
  checkWalletAddress('ultra.holdings', params.address);
  return client.request({
    endpoint: 'ultra.holdings',
    method: 'GET',
    path: `/ultra/v1/holdings/${params.address}`,
    schema: holdingsResponseSchema,
    signal: options.signal,
  });
}
