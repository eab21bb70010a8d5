import type { CallOptions, JupiterTransport } from '../transport.js';
import { getContent, type GetContentParams } from './getContent.js';
import { getContentFeed, type GetContentFeedParams } from './getContentFeed.js';
import { getContentSummaries, type GetContentSummariesParams } from './getContentSummaries.js';
import { getCookingContent, type GetCookingContentParams } from './getCookingContent.js';
import { getRecentTokens, type GetRecentTokensParams } from './getRecentTokens.js';
import { getTokensByCategory, type GetTokensByCategoryParams } from './getTokensByCategory.js';
import { getTokensByTag, type GetTokensByTagParams } from './getTokensByTag.js';
import { searchTokens, type SearchTokensParams } from './searchTokens.js';

export * from './tokenInfo.js';
export * from './searchTokens.js';
export * from './getTokensByTag.js';
export * from './getTokensByCategory.js';
export * from './getRecentTokens.js';
export * from './contentSchemas.js';
export * from './getContent.js';
export * from './getContentFeed.js';
export * from './getCookingContent.js';
export * from './getContentSummaries.js';

/** The Tokens V2 and Content endpoints bound to one transport. */
export function bindTokens(t: JupiterTransport) {
  return {
    searchTokens: (p: SearchTokensParams, o?: CallOptions) => searchTokens(t, p, o),
    getTokensByTag: (p: GetTokensByTagParams, o?: CallOptions) => getTokensByTag(t, p, o),
    getTokensByCategory: (p: GetTokensByCategoryParams, o?: CallOptions) => getTokensByCategory(t, p, o),
    getRecentTokens: (p?: GetRecentTokensParams, o?: CallOptions) => getRecentTokens(t, p, o),
    getContent: (p: GetContentParams, o?: CallOptions) => getContent(t, p, o),
    getContentFeed: (p: GetContentFeedParams, o?: CallOptions) => getContentFeed(t, p, o),
    getCookingContent: (p?: GetCookingContentParams, o?: CallOptions) => getCookingContent(t, p, o),
    getContentSummaries: (p: GetContentSummariesParams, o?: CallOptions) => getContentSummaries(t, p, o),
  };
}
/** The bound Tokens V2 and Content endpoints. */
export type TokensApi = ReturnType<typeof bindTokens>;
