import { z } from 'zod';
import { address } from './params.js';

/*
 * Requests of the Portfolio API (beta), /portfolio/v1 (openapi/portfolio.yaml; jupiter-api.md §10). Bad input is
 * answered `{error}` with 400.
 */

/** The wallet of /positions/{address} and /staked-jup/{address}. */
export const walletPath = address;

/** Query of GET /positions/{address}: `platforms`, optional, comma-separated platform ids (none: every platform). */
export const positionsQuery = z.object({
  platforms: z
    .string()
    .transform((s) => s.split(',').map((p) => p.trim()).filter(Boolean))
    .optional(),
});
/** A parsed positions query. */
export type PositionsQuery = z.output<typeof positionsQuery>;
