import type { CallOptions, JupiterTransport } from '../transport.js';
import { getPlatforms, type GetPlatformsParams } from './getPlatforms.js';
import { getPositions, type GetPositionsParams } from './getPositions.js';
import { getStakedJup, type GetStakedJupParams } from './getStakedJup.js';

export * from './byType.js';
export * from './assets.js';
export * from './elements.js';
export * from './getPositions.js';
export * from './getPlatforms.js';
export * from './getStakedJup.js';

/** The Portfolio endpoints bound to one transport. */
export function bindPortfolio(t: JupiterTransport) {
  return {
    getPositions: (p: GetPositionsParams, o?: CallOptions) => getPositions(t, p, o),
    getPlatforms: (p?: GetPlatformsParams, o?: CallOptions) => getPlatforms(t, p, o),
    getStakedJup: (p: GetStakedJupParams, o?: CallOptions) => getStakedJup(t, p, o),
  };
}
/** The bound Portfolio endpoints. */
export type PortfolioApi = ReturnType<typeof bindPortfolio>;
