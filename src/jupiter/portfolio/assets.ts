import { z } from 'zod';
import { byType } from './byType.js';

/**
 * Building blocks of the Portfolio API (portfolio.yaml; the service is Sonar Watch's portfolio model). USD values
 * are floats and may be null when the service cannot price something ("unknown", not zero). Token quantities are
 * UI units (floats), not base units: this API reports valuations, never amounts that move.
 */

/** A USD valuation: a float, or null when unknown. A missing value is read as unknown (null). */
export const usdValue = z.number().nullable();
const usd = usdValue.default(null);

/** A yield as fractions (0.28 means 28 %). */
export const yieldSchema = z.object({
  apy: z.number().nullish(),
  apr: z.number().nullish(),
  description: z.string().nullish(),
});
/** A parsed yield. */
export type PortfolioYield = z.output<typeof yieldSchema>;

/** A reference to an on-chain account; `name` is e.g. `Pool`, `Vault`, `Lending Market` (a growing list). */
export const sourceRefSchema = z.object({ address: z.string(), name: z.string() });

/** Reference fields several portfolio objects carry. */
export const refFields = {
  contract: z.string().nullish(),
  ref: z.string().nullish(),
  sourceRefs: z.array(sourceRefSchema).nullish(),
  link: z.string().nullish(),
};

/** Asset attributes; all optional. */
export const assetAttributesSchema = z.object({
  /** Unlock date in ms; -1 means locked for an unknown period. */
  lockedUntil: z.number().nullish(),
  isDeprecated: z.boolean().nullish(),
  isClaimable: z.boolean().nullish(),
  tags: z.array(z.string()).nullish(),
  validator: z
    .object({ address: z.string(), name: z.string().nullish(), imageUri: z.string().nullish(), yields: z.array(yieldSchema).default([]) })
    .nullish(),
  prediction: z
    .object({
      market: z.object({ marketTitle: z.string(), eventTitle: z.string().nullish(), closeTime: z.number().nullish(), resolveAt: z.number().nullish() }),
      sideName: z.string(),
      feesPaidValue: z.number().nullish(),
      pnlValue: z.number().nullish(),
      pnlPercent: z.number().nullish(),
      pnlAfterFeesValue: z.number().nullish(),
      pnlAfterFeesPercent: z.number().nullish(),
      createdAt: z.number().nullish(),
    })
    .nullish(),
});

const assetCommon = {
  networkId: z.string().default('solana'),
  /** USD. */
  value: usd,
  attributes: assetAttributesSchema.default({}),
  name: z.string().nullish(),
  imageUri: z.string().nullish(),
  ref: z.string().nullish(),
  sourceRefs: z.array(sourceRefSchema).nullish(),
  link: z.string().nullish(),
};

const heldData = {
  address: z.string(),
  /** UI units (float). */
  amount: z.number(),
  /** USD per whole unit; null when unknown. */
  price: usd,
};

/** Asset types known to this client. */
export const PORTFOLIO_ASSET_TYPES = ['token', 'collectible', 'generic'] as const;

const knownAssetSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('token'),
    ...assetCommon,
    data: z.object({ ...heldData, yields: z.array(yieldSchema).nullish() }),
  }),
  z.object({
    type: z.literal('collectible'),
    ...assetCommon,
    data: z.object({
      ...heldData,
      name: z.string().nullish(),
      description: z.string().nullish(),
      imageUri: z.string().nullish(),
      dataUri: z.string().nullish(),
      attributes: z.array(z.record(z.string(), z.unknown())).nullish(),
      collection: z.object({ id: z.string().nullish(), floorPrice: usd, name: z.string().nullish() }).nullish(),
    }),
  }),
  z.object({
    type: z.literal('generic'),
    ...assetCommon,
    data: z
      .object({ address: z.string().nullish(), amount: z.number().nullish(), price: usdValue.nullish() })
      .default({}),
  }),
]);

/** An asset of a type this client does not know: kept with its value, its original type and raw data. */
const unknownAssetSchema = z
  .object({ type: z.string(), ...assetCommon, data: z.unknown() })
  .transform(({ type, ...rest }) => ({ ...rest, type: 'unknown' as const, originalType: type }));

/** A portfolio asset: `token`, `collectible`, `generic`, or `unknown` (an unrecognised type, kept generically). */
export const portfolioAssetSchema = byType(PORTFOLIO_ASSET_TYPES, knownAssetSchema, unknownAssetSchema);
/** A parsed portfolio asset. */
export type PortfolioAsset = z.output<typeof portfolioAssetSchema>;
