import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey, u64Loose } from '../schemas.js';
import { LEND_EARN_PATH } from './shared.js';
import { lendTokenInfoSchema } from './getLendTokens.js';

/** Parameters of getLendPositions. */
export interface GetLendPositionsParams {
  /** Wallets whose positions to read; at least one, duplicates removed. */
  users: readonly string[];
}

/** One wallet's position in one jlToken (there is one entry per jlToken even when the balance is 0). */
export const lendPositionSchema = z.object({
  token: lendTokenInfoSchema,
  /** The wallet. */
  ownerAddress: pubkey,
  /** jlToken balance, base units of the jlToken. */
  shares: u64Loose,
  /** Underlying the shares are worth, interest included, base units of the asset. */
  underlyingAssets: u64Loose,
  /** Underlying still in the wallet, base units of the asset. */
  underlyingBalance: u64Loose,
  /** Base units of the asset. */
  allowance: u64Loose,
});

/** A parsed position; every amount is bigint in base units. */
export type LendPosition = z.output<typeof lendPositionSchema>;

/** The /lend/v1/earn/positions body: an array of positions. */
export const lendPositionsResponseSchema = z.array(lendPositionSchema);

/** GET /lend/v1/earn/positions?users=a,b: the Earn positions of one or more wallets. */
export async function getLendPositions(
  client: JupiterTransport,
  params: GetLendPositionsParams,
  options: CallOptions = {},
): Promise<LendPosition[]> {
  const users = [...new Set(params.users)];
  if (users.length === 0) throw new LimitError('lend.positions', 'lend.users.empty', 'at least one user wallet is required');
  for (const u of users) {
    if (!pubkey.safeParse(u).success) throw new LimitError('lend.positions', 'lend.users.address', `not a base58 address: ${JSON.stringify(u)}`);
  }
  return client.request({
    endpoint: 'lend.positions',
    method: 'GET',
    path: `${LEND_EARN_PATH}/positions`,
    query: { users: users.join(',') },
    schema: lendPositionsResponseSchema,
    signal: options.signal,
  });
}
