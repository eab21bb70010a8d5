import type { Redis } from 'ioredis';
import { jupiterClientOptions } from '../config/clientOptions.js';
import type { KeeperConfig } from '../config/load.js';
import type { KeeperMetrics } from '../dashboard/metrics.js';
import { createJupiterClient, type JupiterClient } from '../jupiter/client.js';
import type { Logger } from '../lib/logger.js';
import { bucketNamespaceFor, RedisBucketStore } from '../store/rateBucket.js';

/**
 * The keeper's Jupiter client for the venue at `venueUrl`: the config's API settings (jupiterClientOptions), its
 * rate bucket in Redis, and the dashboard's response metrics when one is served.
 */
export function keeperJupiterClient(config: KeeperConfig, venueUrl: string, p: { redis: Redis; prefix: string; metrics: KeeperMetrics | undefined; logger: Logger }): JupiterClient {
  const { metrics } = p;
  return createJupiterClient({
    ...jupiterClientOptions({ baseUrl: venueUrl, live: config.venue.kind === 'live', api: config.api, env: config.env }),
    onResponse: metrics && ((r) => metrics.observeResponse(r.status)),
    // One bucket per API key on this Redis, shared with every keeper whatever its prefix (not namespaced by it).
    bucketStore: new RedisBucketStore(p.redis, bucketNamespaceFor(p.prefix)),
    logger: p.logger.child({ component: 'jupiter' }),
  });
}
