import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { chunk, pubkey } from '../schemas.js';

/** At most this many ids per `/price/v3` request (jupiter-api.md §3). */
export const PRICE_IDS_PER_REQUEST = 50;

/** One token's price. `usdPrice` is a float (prices may be numbers; amounts may not). */
export const tokenPriceSchema = z.object({
  usdPrice: z.number().finite().nonnegative(),
  blockId: z.number().int().nullable().optional(),
  decimals: z.number().int().min(0).max(255),
  priceChange24h: z.number().nullable().optional(),
  createdAt: z.string().optional(),
  liquidity: z.number().optional(),
});

/**
 * The `/price/v3` body: an object keyed by mint. Unknown or unpriced mints are omitted by the service; a `null`
 * value (seen on older price APIs) is treated the same way and dropped.
 */
export const priceResponseSchema = z
  .record(z.string(), tokenPriceSchema.nullable())
  .transform((rec) => {
    const out: Record<string, z.output<typeof tokenPriceSchema>> = {};
    for (const [mint, price] of Object.entries(rec)) if (price) out[mint] = price;
    return out;
  });

/** A parsed price. */
export type TokenPrice = z.output<typeof tokenPriceSchema>;
/** Prices keyed by mint; mints the service does not price are absent. */
export type PriceMap = Record<string, TokenPrice>;

/** Parameters of getPrices. */
export interface GetPricesParams {
  /** Mints to price; duplicates are removed. Any number: the client sends one request per 50 distinct mints. */
  ids: readonly string[];
}

/**
 * GET /price/v3: USD prices for any number of mints, one request per 50 distinct mints, merged into one map.
 * Mints the service omits are simply absent.
 */
export async function getPrices(client: JupiterTransport, params: GetPricesParams, options: CallOptions = {}): Promise<PriceMap> {
  const ids = [...new Set(params.ids)];
  if (ids.length === 0) throw new LimitError('price.get', 'price.ids.empty', 'at least one mint id is required');
  for (const id of ids) {
    if (!pubkey.safeParse(id).success) throw new LimitError('price.get', 'price.ids.address', `not a base58 mint address: ${JSON.stringify(id)}`);
  }
  const batches = chunk(ids, PRICE_IDS_PER_REQUEST);
  const results = await Promise.all(
    batches.map((batch) =>
      client.request({
        endpoint: 'price.get',
        method: 'GET',
        path: '/price/v3',
        query: { ids: batch.join(',') },
        schema: priceResponseSchema,
        signal: options.signal,
      }),
    ),
  );
  const merged: PriceMap = {};
  for (const result of results) Object.assign(merged, result);
  return merged;
}
