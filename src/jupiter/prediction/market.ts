import { z } from 'zod';
import { eventMetadataSchema, microUsd, unixSeconds } from './common.js';

/** Market statuses the spec lists; other strings are passed through. */
export type MarketStatus = 'open' | 'closed' | 'cancelled' | (string & {});
/**
 * A market's result: null until resolved; `pending` while the service has not settled it (seen in January 2026,
 * jupiter-api.md §13 item 14), which is not a result either.
 */
export type MarketResult = 'yes' | 'no' | 'pending' | null;

const price = microUsd.nullish();

/** Market pricing as sent: micro-USD numbers (or strings), null when a side has no quote. */
export const marketPricingSchema = z.object({
  buyYesPriceUsd: price,
  buyNoPriceUsd: price,
  sellYesPriceUsd: price,
  sellNoPriceUsd: price,
  /** Trading volume (a number; not documented as micro-USD). */
  volume: z.number().nullish(),
});

/** Prices of a market in micro-USD (1,000,000 = $1 = 100% implied probability); null when not quoted. */
export interface MarketPricing {
  buyYesPriceUsd: bigint | null;
  buyNoPriceUsd: bigint | null;
  sellYesPriceUsd: bigint | null;
  sellNoPriceUsd: bigint | null;
  volume: number | null;
}

const result = z
  .string()
  .nullish()
  .transform((r, ctx): MarketResult => {
    const v = (r ?? '').trim().toLowerCase();
    if (v === '') return null;
    if (v === 'yes' || v === 'no' || v === 'pending') return v;
    ctx.addIssue({ code: 'custom', message: `expected "yes", "no", "pending" or null, got ${JSON.stringify(r)}` });
    return z.NEVER;
  });

/** The nested `metadata` of the February 2026 market shape. */
const nestedMetadataSchema = z.object({
  marketId: z.string().optional(),
  eventId: z.string().optional(),
  title: z.string().optional(),
  subtitle: z.string().nullish(),
  status: z.string().optional(),
  result,
  closeTime: unixSeconds.optional(),
  openTime: unixSeconds.optional(),
  settlementTime: unixSeconds.nullish(),
  isTradable: z.boolean().optional(),
});

/**
 * A market as the service sends it: the flat 2026 shape, or the older shape whose descriptive fields sit in a
 * nested `metadata` object (jupiter-api.md §13.7). Top-level fields win over `metadata` ones.
 */
const rawMarketSchema = z.object({
  marketId: z.string().optional(),
  eventId: z.string().optional(),
  provider: z.string().optional(),
  title: z.string().optional(),
  subtitle: z.string().nullish(),
  status: z.string().optional(),
  result,
  openTime: unixSeconds.nullish(),
  closeTime: unixSeconds.nullish(),
  resolveAt: z.union([z.string(), z.number()]).nullish(),
  settlementTime: unixSeconds.nullish(),
  marketResultPubkey: z.string().nullish(),
  imageUrl: z.string().nullish(),
  tradable: z.boolean().optional(),
  lifecycleStatus: z.string().nullish(),
  outcomeMint: z.string().nullish(),
  outcomeTokenProgram: z.string().nullish(),
  marketPda: z.string().nullish(),
  outcomeSide: z.string().nullish(),
  isTeamMarket: z.boolean().optional(),
  sportsMarketType: z.string().nullish(),
  pricing: marketPricingSchema.nullish(),
  metadata: nestedMetadataSchema.nullish(),
});

/** One market, normalised to a single flat type whatever shape the service sent. */
export interface Market {
  marketId: string;
  eventId: string | undefined;
  /** Empty when the service sends no title. */
  title: string;
  subtitle: string | undefined;
  provider: string | undefined;
  status: MarketStatus;
  result: MarketResult;
  /**
   * Whether an order can be placed now: status is `open` and the service's own flag (nested `metadata.isTradable`,
   * or flat `tradable` for Jupiter Forecast) is not false.
   */
  isTradable: boolean;
  /** Unix seconds. */
  closeTime: number;
  /** Unix seconds. */
  openTime: number | undefined;
  /** ISO string (or a number) once resolved; null while open. */
  resolveAt: string | number | null;
  /** Jupiter Forecast lifecycle: `open`, `resolving`, `settled`. */
  lifecycleStatus: string | undefined;
  /** Jupiter Forecast outcome token (Token-2022) and side. */
  outcomeMint: string | undefined;
  outcomeSide: string | undefined;
  marketResultPubkey: string | undefined;
  pricing: MarketPricing;
  /** Which shape the service sent, for diagnostics. */
  shape: 'flat' | 'nested';
}

/** A market in either shape, parsed and normalised to `Market`. Missing marketId, status or closeTime is rejected. */
export const marketSchema = rawMarketSchema.transform((m, ctx): Market => {
  const meta = m.metadata ?? undefined;
  const marketId = m.marketId ?? meta?.marketId;
  const status = m.status ?? meta?.status;
  const closeTime = m.closeTime ?? meta?.closeTime;
  if (marketId === undefined || marketId === '') ctx.addIssue({ code: 'custom', path: ['marketId'], message: 'missing (neither top-level nor metadata.marketId)' });
  if (status === undefined) ctx.addIssue({ code: 'custom', path: ['status'], message: 'missing (neither top-level nor metadata.status)' });
  if (closeTime === undefined) ctx.addIssue({ code: 'custom', path: ['closeTime'], message: 'missing (neither top-level nor metadata.closeTime)' });
  if (marketId === undefined || status === undefined || closeTime === undefined) return z.NEVER;
  // The flat shape has no per-market flag except Forecast's `tradable`; the nested one has metadata.isTradable.
  const flag = meta ? meta.isTradable : m.tradable;
  const p = m.pricing ?? undefined;
  return {
    marketId,
    eventId: m.eventId ?? meta?.eventId,
    title: m.title ?? meta?.title ?? '',
    subtitle: m.subtitle ?? meta?.subtitle ?? undefined,
    provider: m.provider,
    status,
    result: m.result ?? meta?.result ?? null,
    isTradable: status === 'open' && flag !== false,
    closeTime,
    openTime: m.openTime ?? meta?.openTime ?? undefined,
    resolveAt: m.resolveAt ?? null,
    lifecycleStatus: m.lifecycleStatus ?? undefined,
    outcomeMint: m.outcomeMint ?? undefined,
    outcomeSide: m.outcomeSide ?? undefined,
    marketResultPubkey: m.marketResultPubkey ?? undefined,
    pricing: {
      buyYesPriceUsd: p?.buyYesPriceUsd ?? null,
      buyNoPriceUsd: p?.buyNoPriceUsd ?? null,
      sellYesPriceUsd: p?.sellYesPriceUsd ?? null,
      sellNoPriceUsd: p?.sellNoPriceUsd ?? null,
      volume: p?.volume ?? null,
    },
    shape: meta ? 'nested' : 'flat',
  };
});

/** `beginAt`: unix seconds as a string in the spec; a number or an ISO string is tolerated. Becomes a number. */
const beginAt = z
  .union([z.number(), z.string()])
  .nullish()
  .transform((v, ctx): number | null => {
    if (v === null || v === undefined || v === '') return null;
    if (typeof v === 'number') return v;
    if (/^\d+$/.test(v)) return Number(v);
    const ms = Date.parse(v);
    if (Number.isNaN(ms)) {
      ctx.addIssue({ code: 'custom', message: `expected unix seconds or an ISO date, got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return Math.floor(ms / 1000);
  });

/** One event with its markets (either market shape). Volumes are micro-USD bigint. */
export const eventSchema = z.object({
  eventId: z.string().min(1),
  isActive: z.boolean().optional(),
  isLive: z.boolean().optional(),
  category: z.string().optional(),
  subcategory: z.string().optional(),
  tags: z.array(z.string()).optional(),
  metadata: eventMetadataSchema.nullish(),
  /** Absent unless the request asked for markets; normalised to []. */
  markets: z
    .array(marketSchema)
    .nullish()
    .transform((ms) => ms ?? []),
  /** Total volume, micro-USD. */
  volumeUsd: microUsd.nullish(),
  /** Rolling 24 h volume, micro-USD. */
  volume24hr: microUsd.nullish(),
  liveScore: z.unknown().optional(),
  closeCondition: z.string().nullish(),
  /** Unix seconds, or null. */
  beginAt,
  rulesPdf: z.string().nullish(),
});
/** A parsed event. */
export type PredictionEvent = z.output<typeof eventSchema>;
