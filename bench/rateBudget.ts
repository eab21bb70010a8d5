// The rate budget under ten times its demand: the simulator's gateway set to the developer tier (600 requests a
// minute) for one API key, one `jup-keeper run` of that key asking for 100 requests a second (50 dca-swap instances,
// an Ultra order and execute each every second, plus the feeds). Over the measured window: the share of the tier's
// requests the gateway let through, the 429s it answered, and the depth of the execute queue (sampled every second).
import type { Redis } from 'ioredis';
import { apiKeyId } from '../src/jupiter/rateBudget.js';
import { KeeperQueues } from '../src/scheduler/queues.js';
import { RATE_BUCKET_NAMESPACE } from '../src/store/rateBucket.js';
import { benchPrefix, deploy } from './lib/keepers.js';
import { sleep, waitFor } from './lib/procs.js';
import { dcaSwappers, fundedWallet, gatewayCounts, keeperConfig, settledCount, type Venue } from './lib/venue.js';

/** Requests a minute of the tier. */
export const TIER_RPM = 600;
const INSTANCES = 50;
const CONCURRENCY = 4;
const MAX_BACKLOG = 100;

/** What the rate-budget run measured. */
export interface RateBudgetResult {
  windowSeconds: number;
  /** Requests a second the configuration asks for (swaps only; the feeds add about one more). */
  demandPerSecond: number;
  allowed: number;
  tooMany: number;
  /** Allowed over what the tier allows in the window. */
  share: number;
  /** Most execute jobs waiting, delayed or active at one sample. */
  peakQueue: number;
  /** The same over the last half of the window (a queue that grows shows it here). */
  peakQueueLastHalf: number;
  /** What backpressure bounds the queue to: execution.maxBacklog, one window of decisions, the executions in hand. */
  queueBound: number;
  swapsSettled: number;
  errors: string[];
}

/** A venue that knows the key as `developer` must be given (its process is the caller's). */
export async function benchRateBudget(o: { seconds: number; warmupSeconds: number; apiKey: string }, env: { redis: Redis; redisUrl: string; venue: Venue; dir: string }): Promise<RateBudgetResult> {
  const prefix = benchPrefix('rate');
  const wallet = await fundedWallet(env.venue.url, env.dir, prefix, { sol: 1_000_000_000_000n, usdc: 0n });
  const config = keeperConfig({
    venueUrl: env.venue.url,
    walletPath: wallet.path,
    prefix,
    strategies: dcaSwappers(INSTANCES, '1s', 10_000_000n),
    execution: { concurrency: CONCURRENCY, maxBacklog: MAX_BACKLOG },
    feeds: { prices: '5s', wallet: '5s' },
    api: { tier: 'developer', keyedBaseUrl: env.venue.url },
  });
  // The bucket of the key lives outside the prefix (one per key on the server): removed with the run.
  const bucketKeys = `${RATE_BUCKET_NAMESPACE}:ratebucket:${apiKeyId(o.apiKey)}*`;
  const d = deploy({ redis: env.redis, redisUrl: env.redisUrl, dir: env.dir, prefix, config, env: { JUPITER_API_KEY: o.apiKey }, extraKeys: [bucketKeys] });
  const queues = new KeeperQueues(env.redis, prefix);
  try {
    await waitFor('the keeper\'s first settled swap', async () => (await settledCount(env.venue.url, wallet.address)) > 0, 90_000, 250);
    await sleep(o.warmupSeconds * 1000);
    await gatewayCounts(env.venue.url, true);
    const s0 = await settledCount(env.venue.url, wallet.address);
    const t0 = performance.now();
    const depths: Array<{ at: number; depth: number }> = [];
    while (performance.now() - t0 < o.seconds * 1000) {
      const c = await queues.execute.getJobCounts('waiting', 'delayed', 'prioritized', 'active', 'waiting-children');
      depths.push({ at: performance.now() - t0, depth: Object.values(c).reduce((a, b) => a + b, 0) });
      await sleep(1_000);
    }
    const counts = await gatewayCounts(env.venue.url);
    const windowSeconds = (performance.now() - t0) / 1000;
    const s1 = await settledCount(env.venue.url, wallet.address);
    const lastHalf = depths.filter((x) => x.at >= (o.seconds * 1000) / 2);
    return {
      windowSeconds,
      demandPerSecond: (INSTANCES * 2) / 1,
      allowed: counts.allowed,
      tooMany: counts.tooMany,
      share: counts.allowed / ((TIER_RPM * windowSeconds) / 60),
      peakQueue: Math.max(...depths.map((x) => x.depth)),
      peakQueueLastHalf: Math.max(...lastHalf.map((x) => x.depth)),
      queueBound: MAX_BACKLOG + INSTANCES + CONCURRENCY,
      swapsSettled: s1 - s0,
      errors: d.processes.flatMap((p) => p.errors()),
    };
  } finally {
    await queues.close();
    await d.stop();
  }
}
