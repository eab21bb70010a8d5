import type { CallOptions, JupiterTransport } from '../transport.js';
import { tokenListSchema, type TokenInfo } from './tokenInfo.js';

/** getRecentTokens takes no parameters. */
export type GetRecentTokensParams = Record<string, never>;

/** GET /tokens/v2/recent: about 30 tokens whose first pool was created most recently, newest first. */
export async function getRecentTokens(client: JupiterTransport, _params: GetRecentTokensParams = {}, options: CallOptions = {}): Promise<TokenInfo[]> {
  return client.request({
    endpoint: 'tokens.recent',
    method: 'GET',
    path: '/tokens/v2/recent',
    schema: tokenListSchema,
    signal: options.signal,
  });
}
