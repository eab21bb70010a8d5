import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';

/** Parameters of getStakedJup. */
export interface GetStakedJupParams {
  /** Wallet address. */
  address: string;
}

/**
 * The `/portfolio/v1/staked-jup/{address}` body. Amounts are JUP in UI units (floats, e.g. 15000.5) as the service
 * sends them: informational, never used to move funds.
 */
export const stakedJupResponseSchema = z.object({
  /** JUP staked, UI units. */
  stakedAmount: z.number().nonnegative(),
  /** Pending unstakes: `amount` JUP (UI units) available at `until` (ms). */
  unstaking: z.array(z.object({ amount: z.number().nonnegative(), until: z.number() })).default([]),
});
/** Parsed staked-JUP state. */
export type StakedJup = z.output<typeof stakedJupResponseSchema>;

/** GET /portfolio/v1/staked-jup/{address}: JUP staked in governance by a wallet, and its pending unstakes. */
export async function getStakedJup(client: JupiterTransport, params: GetStakedJupParams, options: CallOptions = {}): Promise<StakedJup> {
  if (!pubkey.safeParse(params.address).success) {
    throw new LimitError('portfolio.stakedJup', 'portfolio.stakedJup.address', `not a base58 wallet address: ${JSON.stringify(params.address)}`);
  }
  return client.request({
    endpoint: 'portfolio.stakedJup',
    method: 'GET',
    path: `/portfolio/v1/staked-jup/${params.address}`,
    schema: stakedJupResponseSchema,
    signal: options.signal,
  });
}
