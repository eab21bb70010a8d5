import type { KeeperTask } from '../engine/keeperPorts.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperQueues } from './queues.js';

import type { Cadence } from '../engine/shards.js';

export type { Cadence };

/** What the scheduler role sets up. */
export interface SchedulePlan {
  feeds: { market: number; wallet: number; prediction: number | null };
  /** Shards of strategy instances (one evaluate job scheduler each; see planShards). */
  shards: ReadonlyArray<{ key: string; cadence: Cadence }>;
  reconcileEveryMs: number;
  /** Cadence of each keeper job, ms. */
  keeper: Record<KeeperTask, number>;
}

/**
 * Upserts every job scheduler (feeds, one per shard of strategy instances, the reconciler, the keeper jobs) and
 * removes schedulers of shards no longer configured: start-up costs a few upserts whatever the number of instances. Job schedulers live in Redis, so several instances upserting the same plan do
 * not multiply the jobs.
 */
export async function applySchedules(queues: KeeperQueues, plan: SchedulePlan, logger: Logger): Promise<void> {
  await queues.feeds.upsertJobScheduler('feed-market', { every: plan.feeds.market }, { name: 'feed', data: { feed: 'market' } });
  await queues.feeds.upsertJobScheduler('feed-wallet', { every: plan.feeds.wallet }, { name: 'feed', data: { feed: 'wallet' } });
  if (plan.feeds.prediction !== null) {
    await queues.feeds.upsertJobScheduler('feed-prediction', { every: plan.feeds.prediction }, { name: 'feed', data: { feed: 'prediction' } });
  } else {
    await queues.feeds.removeJobScheduler('feed-prediction');
  }
  const wanted = new Set<string>();
  for (const shard of plan.shards) {
    const id = `evaluate-${shard.key}`;
    wanted.add(id);
    const repeat = 'every' in shard.cadence ? { every: shard.cadence.every } : { pattern: shard.cadence.cron, tz: shard.cadence.tz };
    await queues.evaluate.upsertJobScheduler(id, repeat, { name: 'evaluate', data: { shard: shard.key } });
  }
  // Schedulers of shards the config no longer has (and of the per-instance schedulers of earlier versions).
  for (const existing of await queues.evaluate.getJobSchedulers()) {
    if ((existing.key.startsWith('evaluate-') || existing.key.startsWith('strategy-')) && !wanted.has(existing.key)) {
      await queues.evaluate.removeJobScheduler(existing.key);
      logger.info({ scheduler: existing.key }, 'removed the scheduler of a shard no longer configured');
    }
  }
  await queues.keeper.upsertJobScheduler('keeper-reconcile', { every: plan.reconcileEveryMs }, { name: 'reconcile', data: { task: 'reconcile' } });
  for (const [task, every] of Object.entries(plan.keeper)) {
    await queues.keeper.upsertJobScheduler(`keeper-${task}`, { every }, { name: task, data: { task } });
  }
  logger.info({ shards: plan.shards.map((s) => s.key) }, 'job schedulers upserted');
}
