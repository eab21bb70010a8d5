import type { CallOptions, JupiterTransport } from '../transport.js';
import { executeOrder, type ExecuteOrderParams } from './execute.js';
import { getHoldings } from './getHoldings.js';
import { getNativeHoldings, type GetHoldingsParams } from './getNativeHoldings.js';
import { getOrder, type GetOrderParams } from './getOrder.js';
import { getRouters } from './getRouters.js';
import { getShield, type GetShieldParams } from './getShield.js';
import { searchTokens, type SearchTokensParams } from './searchTokens.js';

export * from './execute.js';
export * from './getHoldings.js';
export * from './getNativeHoldings.js';
export * from './getOrder.js';
export * from './getRouters.js';
export * from './getShield.js';
export * from './mintInformation.js';
export * from './orderEngine.js';
export * from './searchTokens.js';

/** The Ultra Swap API (`/ultra/v1`) bound to one transport. */
export function bindUltra(t: JupiterTransport) {
  return {
    getOrder: (p: GetOrderParams, o?: CallOptions) => getOrder(t, p, o),
    executeOrder: (p: ExecuteOrderParams, o?: CallOptions) => executeOrder(t, p, o),
    searchTokens: (p: SearchTokensParams, o?: CallOptions) => searchTokens(t, p, o),
    getHoldings: (p: GetHoldingsParams, o?: CallOptions) => getHoldings(t, p, o),
    getNativeHoldings: (p: GetHoldingsParams, o?: CallOptions) => getNativeHoldings(t, p, o),
    getShield: (p: GetShieldParams, o?: CallOptions) => getShield(t, p, o),
    getRouters: (o?: CallOptions) => getRouters(t, o),
  };
}

/** The bound Ultra functions. */
export type UltraApi = ReturnType<typeof bindUltra>;
