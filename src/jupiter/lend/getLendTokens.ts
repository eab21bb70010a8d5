import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { i64Loose, looseNumber, maybe, pubkey, u64Loose } from '../schemas.js';
import { LEND_EARN_PATH } from './shared.js';

const chainIdSchema = maybe(z.union([z.string(), z.number()]));

/**
 * The underlying asset of a jlToken. Observed responses use camelCase (`chainId`, `logoUrl`, `coingeckoId`,
 * `updatedAt`), the spec snake_case (`chain_id`, `logo_url`, `coingecko_id`) (jupiter-api.md §13.4); both are read
 * and normalised to camelCase. `price` is USD per whole token, sent as a decimal string (observed) or a number (spec).
 */
export const lendAssetSchema = z
  .object({
    address: pubkey,
    name: maybe(z.string()),
    symbol: z.string(),
    decimals: z.number().int().min(0).max(255),
    price: maybe(looseNumber),
    chainId: chainIdSchema,
    chain_id: chainIdSchema,
    logoUrl: maybe(z.string()),
    logo_url: maybe(z.string()),
    coingeckoId: maybe(z.string()),
    coingecko_id: maybe(z.string()),
    updatedAt: maybe(z.string()),
  })
  .transform((a) => ({
    address: a.address,
    name: a.name ?? undefined,
    symbol: a.symbol,
    decimals: a.decimals,
    price: a.price ?? undefined,
    chainId: optionalString(a.chainId ?? a.chain_id),
    logoUrl: a.logoUrl ?? a.logo_url ?? undefined,
    coingeckoId: a.coingeckoId ?? a.coingecko_id ?? undefined,
    updatedAt: a.updatedAt ?? undefined,
  }));

/** A parsed underlying asset, camelCase whatever the service sent; `price` in USD per whole token, `chainId` a string. */
export type LendAsset = z.output<typeof lendAssetSchema>;

function optionalString(v: string | number | null | undefined): string | undefined {
  return v === null || v === undefined ? undefined : String(v);
}

/**
 * Withdrawal state of the asset on the liquidity layer. Read tolerantly (every field optional, the object nullable),
 * but a present amount must still be an integer: raw amounts become bigint.
 */
export const liquiditySupplyDataSchema = z.object({
  modeWithInterest: maybe(z.boolean()),
  supply: maybe(u64Loose),
  withdrawalLimit: maybe(u64Loose),
  /** Unix seconds. */
  lastUpdateTimestamp: maybe(looseNumber),
  expandPercent: maybe(looseNumber),
  /** Seconds. */
  expandDuration: maybe(looseNumber),
  baseWithdrawalLimit: maybe(u64Loose),
  withdrawableUntilLimit: maybe(u64Loose),
  withdrawable: maybe(u64Loose),
});

/**
 * A rate on the 1e4 scale, i.e. in basis points of yearly yield: observed `"110"` means 1.10% APY. Integer strings
 * are what the service sends; decimal strings and numbers (the spec example's synthetic `"0.035"`) are read on the
 * same scale, never guessed at.
 */
export const rateBpsSchema = looseNumber;

/** A lending id: an integer from 1 (a digit string is accepted too; the spec example's mint is not). */
const lendIdSchema = z.union([
  z.number().int().positive(),
  z
    .string()
    .regex(/^\d+$/, 'expected an integer lending id')
    .transform((s) => Number(s)),
]);

/** One jlToken as /tokens (and each position's `token`) returns it (jupiter-api.md §7). */
export const lendTokenInfoSchema = z.object({
  /** Lending id, from 1. */
  id: lendIdSchema,
  /** jlToken mint, e.g. jlUSDC `9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D`. */
  address: pubkey,
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int().min(0).max(255),
  /** Underlying mint. */
  assetAddress: pubkey,
  asset: lendAssetSchema,
  /** Underlying held by the vault, base units of the asset (interest included). */
  totalAssets: u64Loose,
  /** jlTokens in circulation, base units of the jlToken. */
  totalSupply: u64Loose,
  /** Shares per whole underlying token, as sent (observed 1e6-scaled integers such as 959612; the spec shows a ratio). */
  convertToShares: maybe(looseNumber),
  /** Underlying per whole share, as sent (observed 1e6-scaled, e.g. 1042088). */
  convertToAssets: maybe(looseNumber),
  /** Rewards APY in basis points (110 = 1.10%). */
  rewardsRate: rateBpsSchema,
  /** Supply APY in basis points. */
  supplyRate: rateBpsSchema,
  /** rewardsRate + supplyRate, in basis points. */
  totalRate: rateBpsSchema,
  /** Raw, signed; absent on some responses. */
  rebalanceDifference: maybe(i64Loose),
  liquiditySupplyData: maybe(liquiditySupplyDataSchema),
});

/** A parsed jlToken. Amounts are bigint base units, rates numbers in basis points. */
export type LendTokenInfo = z.output<typeof lendTokenInfoSchema>;

/** The /lend/v1/earn/tokens body: an array of jlTokens. */
export const lendTokensResponseSchema = z.array(lendTokenInfoSchema);

/** Parameters of getLendTokens: none (the endpoint takes no query). */
export type GetLendTokensParams = Record<string, never>;

/** GET /lend/v1/earn/tokens: every jlToken that can be deposited into, with its rates (bps) and totals (base units). */
export async function getLendTokens(
  client: JupiterTransport,
  _params: GetLendTokensParams = {},
  options: CallOptions = {},
): Promise<LendTokenInfo[]> {
  return client.request({
    endpoint: 'lend.tokens',
    method: 'GET',
    path: `${LEND_EARN_PATH}/tokens`,
    schema: lendTokensResponseSchema,
    signal: options.signal,
  });
}
