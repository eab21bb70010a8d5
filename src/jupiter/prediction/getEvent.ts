import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH, checkId } from './common.js';
import { eventSchema, type PredictionEvent } from './market.js';

/** Parameters of GET /events/{eventId}. */
export interface GetEventParams {
  /** e.g. `POLY-351731`. */
  eventId: string;
  includeMarkets?: boolean | undefined;
  includeAllMarkets?: boolean | undefined;
}

/** The GET /events/{eventId} body: one event. */
export const getEventResponseSchema = eventSchema;

const ENDPOINT = 'prediction.getEvent';

/** GET /prediction/v1/events/{eventId}: one event. An unknown id throws NotFoundError (404). */
export async function getEvent(client: JupiterTransport, params: GetEventParams, options: CallOptions = {}): Promise<PredictionEvent> {
  checkId(ENDPOINT, 'eventId', params.eventId);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/events/${encodeURIComponent(params.eventId)}`,
    query: { includeMarkets: params.includeMarkets, includeAllMarkets: params.includeAllMarkets },
    schema: getEventResponseSchema,
    signal: options.signal,
  });
}
