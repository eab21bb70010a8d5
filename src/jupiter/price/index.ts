import type { CallOptions, JupiterTransport } from '../transport.js';
import { getPrices, type GetPricesParams } from './getPrices.js';

export * from './getPrices.js';

/** The Price V3 endpoint bound to one transport. */
export function bindPrice(t: JupiterTransport) {
  return {
    getPrices: (p: GetPricesParams, o?: CallOptions) => getPrices(t, p, o),
  };
}
/** The bound Price V3 endpoint. */
export type PriceApi = ReturnType<typeof bindPrice>;
