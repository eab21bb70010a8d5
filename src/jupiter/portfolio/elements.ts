import { z } from 'zod';
import { byType } from './byType.js';
import { portfolioAssetSchema, refFields, usdValue, yieldSchema } from './assets.js';

/** Portfolio elements (positions), discriminated by `type` (portfolio.yaml). USD values are floats or null. */

const usd = usdValue.default(null);
const assets = z.array(portfolioAssetSchema);

/** Element labels documented by the service; `label` is kept as a string so a new label breaks nothing. */
export const PORTFOLIO_ELEMENT_LABELS = [
  'Wallet', 'Staked', 'LiquidityPool', 'Farming', 'Vault', 'Lending', 'Vesting', 'Deposit', 'Rewards', 'Airdrop',
  'Margin', 'LimitOrder', 'DCA', 'SmartDCA', 'Leverage',
] as const;

/** Fields every element has. */
const elementCommon = {
  networkId: z.string().default('solana'),
  platformId: z.string(),
  /** USD; null when unknown (a missing value is read as unknown). */
  value: usd,
  label: z.string(),
  name: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
  /** Net APY as a fraction (0.28 means 28 %). */
  netApy: z.number().nullish(),
};

/** One liquidity position (pool share) of a `liquidity` element. */
export const portfolioLiquiditySchema = z.object({
  assets,
  assetsValue: usd,
  rewardAssets: assets.default([]),
  rewardAssetsValue: usd,
  value: usd,
  yields: z.array(yieldSchema).default([]),
  /** LP token held; `amount` in UI units. */
  lp: z.object({ mint: z.string(), amount: z.number() }).nullish(),
  name: z.string().nullish(),
  ...refFields,
});

const levPositionFields = {
  address: z.string().nullish(),
  name: z.string().nullish(),
  imageUri: z.string().nullish(),
  side: z.enum(['long', 'short']),
  entryPrice: usd,
  markPrice: usd,
  /** UI units of the leveraged asset. */
  size: z.number(),
  sizeValue: usd,
  pnlValue: usd,
  liquidationPrice: usd,
  leverage: z.number().nullish(),
  tp: z.number().nullish(),
  sl: z.number().nullish(),
  value: usd,
  ref: z.string().nullish(),
  sourceRefs: refFields.sourceRefs,
};

/** An isolated leveraged position. */
export const isolatedPositionSchema = z.object({ ...levPositionFields, collateralValue: usd });
/** A cross-margin leveraged position. */
export const crossPositionSchema = z.object(levPositionFields);

/** Element types known to this client. */
export const PORTFOLIO_ELEMENT_TYPES = ['multiple', 'liquidity', 'leverage', 'borrowlend', 'trade'] as const;

const knownElementSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('multiple'),
    ...elementCommon,
    data: z.object({ assets, assetsYields: z.array(z.array(yieldSchema)).nullish(), ...refFields }),
  }),
  z.object({
    type: z.literal('liquidity'),
    ...elementCommon,
    data: z.object({ liquidities: z.array(portfolioLiquiditySchema) }),
  }),
  z.object({
    type: z.literal('leverage'),
    ...elementCommon,
    data: z.object({
      isolated: z.object({ positions: z.array(isolatedPositionSchema), value: usd }).nullish(),
      cross: z
        .object({
          leverage: z.number().nullish(),
          collateralAssets: assets.nullish(),
          collateralValue: usd,
          positions: z.array(crossPositionSchema),
          value: usd,
        })
        .nullish(),
      /** Total equity, USD. */
      value: usd,
      ...refFields,
    }),
  }),
  z.object({
    type: z.literal('borrowlend'),
    ...elementCommon,
    data: z.object({
      value: usd,
      suppliedAssets: assets,
      borrowedAssets: assets,
      rewardAssets: assets.default([]),
      unsettled: z.object({ assets, value: usd }).nullish(),
      suppliedValue: usd,
      borrowedValue: usd,
      rewardValue: usd,
      suppliedYields: z.array(z.array(yieldSchema)).default([]),
      borrowedYields: z.array(z.array(yieldSchema)).default([]),
      /** 1 is full health (or no borrow), 0 or below can be liquidated, null unknown. */
      healthRatio: z.number().nullable().default(null),
      /** Loan expiry, ms. */
      expireOn: z.number().nullish(),
      ...refFields,
    }),
  }),
  z.object({
    type: z.literal('trade'),
    ...elementCommon,
    data: z.object({
      assets: z.object({ input: portfolioAssetSchema.nullable(), output: portfolioAssetSchema.nullable() }),
      inputAddress: z.string(),
      outputAddress: z.string(),
      /** UI units of the input mint. */
      initialInputAmount: z.number(),
      /** UI units of the output mint. */
      withdrawnOutputAmount: z.number(),
      expectedOutputAmount: z.number().nullish(),
      inputPrice: usd,
      outputPrice: usd,
      /** 0 to 1. */
      filledPercentage: z.number(),
      /** ms. */
      createdAt: z.number().nullish(),
      /** ms. */
      expireAt: z.number().nullish(),
      recurring: z
        .object({
          cycles: z.number(),
          /** ms between two orders. */
          interval: z.number(),
          priceRange: z.object({ min: z.number().nullish(), max: z.number().nullish() }).nullish(),
        })
        .nullish(),
      ...refFields,
    }),
  }),
]);

/** An element of a type this client does not know: kept with platform, value and label, raw data untouched. */
const unknownElementSchema = z
  .object({ type: z.string(), ...elementCommon, data: z.unknown() })
  .transform(({ type, ...rest }) => ({ ...rest, type: 'unknown' as const, originalType: type }));

/**
 * One portfolio element: a known type parsed strictly (a broken field fails with its path), or `unknown` for a type
 * this client does not recognise (the original in `originalType`), so a new position kind never breaks the response.
 */
export const portfolioElementSchema = byType(PORTFOLIO_ELEMENT_TYPES, knownElementSchema, unknownElementSchema);
/** A parsed portfolio element. */
export type PortfolioElement = z.output<typeof portfolioElementSchema>;
