// Start-up: from spawning `jup-keeper run` to the first evaluation of every shard (the job of each shard's first tick
// finished), and to the first decision on snapshots of every shard (its applied window written: the first ticks may
// come before the feeds' first snapshots, and then the instances decide at the next tick).
import type { Redis } from 'ioredis';
import { allShardsDecided, allShardsEvaluated, benchPrefix, deploy, shardKeys } from './lib/keepers.js';
import { fundedWallet, idleRebalancers, keeperConfig, type Venue } from './lib/venue.js';

/** What a start-up run measured. */
export interface StartupResult {
  instances: number;
  /** Spawn to every shard's first evaluation finished, ms. */
  firstEvaluationMs: number;
  /** Spawn to every shard's first committed decision, ms. */
  firstDecisionMs: number;
  /** Spawn to the keeper's 'keeper started' log line (modules loaded, Redis checked, workers and schedulers up), ms. */
  startedMs: number | undefined;
  errors: string[];
}

/** Starts one keeper with `instances` idle instances every `everyMs` and stops it once every shard has decided. */
export async function benchStartup(o: { instances: number; everyMs: number }, env: { redis: Redis; redisUrl: string; venue: Venue; dir: string }): Promise<StartupResult> {
  const prefix = benchPrefix(`start${o.instances}`);
  const ids = Array.from({ length: o.instances }, (_, i) => `r-${i}`);
  const shards = shardKeys(ids, o.everyMs);
  const wallet = await fundedWallet(env.venue.url, env.dir, prefix, { sol: 10_000_000_000n, usdc: 2_000_000_000n });
  const every = `${o.everyMs / 1000}s`;
  const config = keeperConfig({ venueUrl: env.venue.url, walletPath: wallet.path, prefix, strategies: idleRebalancers(o.instances, every), feeds: { prices: every, wallet: every } });
  // At info level the keeper logs when it has started: the split between loading and the first evaluation.
  const d = deploy({ redis: env.redis, redisUrl: env.redisUrl, dir: env.dir, prefix, config, env: { LOG_LEVEL: 'info' } });
  try {
    const spawnedAt = d.processes[0]!.spawnedAt;
    const evaluatedAt = await allShardsEvaluated(d, shards, 0, 60_000);
    const decidedAt = await allShardsDecided(env.redis, prefix, shards, 3 * o.everyMs + 30_000);
    const started = d.processes[0]!.firstLog('keeper started');
    return { instances: o.instances, firstEvaluationMs: evaluatedAt - spawnedAt, firstDecisionMs: decidedAt - spawnedAt, startedMs: started === undefined ? undefined : started - spawnedAt, errors: d.processes.flatMap((p) => p.errors()) };
  } finally {
    await d.stop();
  }
}
