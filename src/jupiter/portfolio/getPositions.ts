import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';
import { portfolioElementSchema } from './elements.js';

/** Parameters of getPositions. */
export interface GetPositionsParams {
  /** Wallet address. */
  address: string;
  /** Platform ids to limit the scan to, e.g. `jupiter-exchange` (see getPlatforms); all platforms when absent. */
  platforms?: readonly string[] | undefined;
}

/**
 * How one platform fetcher ran. The spec enum is `succeeded|failed`; its example sends `"ok"` (jupiter-api.md
 * §13.5), which is read as `succeeded`.
 */
export const fetcherReportSchema = z.object({
  id: z.string(),
  status: z.enum(['succeeded', 'failed', 'ok']).transform((s) => (s === 'ok' ? ('succeeded' as const) : s)),
  /** ms. */
  duration: z.number().nullish(),
  error: z.string().nullish(),
});
/** A parsed fetcher report. */
export type FetcherReport = z.output<typeof fetcherReportSchema>;

/** Token metadata the response carries for the assets it lists. */
export const portfolioTokenInfoSchema = z.object({
  address: z.string(),
  name: z.string(),
  decimals: z.number().int().min(0).max(255),
  symbol: z.string(),
  logoURI: z.string().nullish(),
  tags: z.array(z.string()).nullish(),
});

/** The `/portfolio/v1/positions/{address}` body. */
export const positionsResponseSchema = z.object({
  /** When the portfolio was computed, ms. */
  date: z.number(),
  owner: z.string(),
  fetcherReports: z.array(fetcherReportSchema).default([]),
  elements: z.array(portfolioElementSchema),
  /** Total USD value, when the service sends it. */
  value: z.number().nullish(),
  /** ms. */
  duration: z.number().nullish(),
  /** Token metadata by network, then by mint. */
  tokenInfo: z.object({ solana: z.record(z.string(), portfolioTokenInfoSchema).nullish() }).nullish(),
});
/** A parsed portfolio. */
export type Positions = z.output<typeof positionsResponseSchema>;

const ENDPOINT = 'portfolio.positions';

/** GET /portfolio/v1/positions/{address}: every DeFi position of a wallet (beta; 100 credits a call). */
export async function getPositions(client: JupiterTransport, params: GetPositionsParams, options: CallOptions = {}): Promise<Positions> {
  if (!pubkey.safeParse(params.address).success) {
    throw new LimitError(ENDPOINT, 'portfolio.positions.address', `not a base58 wallet address: ${JSON.stringify(params.address)}`);
  }
  const platforms = params.platforms === undefined ? undefined : [...new Set(params.platforms)];
  for (const id of platforms ?? []) {
    if (!/^[^,\s]+$/.test(id)) {
      throw new LimitError(ENDPOINT, 'portfolio.positions.platforms.id', `not a platform id: ${JSON.stringify(id)}`);
    }
  }
  return client.request({
    endpoint: ENDPOINT,
    method: 'GET',
    path: `/portfolio/v1/positions/${params.address}`,
    query: { platforms: platforms && platforms.length > 0 ? platforms.join(',') : undefined },
    schema: positionsResponseSchema,
    signal: options.signal,
  });
}
