import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { i64Loose, maybe, pubkey } from '../schemas.js';
import { LEND_EARN_PATH } from './shared.js';

/** Parameters of getLendEarnings. */
export interface GetLendEarningsParams {
  /** The wallet. */
  user: string;
  /** jlToken mints of the positions to report; at least one, duplicates removed. */
  positions: readonly string[];
}

/**
 * Earnings of one position. Three shapes are documented (jupiter-api.md §7): the spec's `{address, ownerAddress,
 * earnings:number, slot:number}` and a third-party observation with `totalDeposits`, `totalWithdraws`,
 * `totalBalance`, `totalAssets` as strings. All but `address` and `earnings` are optional; numbers and digit strings
 * are both read.
 */
export const lendEarningSchema = z.object({
  /** The position's jlToken mint. */
  address: pubkey,
  ownerAddress: maybe(pubkey),
  /** Interest earned, base units of the underlying asset (signed, in case the service ever reports a loss). */
  earnings: i64Loose,
  /** Slot the figures were read at. */
  slot: maybe(z.number().int().nonnegative()),
  /** Base units of the underlying asset. */
  totalDeposits: maybe(i64Loose),
  /** Base units of the underlying asset. */
  totalWithdraws: maybe(i64Loose),
  /** Base units of the underlying asset. */
  totalBalance: maybe(i64Loose),
  /** Base units of the underlying asset. */
  totalAssets: maybe(i64Loose),
});

/** A parsed earnings entry; amounts are bigint base units, absent fields undefined or null. */
export type LendEarning = z.output<typeof lendEarningSchema>;

/**
 * The /lend/v1/earn/earnings body. The spec's schema says one object, its example and the docs an array
 * (jupiter-api.md §13.4): both are accepted and a single object becomes a one-element array.
 */
export const lendEarningsResponseSchema = z.preprocess(
  (body) => (Array.isArray(body) || body === null || typeof body !== 'object' ? body : [body]),
  z.array(lendEarningSchema),
);

/** GET /lend/v1/earn/earnings?user=&positions=a,b: interest earned by a wallet's positions, always as an array. */
export async function getLendEarnings(
  client: JupiterTransport,
  params: GetLendEarningsParams,
  options: CallOptions = {},
): Promise<LendEarning[]> {
  if (!pubkey.safeParse(params.user).success) {
    throw new LimitError('lend.earnings', 'lend.user.address', `user is not a base58 address: ${JSON.stringify(params.user)}`);
  }
  const positions = [...new Set(params.positions)];
  if (positions.length === 0) throw new LimitError('lend.earnings', 'lend.positions.empty', 'at least one position (jlToken mint) is required');
  for (const p of positions) {
    if (!pubkey.safeParse(p).success) {
      throw new LimitError('lend.earnings', 'lend.positions.address', `not a base58 jlToken address: ${JSON.stringify(p)}`);
    }
  }
  return client.request({
    endpoint: 'lend.earnings',
    method: 'GET',
    path: `${LEND_EARN_PATH}/earnings`,
    query: { user: params.user, positions: positions.join(',') },
    schema: lendEarningsResponseSchema,
    signal: options.signal,
  });
}
