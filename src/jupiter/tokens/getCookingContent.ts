import type { CallOptions, JupiterTransport } from '../transport.js';
import { tokenContentListResponseSchema, type TokenContentListResponse } from './contentSchemas.js';

/** getCookingContent takes no parameters. */
export type GetCookingContentParams = Record<string, never>;

/** GET /tokens/v2/content/cooking: approved content of the tokens currently trending ("cooking") on Jupiter. */
export async function getCookingContent(client: JupiterTransport, _params: GetCookingContentParams = {}, options: CallOptions = {}): Promise<TokenContentListResponse> {
  return client.request({
    endpoint: 'tokens.cooking',
    method: 'GET',
    path: '/tokens/v2/content/cooking',
    schema: tokenContentListResponseSchema,
    signal: options.signal,
  });
}
