import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { chunk, pubkey } from '../schemas.js';
import { tokenListSchema, type TokenInfo } from './tokenInfo.js';

/** At most this many comma-separated mints per `/tokens/v2/search` request (jupiter-api.md §4). */
export const TOKEN_SEARCH_MINTS_PER_REQUEST = 100;

/** Parameters of searchTokens. */
export interface SearchTokensParams {
  /**
   * A symbol, a name or one mint (sent as is), or a list of mints (array, or a comma-separated string of
   * addresses). A mint list of any length is sent in batches of 100 and the results merged.
   */
  query: string | readonly string[];
}

const ENDPOINT = 'tokens.search';

/** Splits the query into mint batches, or returns the free text to send as is. */
function plan(query: string | readonly string[]): { text: string } | { mints: string[] } {
  if (typeof query === 'string') {
    const text = query.trim();
    if (text === '') throw new LimitError(ENDPOINT, 'tokens.search.query.empty', 'query must not be empty');
    if (!text.includes(',')) return { text };
    const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
    // Commas only ever separate mints; free text with a comma is sent untouched and the service decides.
    if (parts.length === 0 || !parts.every((p) => pubkey.safeParse(p).success)) return { text };
    return { mints: [...new Set(parts)] };
  }
  const mints = [...new Set(query.map((m) => m.trim()))];
  if (mints.length === 0) throw new LimitError(ENDPOINT, 'tokens.search.query.empty', 'at least one mint is required');
  for (const mint of mints) {
    if (!pubkey.safeParse(mint).success) {
      throw new LimitError(ENDPOINT, 'tokens.search.mints.address', `not a base58 mint address: ${JSON.stringify(mint)}`);
    }
  }
  return { mints };
}

/**
 * GET /tokens/v2/search: tokens matching a symbol, name or mint(s). No match gives `[]`. A mint list is sent in
 * batches of 100 and merged in request order, each token once.
 */
export async function searchTokens(client: JupiterTransport, params: SearchTokensParams, options: CallOptions = {}): Promise<TokenInfo[]> {
  const p = plan(params.query);
  const queries = 'text' in p ? [p.text] : chunk(p.mints, TOKEN_SEARCH_MINTS_PER_REQUEST).map((batch) => batch.join(','));
  const results = await Promise.all(
    queries.map((query) =>
      client.request({
        endpoint: ENDPOINT,
        method: 'GET',
        path: '/tokens/v2/search',
        query: { query },
        schema: tokenListSchema,
        signal: options.signal,
      }),
    ),
  );
  const seen = new Set<string>();
  const merged: TokenInfo[] = [];
  for (const token of results.flat()) {
    if (seen.has(token.id)) continue;
    seen.add(token.id);
    merged.push(token);
  }
  return merged;
}
