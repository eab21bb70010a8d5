import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';
import { contentItemSchema, contentPaginationSchema, contentSummarySchema } from './contentSchemas.js';

/** Largest page size of the content feed (default 50). */
export const CONTENT_FEED_LIMIT_MAX = 100;

/** Parameters of getContentFeed. */
export interface GetContentFeedParams {
  mint: string;
  /** Page number from 1 (service default 1). */
  page?: number | undefined;
  /** Items per page, 1 to 100 (service default 50). */
  limit?: number | undefined;
}

/** The `/content/feed` body: one page of a mint's content plus its summaries. */
export const contentFeedResponseSchema = z.object({
  data: z.object({
    contents: z.array(contentItemSchema),
    tokenSummary: contentSummarySchema.nullish(),
    newsSummary: contentSummarySchema.nullish(),
    pagination: contentPaginationSchema,
  }),
});
/** A parsed content feed page. */
export type ContentFeed = z.output<typeof contentFeedResponseSchema>;

const ENDPOINT = 'tokens.contentFeed';

/** GET /tokens/v2/content/feed: one page of approved content for a mint. */
export async function getContentFeed(client: JupiterTransport, params: GetContentFeedParams, options: CallOptions = {}): Promise<ContentFeed> {
  if (!pubkey.safeParse(params.mint).success) {
    throw new LimitError(ENDPOINT, 'tokens.contentFeed.mint.address', `not a base58 mint address: ${JSON.stringify(params.mint)}`);
  }
  const { page, limit } = params;
  if (page !== undefined && (!Number.isInteger(page) || page < 1)) {
    throw new LimitError(ENDPOINT, 'tokens.contentFeed.page.min', `page must be an integer of at least 1, got ${page}`);
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > CONTENT_FEED_LIMIT_MAX)) {
    throw new LimitError(ENDPOINT, 'tokens.contentFeed.limit.range', `limit must be an integer from 1 to ${CONTENT_FEED_LIMIT_MAX}, got ${limit}`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: '/tokens/v2/content/feed',
    query: { mint: params.mint, page, limit },
    schema: contentFeedResponseSchema,
    signal: options.signal,
  });
}
