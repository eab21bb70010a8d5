import { JUPITER_BASE_URL, type JupiterClientConfig } from '../jupiter/transport.js';
import type { KeeperEnv } from './env.js';
import type { KeeperConfig } from './load.js';

/**
 * The Jupiter client's settings for the venue at `baseUrl` from the config's `api` section and the environment, as
 * the keeper sends its requests (and the config's symbol look-ups send theirs): the API key goes to `api.keyedBaseUrl`
 * (else JUPITER_BASE_URL, else Jupiter's own origin) only, so a simulator gets none unless the config names it; a
 * simulator venue has no client-side rate limit unless `api.tier` sets one.
 */
export function jupiterClientOptions(o: { baseUrl: string; live: boolean; api: Partial<KeeperConfig['api']> | undefined; env: Pick<KeeperEnv, 'JUPITER_API_KEY' | 'JUPITER_BASE_URL'> | undefined }): JupiterClientConfig {
  const { api, env } = o;
  return {
    baseUrl: o.baseUrl,
    apiKey: env?.JUPITER_API_KEY,
    keyedBaseUrl: api?.keyedBaseUrl ?? env?.JUPITER_BASE_URL ?? JUPITER_BASE_URL,
    tier: api?.tier ?? (o.live ? undefined : 'off'),
    customRequestsPerMinute: api?.requestsPerMinute,
    timeoutMs: api?.timeoutMs,
  };
}
