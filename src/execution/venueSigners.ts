import { z } from 'zod';
import { KeeperError } from '../lib/errors.js';

const venueSchema = z.object({ coSigners: z.array(z.string().regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/)).max(16) });

/**
 * The addresses the venue may add as co-signers of the transactions it hands out, declared once at start (never
 * taken from the response being checked): the config's `venue.coSigners`, and for the simulator its own declaration
 * (GET /__sim/venue: the market-maker vault that co-signs its swaps at settlement). Any other required signer is
 * refused by the guard.
 */
export async function declaredCoSigners(venue: { kind: 'simulator' | 'live'; coSigners: readonly string[] }, venueUrl: string, timeoutMs = 5_000): Promise<string[]> {
  if (venue.kind !== 'simulator') return [...venue.coSigners];
  const url = `${venueUrl.replace(/\/+$/, '')}/__sim/venue`;
  let body: unknown;
  try {
    const res = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    body = await res.json();
  } catch (err) {
    throw new KeeperError('VENUE_DECLARATION', 'halt', `the simulator at ${new URL(url).origin} did not declare its co-signers (GET /__sim/venue: ${err instanceof Error ? err.message : String(err)}); is it a jup-keeper simulator?`);
  }
  const parsed = venueSchema.safeParse(body);
  if (!parsed.success) throw new KeeperError('VENUE_DECLARATION', 'halt', `the simulator's GET /__sim/venue answered no list of co-signers: ${parsed.error.issues[0]?.message ?? 'bad shape'}`);
  return [...new Set([...venue.coSigners, ...parsed.data.coSigners])];
}
