import { JUPITER_BASE_URL } from '../jupiter/transport.js';
import { KeeperError } from '../lib/errors.js';
import type { KeeperConfig } from './load.js';

/** Resolves the venue's URLs for a config: the live API or an explicit venue URL. */
export function venueUrls(config: KeeperConfig, venueUrl: string | undefined): { venueUrl: string; rpcUrl: string } {
  const base = venueUrl ?? config.venue.url ?? (config.venue.kind === 'live' ? (config.env.JUPITER_BASE_URL ?? JUPITER_BASE_URL) : undefined);
  if (!base) throw new KeeperError('VENUE_URL', 'halt', 'no venue URL: start the simulator in-process or pass --venue-url');
  const rpcUrl = config.venue.rpcUrl ?? (config.venue.kind === 'live' ? config.env.SOLANA_RPC_URL : `${base.replace(/\/+$/, '')}/rpc`);
  if (!rpcUrl) throw new KeeperError('RPC_URL', 'halt', 'a live venue needs a Solana RPC endpoint: venue.rpcUrl or SOLANA_RPC_URL');
  return { venueUrl: base, rpcUrl };
}
