import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { tokenListSchema, type TokenInfo } from './tokenInfo.js';

/** Tags `/tokens/v2/tag` accepts. */
export const TOKEN_TAGS = ['verified', 'lst', 'stocks'] as const;
/** A token tag. */
export type TokenTag = (typeof TOKEN_TAGS)[number];

/** Parameters of getTokensByTag. */
export interface GetTokensByTagParams {
  tag: TokenTag;
}

/** GET /tokens/v2/tag: every token carrying the tag (the whole list; 50 credits a call, so cache it). */
export async function getTokensByTag(client: JupiterTransport, params: GetTokensByTagParams, options: CallOptions = {}): Promise<TokenInfo[]> {
  if (!(TOKEN_TAGS as readonly string[]).includes(params.tag)) {
    throw new LimitError('tokens.tag', 'tokens.tag.query.enum', `tag must be one of ${TOKEN_TAGS.join(', ')}, got ${JSON.stringify(params.tag)}`);
  }
  return client.request({
    endpoint: 'tokens.tag',
    method: 'GET',
    path: '/tokens/v2/tag',
    query: { query: params.tag },
    schema: tokenListSchema,
    signal: options.signal,
  });
}
