import { z } from 'zod';
import { pubkey } from '../schemas.js';

/**
 * The token object of Tokens V2 (`MintInformation`, jupiter-api.md §4). Only id, name, symbol and decimals are
 * required; everything else is optional and nullable because the service leaves fields out per token (authorities
 * appear only when not disabled, `apy` only for Earn assets, `audit.isSus` only when flagged). Unknown extra fields
 * are stripped. Prices, supplies and valuations are floats as the service sends them (informational, not amounts).
 */

const num = z.number().nullish();
const str = z.string().nullish();

/** Trading statistics over one interval; every field may be missing or null. Changes are in percent. */
export const tokenStatsSchema = z.object({
  priceChange: num,
  holderChange: num,
  liquidityChange: num,
  volumeChange: num,
  /** USD. */
  buyVolume: num,
  /** USD. */
  sellVolume: num,
  /** USD. */
  buyOrganicVolume: num,
  /** USD. */
  sellOrganicVolume: num,
  numBuys: num,
  numSells: num,
  numTraders: num,
  numOrganicBuyers: num,
  numNetBuyers: num,
});
/** Parsed trading statistics of one interval. */
export type TokenStats = z.output<typeof tokenStatsSchema>;

/** Audit facts. `isSus` is present only when the token is flagged; percentages are on a 0 to 100 scale. */
export const tokenAuditSchema = z.object({
  isSus: z.boolean().nullish(),
  mintAuthorityDisabled: z.boolean().nullish(),
  freezeAuthorityDisabled: z.boolean().nullish(),
  /** Percent of supply held by the top holders, 0 to 100. */
  topHoldersPercentage: num,
  /** Percent of supply held by the developer, 0 to 100. */
  devBalancePercentage: num,
  devMints: num,
});
/** Parsed audit facts. */
export type TokenAudit = z.output<typeof tokenAuditSchema>;

/** Organic score labels documented by the service (others are kept as plain strings). */
export const ORGANIC_SCORE_LABELS = ['high', 'medium', 'low'] as const;

/** One token as Tokens V2 returns it. */
export const tokenInfoSchema = z.object({
  /** Mint address. */
  id: pubkey,
  name: z.string(),
  symbol: z.string(),
  decimals: z.number().int().min(0).max(255),
  icon: str,
  tokenProgram: str,
  /** ISO timestamp. */
  createdAt: str,
  twitter: str,
  telegram: str,
  website: str,
  discord: str,
  instagram: str,
  tiktok: str,
  otherUrl: str,
  /** Developer wallet. */
  dev: str,
  /** Present only while the mint authority is not disabled. */
  mintAuthority: str,
  /** Present only while the freeze authority is not disabled. */
  freezeAuthority: str,
  /** Circulating supply in UI units (float). */
  circSupply: num,
  /** Total supply in UI units (float). */
  totalSupply: num,
  launchpad: str,
  partnerConfig: str,
  graduatedPool: str,
  graduatedAt: str,
  holderCount: num,
  /** Fully diluted valuation, USD. */
  fdv: num,
  /** Market cap, USD. */
  mcap: num,
  /** USD per whole token. */
  usdPrice: num,
  priceBlockId: num,
  /** Liquidity, USD. */
  liquidity: num,
  /** Only for Jupiter Lend Earn assets. */
  apy: z.object({ jupEarn: num }).nullish(),
  stats5m: tokenStatsSchema.nullish(),
  stats1h: tokenStatsSchema.nullish(),
  stats6h: tokenStatsSchema.nullish(),
  stats24h: tokenStatsSchema.nullish(),
  /** Sent by Ultra's search only. */
  stats7d: tokenStatsSchema.nullish(),
  /** Sent by Ultra's search only. */
  stats30d: tokenStatsSchema.nullish(),
  firstPool: z.object({ id: str, createdAt: str }).nullish(),
  audit: tokenAuditSchema.nullish(),
  /** 0 to 100. */
  organicScore: num,
  /** `high`, `medium` or `low` (see ORGANIC_SCORE_LABELS); kept as a string so a new label breaks nothing. */
  organicScoreLabel: str,
  isVerified: z.boolean().nullish(),
  /** e.g. `community`, `strict`, `verified`, `lst`. */
  tags: z.array(z.string()).nullish(),
  /** ISO timestamp with up to nanosecond precision. */
  updatedAt: str,
  /** Observed, undocumented. */
  ctLikes: num,
  /** Observed, undocumented. */
  smartCtLikes: num,
  /** Observed, undocumented: exchanges listing the token, e.g. `["Binance","Bybit"]`. */
  cexes: z.array(z.string()).nullish(),
  /** Observed, undocumented: bonding-curve progress of launchpad tokens. */
  bondingCurve: num,
});

/** A parsed Tokens V2 token. */
export type TokenInfo = z.output<typeof tokenInfoSchema>;

/** A list of tokens: the body of search, tag, category and recent. */
export const tokenListSchema = z.array(tokenInfoSchema);
