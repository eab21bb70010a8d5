import { z } from 'zod';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';

/**
 * Schemas shared by the Content endpoints (`/tokens/v2/content*`, content.yaml): curated posts, tweets and
 * AI summaries of tokens. Display data only; fields the spec marks nullable are also accepted when missing.
 */

/** Content types documented by the service (others are kept as plain strings). */
export const CONTENT_TYPES = ['text', 'tweet'] as const;

/** Who submitted or last updated a content item. */
export const contentUserSchema = z.object({
  id: z.string().nullish(),
  username: z.string().nullish(),
  role: z.string().nullish(),
});

/** One approved content item. */
export const contentItemSchema = z.object({
  contentId: z.string(),
  /** Text, or the tweet URL for `tweet` items. */
  content: z.string(),
  /** `text` or `tweet` (see CONTENT_TYPES). */
  contentType: z.string(),
  /** Only `approved` items are served. */
  status: z.string(),
  source: z.string().nullish(),
  /** ISO timestamp. */
  submittedAt: z.string(),
  submittedBy: contentUserSchema.nullish(),
  updatedAt: z.string().nullish(),
  updatedBy: contentUserSchema.nullish(),
  postedAt: z.string().nullish(),
});
/** A parsed content item. */
export type ContentItem = z.output<typeof contentItemSchema>;

/** An AI summary (token or news) with its citations; null when none exists. */
export const contentSummarySchema = z.object({
  summaryFull: z.string().nullish(),
  summaryShort: z.string().nullish(),
  updatedAt: z.string().nullish(),
  citations: z.array(z.string()).nullish(),
});
/** A parsed summary. */
export type ContentSummary = z.output<typeof contentSummarySchema>;

/** Content of one mint: its items and its token and news summaries. */
export const tokenContentEntrySchema = z.object({
  mint: pubkey,
  contents: z.array(contentItemSchema),
  tokenSummary: contentSummarySchema.nullish(),
  newsSummary: contentSummarySchema.nullish(),
});
/** Parsed content of one mint. */
export type TokenContentEntry = z.output<typeof tokenContentEntrySchema>;

/** `{data: TokenContentEntry[]}`: the body of `/content` and `/content/cooking`. */
export const tokenContentListResponseSchema = z.object({ data: z.array(tokenContentEntrySchema) });
/** A parsed `{data: TokenContentEntry[]}` body. */
export type TokenContentListResponse = z.output<typeof tokenContentListResponseSchema>;

/** Page numbers of a paginated content feed. */
export const contentPaginationSchema = z.object({
  limit: z.number(),
  total: z.number(),
  page: z.number(),
  totalPages: z.number(),
});

/** At most this many mints per `/content` or `/content/summaries` request. */
export const CONTENT_MINTS_PER_REQUEST = 50;

/** Removes duplicates and checks that every mint is an address; throws LimitError (no request sent). */
export function checkMints(endpoint: string, rulePrefix: string, mints: readonly string[]): string[] {
  const unique = [...new Set(mints.map((m) => m.trim()))];
  if (unique.length === 0) throw new LimitError(endpoint, `${rulePrefix}.mints.empty`, 'at least one mint is required');
  for (const mint of unique) {
    if (!pubkey.safeParse(mint).success) {
      throw new LimitError(endpoint, `${rulePrefix}.mints.address`, `not a base58 mint address: ${JSON.stringify(mint)}`);
    }
  }
  return unique;
}
