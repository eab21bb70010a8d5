import type { CallOptions, JupiterTransport } from '../transport.js';
import { buildSwap } from './buildSwap.js';
import { getProgramIdToLabel } from './getProgramIdToLabel.js';
import { getQuote, type GetQuoteParams } from './getQuote.js';
import { getSwapInstructions } from './getSwapInstructions.js';
import type { SwapRequestParams } from './swapRequest.js';

export * from './buildSwap.js';
export * from './getProgramIdToLabel.js';
export * from './getQuote.js';
export * from './getSwapInstructions.js';
export * from './routeError.js';
export * from './swapRequest.js';

/** The legacy Metis Swap API (`/swap/v1`) bound to one transport. */
export function bindSwap(t: JupiterTransport) {
  return {
    getQuote: (p: GetQuoteParams, o?: CallOptions) => getQuote(t, p, o),
    buildSwap: (p: SwapRequestParams, o?: CallOptions) => buildSwap(t, p, o),
    getSwapInstructions: (p: SwapRequestParams, o?: CallOptions) => getSwapInstructions(t, p, o),
    getProgramIdToLabel: (o?: CallOptions) => getProgramIdToLabel(t, o),
  };
}

/** The bound Swap V1 functions. */
export type SwapApi = ReturnType<typeof bindSwap>;
