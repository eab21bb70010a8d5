import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkOneOf, checkPagination, paginationSchema } from './common.js';
import { eventSchema } from './market.js';

/** Liquidity providers the discovery endpoints accept (`bisonfi` is Jupiter Forecast). */
export const PREDICTION_PROVIDERS = ['kalshi', 'polymarket', 'bisonfi'] as const;
/** A prediction provider. */
export type PredictionProvider = (typeof PREDICTION_PROVIDERS)[number];
/** Event categories. */
export const EVENT_CATEGORIES = ['all', 'crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech'] as const;
/** An event category. */
export type EventCategory = (typeof EVENT_CATEGORIES)[number];
/** Named event filters: new (last 24 h), live (begun), trending (recent trades), upcoming (not begun). */
export const EVENT_FILTERS = ['new', 'live', 'trending', 'upcoming'] as const;
/** A named event filter. */
export type EventFilter = (typeof EVENT_FILTERS)[number];

/** Query of GET /events. */
export interface GetEventsParams {
  /** Default `polymarket` (service side). */
  provider?: PredictionProvider | undefined;
  includeMarkets?: boolean | undefined;
  /** Include spread/totals and extra sports markets, not only moneyline. */
  includeAllMarkets?: boolean | undefined;
  /** Offsets into the result list. */
  start?: number | undefined;
  end?: number | undefined;
  category?: EventCategory | undefined;
  /** One subcategory or several (sent comma-separated). */
  subcategory?: string | readonly string[] | undefined;
  sortBy?: 'volume' | 'beginAt' | undefined;
  sortDirection?: 'asc' | 'desc' | undefined;
  filter?: EventFilter | undefined;
  /** One tag or several (sent comma-separated), e.g. `soccer`. */
  tags?: string | readonly string[] | undefined;
}

/** The GET /events body: events (markets normalised to one flat shape) and pagination. */
export const getEventsResponseSchema = z.object({
  data: z.array(eventSchema),
  pagination: paginationSchema,
});
/** A parsed page of events. */
export type EventsPage = z.output<typeof getEventsResponseSchema>;

const ENDPOINT = 'prediction.getEvents';

/** GET /prediction/v1/events: lists events, optionally with their markets. */
export async function getEvents(client: JupiterTransport, params: GetEventsParams = {}, options: CallOptions = {}): Promise<EventsPage> {
  checkOneOf(ENDPOINT, 'provider', params.provider, PREDICTION_PROVIDERS);
  checkOneOf(ENDPOINT, 'category', params.category, EVENT_CATEGORIES);
  checkOneOf(ENDPOINT, 'filter', params.filter, EVENT_FILTERS);
  checkOneOf(ENDPOINT, 'sortBy', params.sortBy, ['volume', 'beginAt']);
  checkOneOf(ENDPOINT, 'sortDirection', params.sortDirection, ['asc', 'desc']);
  checkPagination(ENDPOINT, params.start, params.end);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/events`,
    query: {
      provider: params.provider,
      includeMarkets: params.includeMarkets,
      includeAllMarkets: params.includeAllMarkets,
      start: params.start,
      end: params.end,
      category: params.category,
      subcategory: joinList(params.subcategory),
      sortBy: params.sortBy,
      sortDirection: params.sortDirection,
      filter: params.filter,
      tags: joinList(params.tags),
    },
    schema: getEventsResponseSchema,
    signal: options.signal,
  });
}

function joinList(v: string | readonly string[] | undefined): string | undefined {
  if (v === undefined) return undefined;
  return typeof v === 'string' ? v : v.join(',');
}
