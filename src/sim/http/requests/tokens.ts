import { z } from 'zod';
import { address, commaList, queryInt } from './params.js';

/*
 * Requests of the Tokens API V2, /tokens/v2 (openapi/tokens-v2.yaml, openapi/content.yaml; jupiter-api.md §4), and
 * of Ultra's /search, which takes the same query (openapi/ultra.yaml). Bad input is answered `{error}` with 400.
 */

/**
 * Query of /tokens/v2/search and /ultra/v1/search: a symbol, name or mint, or up to 100 comma-separated mints (the
 * desk counts them). The length cap only keeps the simulator from reading megabytes.
 */
export const searchQuery = z.object({
  query: z.string({ error: 'is required' }).trim().min(1, 'must not be empty').max(10_000, 'is too long'),
});

/** The tags `/tokens/v2/tag` takes (tokens-v2.yaml: enum lst, verified, stocks). */
export const TOKEN_TAGS = ['lst', 'verified', 'stocks'] as const;
/** Query of `/tokens/v2/tag`. */
export const tagQuery = z.object({ query: z.enum(TOKEN_TAGS, { error: `must be one of ${TOKEN_TAGS.join(', ')}` }) });

/** The ranking categories of `/tokens/v2/{category}/{interval}` (tokens-v2.yaml). */
export const TOKEN_CATEGORIES = ['toporganicscore', 'toptraded', 'toptrending'] as const;
/** A ranking category. */
export type TokenCategory = (typeof TOKEN_CATEGORIES)[number];
/** The intervals of `/tokens/v2/{category}/{interval}` (tokens-v2.yaml). */
export const TOKEN_INTERVALS = ['5m', '1h', '6h', '24h'] as const;

/** Path and query of `/tokens/v2/{category}/{interval}`: `limit` 1 to 100, default 50 (jupiter-api.md §4). */
export const categoryInput = z.object({
  category: z.enum(TOKEN_CATEGORIES, { error: `must be one of ${TOKEN_CATEGORIES.join(', ')}` }),
  interval: z.enum(TOKEN_INTERVALS, { error: `must be one of ${TOKEN_INTERVALS.join(', ')}` }),
  limit: queryInt(1, 100).default(50),
});
/** A parsed category request. */
export type CategoryInput = z.output<typeof categoryInput>;

/** At most this many mints per `/content` or `/v1/content/summaries` request (content.yaml: "max 50"). */
export const CONTENT_MINTS_MAX = 50;

/** Query of `/content` and `/v1/content/summaries`: `mints`, comma-separated, 1 to 50. */
export const contentMintsQuery = z.object({ mints: commaList(address, 1, CONTENT_MINTS_MAX, 'mint') });

/** Query of `/content/feed`: one mint; `page` from 1 (default 1), `limit` 1 to 100 (default 50) (content.yaml). */
export const contentFeedQuery = z.object({
  mint: address,
  page: queryInt(1).default(1),
  limit: queryInt(1, 100).default(50),
});
/** A parsed feed query. */
export type ContentFeedQuery = z.output<typeof contentFeedQuery>;
