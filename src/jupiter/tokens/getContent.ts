import type { CallOptions, JupiterTransport } from '../transport.js';
import { chunk } from '../schemas.js';
import { CONTENT_MINTS_PER_REQUEST, checkMints, tokenContentListResponseSchema, type TokenContentListResponse } from './contentSchemas.js';

/** Parameters of getContent. */
export interface GetContentParams {
  /** Mints; duplicates are removed. Any number: one request per 50 distinct mints. */
  mints: readonly string[];
}

/**
 * GET /tokens/v2/content?mints=: approved content and summaries of each mint (marked deprecated in the docs, still
 * served). Longer lists are sent 50 mints at a time and the `data` arrays concatenated in request order.
 */
export async function getContent(client: JupiterTransport, params: GetContentParams, options: CallOptions = {}): Promise<TokenContentListResponse> {
  const mints = checkMints('tokens.content', 'tokens.content', params.mints);
  const pages = await Promise.all(
    chunk(mints, CONTENT_MINTS_PER_REQUEST).map((batch) =>
      client.request({
        endpoint: 'tokens.content',
        method: 'GET',
        path: '/tokens/v2/content',
        query: { mints: batch.join(',') },
        schema: tokenContentListResponseSchema,
        signal: options.signal,
      }),
    ),
  );
  return { data: pages.flatMap((p) => p.data) };
}
