import type { Venue } from '../venue.js';
import type { Reply } from './common.js';
import { reportedCreatedAt } from './tokenData.js';
import { priceChangePct, priceValue } from './tokenStats.js';

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
 * GET /price/v3?ids=: USD prices keyed by mint, for the distinct ids of the request (the route checks there are 1
 * to 50); unknown and malformed ids are simply left out, as the service does with mints it cannot price.
 */
export function prices(venue: Venue, ids: readonly string[]): Reply {
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
