import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { toBaseUnits } from '../../lib/amounts.js';
import { PREDICTION_PATH, checkId } from './common.js';

/** Parameters of GET /orderbook/{marketId}. */
export interface GetOrderbookParams {
  marketId: string;
}

/** One level priced in whole cents (rounded: sub-cent levels show 0). `size` is in contracts and may be fractional. */
export interface CentsLevel {
  priceCents: number;
  size: number;
}
/** One level priced exactly, in micro-USD (from the `*_dollars` arrays). `size` is in contracts. */
export interface MicroUsdLevel {
  priceMicroUsd: bigint;
  size: number;
}

const centsLevel = z.tuple([z.number(), z.number()]).transform(([priceCents, size]): CentsLevel => ({ priceCents, size }));

/** A `[price, size]` tuple whose price is a decimal dollar string ("0.0100"); the price becomes exact micro-USD. */
const dollarsLevel = z.tuple([z.union([z.string(), z.number()]), z.union([z.number(), z.string()])]).transform(([price, size], ctx): MicroUsdLevel => {
  let priceMicroUsd: bigint;
  try {
    priceMicroUsd = toBaseUnits(typeof price === 'number' ? price.toFixed(6) : price, 6);
  } catch {
    ctx.addIssue({ code: 'custom', path: [0], message: `expected a dollar price with at most 6 decimals, got ${JSON.stringify(price)}` });
    return z.NEVER;
  }
  const n = typeof size === 'number' ? size : Number(size);
  if (!Number.isFinite(n) || n < 0) {
    ctx.addIssue({ code: 'custom', path: [1], message: `expected a non-negative size, got ${JSON.stringify(size)}` });
    return z.NEVER;
  }
  return { priceMicroUsd, size: n };
});

const dollarsSide = z
  .array(dollarsLevel)
  .nullish()
  .transform((levels) => levels ?? []);

/**
 * The GET /orderbook/{marketId} body: YES and NO levels ascending by price, in cents and (exactly) in dollars,
 * or null when the service has no book for the market.
 */
export const orderbookResponseSchema = z
  .object({
    yes: z.array(centsLevel),
    no: z.array(centsLevel),
    yes_dollars: dollarsSide,
    no_dollars: dollarsSide,
  })
  .nullable();
/** A parsed orderbook, or null. */
export type Orderbook = z.output<typeof orderbookResponseSchema>;

const ENDPOINT = 'prediction.getOrderbook';

/** GET /prediction/v1/orderbook/{marketId}: depth on both sides. A 502 (upstream failure) throws ServerError after retries. */
export async function getOrderbook(client: JupiterTransport, params: GetOrderbookParams, options: CallOptions = {}): Promise<Orderbook> {
  checkId(ENDPOINT, 'marketId', params.marketId);
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `${PREDICTION_PATH}/orderbook/${encodeURIComponent(params.marketId)}`,
    schema: orderbookResponseSchema,
    signal: options.signal,
  });
}
