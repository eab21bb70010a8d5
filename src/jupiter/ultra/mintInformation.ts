import { z } from 'zod';
import { tokenInfoSchema, tokenStatsSchema } from '../tokens/tokenInfo.js';

/**
 * The Ultra `/search` result: Tokens V2's MintInformation (tokens/tokenInfo.ts, one schema for both APIs) plus
 * `issuer` and `fees` (USD). `stats7d` and `stats30d` are already optional on the base schema.
 */
export const ultraMintInformationSchema = tokenInfoSchema.extend({
  issuer: z.string().nullish(),
  /** USD. */
  fees: z.number().nullish(),
  stats7d: tokenStatsSchema.nullish(),
  stats30d: tokenStatsSchema.nullish(),
});
/** A parsed Ultra search result. */
export type UltraMintInformation = z.output<typeof ultraMintInformationSchema>;
