import { z } from 'zod';
import { LimitError } from '../errors.js';
import { i64Loose, pubkey, u64Loose } from '../schemas.js';

/** Path prefix of the Prediction Market API (beta). */
export const PREDICTION_PATH = '/prediction/v1';

/** Lowest order price the service accepts, in micro-USD ($0.01). */
export const PREDICTION_MIN_PRICE_MICRO_USD = 10_000n;
/** Highest order price the service accepts, in micro-USD ($0.99). */
export const PREDICTION_MAX_PRICE_MICRO_USD = 990_000n;

/** A non-negative micro-USD value (1,000,000 = $1), sent as a digit string or a safe JSON integer; parsed to bigint. */
export const microUsd = u64Loose;
/** A micro-USD value that may be null or absent; normalised to `bigint | null`. */
export const microUsdOrNull = microUsd.nullish().transform((v) => v ?? null);
/** A signed micro-USD value (P&L), sent as a digit string or a safe JSON integer; parsed to bigint. */
export const signedMicroUsd = i64Loose;
/** A signed micro-USD value that may be null or absent; normalised to `bigint | null`. */
export const signedMicroUsdOrNull = signedMicroUsd.nullish().transform((v) => v ?? null);
/** A contract quantity in micro-contracts (1,000,000 = 1 contract), or a legacy whole-contract count; bigint. */
export const contractQuantity = u64Loose;

/**
 * A unix timestamp in seconds, kept as a number. The spec sends integers; the official CLI types some as strings,
 * so a digit string is accepted too.
 */
export const unixSeconds = z.union([
  z.number().int('expected a unix timestamp in whole seconds'),
  z
    .string()
    .regex(/^\d+$/, 'expected a unix timestamp in seconds')
    .transform((s) => Number(s)),
]);

/** Offset pagination of list endpoints. */
export const paginationSchema = z.object({
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
  total: z.number().int().nonnegative(),
  hasNext: z.boolean(),
});
/** A parsed pagination block. */
export type Pagination = z.output<typeof paginationSchema>;

/**
 * Blockhash and expiry of a built transaction. `lastValidBlockHeight` is an integer in the spec and a string in the
 * official CLI; both become a number (block heights are far below 2^53; `@solana/web3.js` takes a number).
 */
export const txMetaSchema = z.object({
  blockhash: z.string().min(1, 'blockhash must not be empty'),
  lastValidBlockHeight: z.union([
    z.number().int().nonnegative().refine((n) => Number.isSafeInteger(n), 'block height beyond 2^53'),
    z
      .string()
      .regex(/^\d+$/, 'expected a block height')
      .transform((s) => Number(s))
      .refine((n) => Number.isSafeInteger(n), 'block height beyond 2^53'),
  ]),
});
/** A parsed txMeta. */
export type TxMeta = z.output<typeof txMetaSchema>;

/** How a built order is executed: sign `transaction`, then pass `context` unchanged to `POST /execute`. */
export const executionSchema = z.object({
  endpoint: z.string(),
  /** Opaque; `type` is `create_order` (keeper-filled) or `bisonfi_swap` (Jupiter Forecast). */
  context: z.record(z.string(), z.unknown()),
});

/** Event metadata as embedded in events, orders, positions and history (all fields but the id are optional). */
export const eventMetadataSchema = z.object({
  eventId: z.string().optional(),
  title: z.string().optional(),
  subtitle: z.string().nullish(),
  slug: z.string().nullish(),
  series: z.string().nullish(),
  /** ISO 8601. */
  closeTime: z.string().nullish(),
  imageUrl: z.string().nullish(),
  isLive: z.boolean().optional(),
});
/** Parsed event metadata. */
export type EventMetadata = z.output<typeof eventMetadataSchema>;

/** The short market description embedded in orders, positions and history rows. */
export const marketMetadataSummarySchema = z.object({
  marketId: z.string().optional(),
  eventId: z.string().optional(),
  title: z.string().optional(),
  status: z.string().optional(),
  result: z.string().nullish(),
  closeTime: unixSeconds.optional(),
  openTime: unixSeconds.optional(),
  isTradable: z.boolean().optional(),
  isTeamMarket: z.boolean().optional(),
});
/** Parsed market metadata summary. */
export type MarketMetadataSummary = z.output<typeof marketMetadataSummarySchema>;

/** Throws LimitError unless `value` is a base58 address. */
export function checkAddress(endpoint: string, field: string, value: string | undefined, required = true): void {
  if (value === undefined) {
    if (required) throw new LimitError(endpoint, `prediction.${field}.required`, `${field} is required`);
    return;
  }
  if (!pubkey.safeParse(value).success) {
    throw new LimitError(endpoint, `prediction.${field}.address`, `${field} is not a base58 address: ${JSON.stringify(value)}`);
  }
}

/** Throws LimitError unless `value` is a non-empty id (event, market). */
export function checkId(endpoint: string, field: string, value: string | undefined): asserts value is string {
  if (value === undefined || value.trim() === '') {
    throw new LimitError(endpoint, `prediction.${field}.required`, `${field} must be a non-empty string`);
  }
}

/** Checks `start`/`end` offsets: non-negative integers, end not before start. */
export function checkPagination(endpoint: string, start: number | undefined, end: number | undefined): void {
  for (const [name, v] of [['start', start], ['end', end]] as const) {
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) {
      throw new LimitError(endpoint, 'prediction.pagination.range', `${name} must be a non-negative integer, got ${v}`);
    }
  }
  if (start !== undefined && end !== undefined && end < start) {
    throw new LimitError(endpoint, 'prediction.pagination.range', `end (${end}) must not be before start (${start})`);
  }
}

/** Throws LimitError unless `value` is one of `allowed`. */
export function checkOneOf(endpoint: string, field: string, value: string | undefined, allowed: readonly string[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new LimitError(endpoint, `prediction.${field}.allowed`, `${field} must be one of ${allowed.join('|')}, got ${JSON.stringify(value)}`);
  }
}

/** Parses `value` with `schema` inside a transform, re-reporting its issues under the current path. */
export function parseInto<S extends z.ZodType>(schema: S, value: unknown, ctx: z.RefinementCtx): z.output<S> | typeof z.NEVER {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
  return z.NEVER;
}
