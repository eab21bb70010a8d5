import { z } from 'zod';
import { commaList } from './params.js';

/** At most this many distinct ids per `/price/v3` request (price-v3.yaml: "up to 50 tokens per request"). */
export const PRICE_IDS_MAX = 50;

/**
 * Query of GET /price/v3 (openapi/price-v3.yaml; jupiter-api.md §3): `ids`, comma-separated, 1 to 50 distinct.
 * An id is not checked as an address: a mint the service cannot price, malformed or unknown, is simply left out of
 * the answer. Bad input is answered `{error}` with 400 (more than 50 ids: jupiter-api.md §3's guess).
 */
export const priceQuery = z.object({ ids: z.string({ error: 'is required' }).max(20_000, 'is too long').pipe(commaList(z.string(), 1, PRICE_IDS_MAX, 'id')) });
/** A parsed price query. */
export type PriceQuery = z.output<typeof priceQuery>;
