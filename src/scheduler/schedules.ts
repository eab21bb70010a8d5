import type { KeeperTask } from '../engine/keeperPorts.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperQueues } from './queues.js';

/** A strategy's cadence. */
export type Cadence = { every: number } | { cron: string; tz?: string | undefined };

/** What the scheduler role sets up. */
export interface SchedulePlan {
  feeds: { market: number; wallet: number; prediction: number | null };
  strategies: Array<{ id: string; cadence: Cadence }>;
  reconcileEveryMs: number;
  /** Cadence of each keeper job, ms. */
  keeper: Record<KeeperTask, number>;
}

/**
 * Upserts every job scheduler (feeds, one per enabled strategy instance, the reconciler) and removes schedulers of
 * strategies no longer configured. Job schedulers live in Redis, so several instances upserting the same plan do
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
  for (const s of plan.strategies) {
    const id = `strategy-${s.id}`;
    wanted.add(id);
    const repeat = 'every' in s.cadence ? { every: s.cadence.every } : { pattern: s.cadence.cron, tz: s.cadence.tz };
    await queues.evaluate.upsertJobScheduler(id, repeat, { name: 'evaluate', data: { instance: s.id } });
  }
  for (const existing of await queues.evaluate.getJobSchedulers()) {
    if (existing.key.startsWith('strategy-') && !wanted.has(existing.key)) {
      await queues.evaluate.removeJobScheduler(existing.key);
      logger.info({ scheduler: existing.key }, 'removed the scheduler of a strategy no longer configured');
    }
  }
  await queues.keeper.upsertJobScheduler('keeper-reconcile', { every: plan.reconcileEveryMs }, { name: 'reconcile', data: { task: 'reconcile' } });
  for (const [task, every] of Object.entries(plan.keeper)) {
    await queues.keeper.upsertJobScheduler(`keeper-${task}`, { every }, { name: task, data: { task } });
  }
  logger.info({ strategies: plan.strategies.map((s) => s.id) }, 'job schedulers upserted');
}
