import { JUPITER_BASE_URL } from '../jupiter/transport.js';
import { KeeperError } from '../lib/errors.js';
import type { KeeperEnv } from './env.js';
import type { KeeperConfig } from './load.js';

/**
 * The venue's origin: `override` (run's --venue-url), else the config's `venue.url`, else for a live venue
 * JUPITER_BASE_URL or Jupiter's own; undefined for a simulator venue without a URL (the in-process simulator).
 */
export function venueBaseUrl(venue: Pick<KeeperConfig['venue'], 'kind' | 'url'>, env: Pick<KeeperEnv, 'JUPITER_BASE_URL'> | undefined, override?: string): string | undefined {
  return override ?? venue.url ?? (venue.kind === 'live' ? (env?.JUPITER_BASE_URL ?? JUPITER_BASE_URL) : undefined);
}

/**
 * The Solana RPC a venue's transactions go through: the configured `venue.rpcUrl`, else SOLANA_RPC_URL for a live
 * venue, else the simulator's own at `<base>/rpc`; undefined for a live venue with neither.
 */
export function venueRpcUrl(venue: Pick<KeeperConfig['venue'], 'kind' | 'rpcUrl'>, base: string, solanaRpcUrl: string | undefined): string | undefined {
  return venue.rpcUrl ?? (venue.kind === 'live' ? solanaRpcUrl : `${base.replace(/\/+$/, '')}/rpc`);
}

/** Resolves the venue's URLs for a config: the live API or an explicit venue URL. */
export function venueUrls(config: KeeperConfig, venueUrl: string | undefined): { venueUrl: string; rpcUrl: string } {
  const base = venueBaseUrl(config.venue, config.env, venueUrl);
  if (!base) throw new KeeperError('VENUE_URL', 'halt', 'no venue URL: start the simulator in-process or pass --venue-url');
  const rpcUrl = venueRpcUrl(config.venue, base, config.env.SOLANA_RPC_URL);
  if (!rpcUrl) throw new KeeperError('RPC_URL', 'halt', 'a live venue needs a Solana RPC endpoint: venue.rpcUrl or SOLANA_RPC_URL');
  return { venueUrl: base, rpcUrl };
}
