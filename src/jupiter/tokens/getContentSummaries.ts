import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { chunk, pubkey } from '../schemas.js';
import { CONTENT_MINTS_PER_REQUEST, checkMints, contentSummarySchema } from './contentSchemas.js';

/**
 * Path of the summaries endpoint. content.yaml lists `/v1/content/summaries` under the server
 * `https://api.jup.ag/tokens/v2`, so the full path is taken literally; no docs page confirms it.
 */
export const CONTENT_SUMMARIES_PATH = '/tokens/v2/v1/content/summaries';

/** Parameters of getContentSummaries. */
export interface GetContentSummariesParams {
  /** Mints; duplicates are removed. Any number: one request per 50 distinct mints. */
  mints: readonly string[];
}

/** Token and news summaries of one mint. */
export const mintSummariesSchema = z.object({
  mint: pubkey,
  tokenSummary: contentSummarySchema.nullish(),
  newsSummary: contentSummarySchema.nullish(),
});
/** Parsed summaries of one mint. */
export type MintSummaries = z.output<typeof mintSummariesSchema>;

/** The summaries body: `{data: MintSummaries[]}`. */
export const contentSummariesResponseSchema = z.object({ data: z.array(mintSummariesSchema) });
/** A parsed summaries body. */
export type ContentSummariesResponse = z.output<typeof contentSummariesResponseSchema>;

/** GET content summaries: AI token and news summaries per mint, 50 mints per request, merged in request order. */
export async function getContentSummaries(client: JupiterTransport, params: GetContentSummariesParams, options: CallOptions = {}): Promise<ContentSummariesResponse> {
  const mints = checkMints('tokens.summaries', 'tokens.summaries', params.mints);
  const pages = await Promise.all(
    chunk(mints, CONTENT_MINTS_PER_REQUEST).map((batch) =>
      client.request({
        endpoint: 'tokens.summaries',
        method: 'GET',
        path: CONTENT_SUMMARIES_PATH,
        query: { mints: batch.join(',') },
        schema: contentSummariesResponseSchema,
        signal: options.signal,
      }),
    ),
  );
  return { data: pages.flatMap((p) => p.data) };
}
