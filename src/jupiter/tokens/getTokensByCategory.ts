import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { tokenListSchema, type TokenInfo } from './tokenInfo.js';

/** Ranking categories of `/tokens/v2/{category}/{interval}`. */
export const TOKEN_CATEGORIES = ['toporganicscore', 'toptraded', 'toptrending'] as const;
/** A ranking category. */
export type TokenCategory = (typeof TOKEN_CATEGORIES)[number];
/** Ranking intervals. */
export const TOKEN_INTERVALS = ['5m', '1h', '6h', '24h'] as const;
/** A ranking interval. */
export type TokenInterval = (typeof TOKEN_INTERVALS)[number];
/** Largest `limit` the service accepts (default 50). */
export const CATEGORY_LIMIT_MAX = 100;

/** Parameters of getTokensByCategory. */
export interface GetTokensByCategoryParams {
  category: TokenCategory;
  interval: TokenInterval;
  /** Number of tokens, an integer from 1 to 100 (service default 50). */
  limit?: number | undefined;
}

const ENDPOINT = 'tokens.category';

/** GET /tokens/v2/{category}/{interval}: top tokens of a ranking (SOL, USDC and similar are left out by the service). */
export async function getTokensByCategory(client: JupiterTransport, params: GetTokensByCategoryParams, options: CallOptions = {}): Promise<TokenInfo[]> {
  if (!(TOKEN_CATEGORIES as readonly string[]).includes(params.category)) {
    throw new LimitError(ENDPOINT, 'tokens.category.category.enum', `category must be one of ${TOKEN_CATEGORIES.join(', ')}, got ${JSON.stringify(params.category)}`);
  }
  if (!(TOKEN_INTERVALS as readonly string[]).includes(params.interval)) {
    throw new LimitError(ENDPOINT, 'tokens.category.interval.enum', `interval must be one of ${TOKEN_INTERVALS.join(', ')}, got ${JSON.stringify(params.interval)}`);
  }
  const { limit } = params;
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > CATEGORY_LIMIT_MAX)) {
    throw new LimitError(ENDPOINT, 'tokens.category.limit.range', `limit must be an integer from 1 to ${CATEGORY_LIMIT_MAX}, got ${limit}`);
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `/tokens/v2/${params.category}/${params.interval}`,
    query: { limit },
    schema: tokenListSchema,
    signal: options.signal,
  });
}
