import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { PREDICTION_PATH, checkOneOf, paginationSchema } from './common.js';
import { eventSchema } from './market.js';
import { PREDICTION_PROVIDERS, type PredictionProvider } from './getEvents.js';

/** Longest search query the service accepts, in characters. */
export const SEARCH_QUERY_MAX_LENGTH = 200;
/** Largest `limit` of a search. */
export const SEARCH_LIMIT_MAX = 20;

/** Query of GET /events/search. */
export interface SearchEventsParams {
  /** Matched against event titles; 1 to 200 characters. */
  query: string;
  /** 1 to 20 results. */
  limit?: number | undefined;
  provider?: PredictionProvider | undefined;
}

/** The GET /events/search body. Pagination is optional here. */
export const searchEventsResponseSchema = z.object({
  data: z.array(eventSchema),
  pagination: paginationSchema.optional(),
});
/** Parsed search results. */
export type EventSearchResult = z.output<typeof searchEventsResponseSchema>;

const ENDPOINT = 'prediction.searchEvents';

/** GET /prediction/v1/events/search: events whose title matches `query`. */
export async function searchEvents(client: JupiterTransport, params: SearchEventsParams, options: CallOptions = {}): Promise<EventSearchResult> {
  const length = [...params.query].length;
  if (params.query.trim() === '' || length > SEARCH_QUERY_MAX_LENGTH) {
    throw new LimitError(ENDPOINT, 'prediction.search.query.length', `query must be 1 to ${SEARCH_QUERY_MAX_LENGTH} characters, got ${length}`);
  }
  if (params.limit !== undefined && (!Number.isInteger(params.limit) || params.limit < 1 || params.limit > SEARCH_LIMIT_MAX)) {
    throw new LimitError(ENDPOINT, 'prediction.search.limit.range', `limit must be an integer from 1 to ${SEARCH_LIMIT_MAX}, got ${params.limit}`);
  }
  checkOneOf(ENDPOINT, 'provider', params.provider, PREDICTION_PROVIDERS);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/events/search`,
    query: { query: params.query, limit: params.limit, provider: params.provider },
    schema: searchEventsResponseSchema,
    signal: options.signal,
  });
}
