import { z } from 'zod';
import type { Venue } from '../venue.js';
import type { Reply } from './common.js';
import { reportedCreatedAt } from './tokenData.js';
import { priceChangePct, priceValue } from './tokenStats.js';

/** At most this many distinct ids per `/price/v3` request. */
export const PRICE_IDS_MAX = 50;

/** Query of GET /price/v3. */
export const priceQuery = z.object({ ids: z.string({ error: 'is required' }).max(20_000, 'is too long') });

/** One entry of the `/price/v3` body. */
export interface PriceEntry {
  usdPrice: number;
  blockId: number;
  decimals: number;
  /** Percent. */
  priceChange24h: number | null;
  createdAt: string;
  /** USD. */
  liquidity: number;
}

/**
 * GET /price/v3?ids=: USD prices keyed by mint. Up to 50 distinct ids; unknown and malformed ids are simply left
 * out, as the service does with mints it cannot price.
 */
export function prices(venue: Venue, idsParam: string): Reply {
  const ids = [...new Set(idsParam.split(',').map((id) => id.trim()).filter((id) => id !== ''))];
  if (ids.length === 0) return { status: 400, body: { error: 'ids: at least one mint is required' } };
  if (ids.length > PRICE_IDS_MAX) return { status: 400, body: { error: `Too many ids: at most ${PRICE_IDS_MAX} per request, got ${ids.length}` } };
  const blockId = Number(venue.clock.slot());
  const out: Record<string, PriceEntry> = {};
  for (const id of ids) {
    const token = venue.token(id);
    const usd = venue.prices.usd(id);
    if (!token || usd === undefined) continue;
    out[id] = {
      usdPrice: priceValue(usd),
      blockId,
      decimals: token.decimals,
      priceChange24h: priceChangePct(venue, token, 86_400_000),
      createdAt: reportedCreatedAt(venue, token),
      liquidity: token.liquidityUsd,
    };
  }
  return { status: 200, body: out };
}
