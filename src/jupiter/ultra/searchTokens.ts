import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { chunk, pubkey } from '../schemas.js';
import { ultraMintInformationSchema, type UltraMintInformation } from './mintInformation.js';

/** At most this many comma-separated mints per `/ultra/v1/search` request (jupiter-api.md §1.4). */
export const SEARCH_MINTS_PER_REQUEST = 100;

/** The /ultra/v1/search body: an array of MintInformation (`[]` when nothing matches). */
export const searchResponseSchema = z.array(ultraMintInformationSchema);

/**
 * Parameters of searchTokens: either a free-text `query` (symbol, name or one mint; sent as is, the service
 * returns up to 20 matches) or a list of `mints` (any number; one request per 100 distinct mints).
 */
export type SearchTokensParams = { query: string; mints?: undefined } | { mints: readonly string[]; query?: undefined };

/**
 * GET /ultra/v1/search: token information by symbol, name or mint. A `mints` list is split into batches of 100
 * and the results merged (first occurrence of each mint kept, in request order).
 */
export async function searchTokens(client: JupiterTransport, params: SearchTokensParams, options: CallOptions = {}): Promise<UltraMintInformation[]> {
  const request = (query: string) =>
    client.request({
      endpoint: 'ultra.search',
      method: 'GET',
      path: '/ultra/v1/search',
      query: { query },
      schema: searchResponseSchema,
      signal: options.signal,
    });

  if (params.mints === undefined) {
    if (params.query.trim() === '') throw new LimitError('ultra.search', 'search.query.empty', 'query must not be empty');
    return request(params.query);
  }

  const mints = [...new Set(params.mints)];
  if (mints.length === 0) throw new LimitError('ultra.search', 'search.mints.empty', 'at least one mint is required');
  for (const mint of mints) {
    if (!pubkey.safeParse(mint).success) throw new LimitError('ultra.search', 'search.mints.address', `not a base58 mint address: ${JSON.stringify(mint)}`);
  }
  const results = await Promise.all(chunk(mints, SEARCH_MINTS_PER_REQUEST).map((batch) => request(batch.join(','))));
  const seen = new Set<string>();
  const merged: UltraMintInformation[] = [];
  for (const token of results.flat()) {
    if (seen.has(token.id)) continue;
    seen.add(token.id);
    merged.push(token);
  }
  return merged;
}
