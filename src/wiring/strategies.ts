import type { ConfiguredStrategy, KeeperConfig } from '../config/load.js';
import type { IsolatedDecider } from '../engine/evaluate.js';
import { shardRunner, type ScheduledInstance, type ShardRunner } from '../engine/shardRunner.js';
import type { ShardPlanEntry } from '../engine/shards.js';
import type { watchedSets } from '../engine/watchedMints.js';
import { KeeperError } from '../lib/errors.js';
import type { EventPublisher } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperQueues } from '../scheduler/queues.js';
import type { SchedulePlan } from '../scheduler/schedules.js';
import { intentLedger, snapshotSource } from '../store/engineStore.js';
import type { KeeperStorage } from './storage.js';

/**
 * The config's strategy instances as the shard runner evaluates them: their cadence from the schedule, and for a
 * strategy of the user's own the thread its module was loaded in (`threads`, by module path: src/cli/strategies.ts).
 * A module that was not loaded stops the start (CONFIG_INVALID).
 */
export function scheduledInstances(instances: readonly ConfiguredStrategy[], threads: ReadonlyMap<string, IsolatedDecider> | undefined): ScheduledInstance[] {
  const isolated = (s: ConfiguredStrategy): IsolatedDecider | undefined => {
    if (s.source === undefined) return undefined;
    const thread = threads?.get(s.source);
    if (!thread) throw new KeeperError('CONFIG_INVALID', 'halt', `strategy ${s.id}: its module ${s.source} was not loaded`);
    return thread;
  };
  return instances.map((s) => ({ id: s.id, definition: s.definition, params: s.params, dailyBudgetUsd: s.dailyBudgetUsd, reactive: s.reactive, isolated: isolated(s), cadence: 'every' in s.schedule ? { every: s.schedule.every } : { cron: s.schedule.cron, tz: s.schedule.tz } }));
}

/**
 * The shards of the config's enabled instances (`instances`) and what evaluates them: the snapshots, the ledger, the
 * strategy states and risk counters in Redis, the execute queue, and the config's risk limits, backpressure and
 * snapshot ages.
 */
export function strategyShards(config: KeeperConfig, instances: readonly ConfiguredStrategy[], threads: ReadonlyMap<string, IsolatedDecider> | undefined, p: { store: KeeperStorage; queues: KeeperQueues; events: EventPublisher; logger: Logger }): ShardRunner {
  const { store, queues } = p;
  return shardRunner(scheduledInstances(instances, threads), config.execution.shardSize, {
    snapshots: snapshotSource(store.snapshots),
    ledger: intentLedger(store.intents),
    states: store.states,
    counters: store.risk,
    enqueue: (intentId) => queues.enqueueIntent(intentId),
    enqueueMany: (intentIds) => queues.enqueueIntents(intentIds),
    backlog: () => store.intents.countInState('planned'),
    maxBacklog: config.execution.maxBacklog,
    limits: config.risk,
    maxIntentsPerEvaluation: config.risk.maxIntentsPerEvaluation,
    deadlineMs: config.execution.deadline,
    maxPriceAgeMs: config.feeds.maxPriceAge,
    maxWalletAgeMs: config.feeds.maxWalletAge,
    events: p.events,
    logger: p.logger.child({ component: 'evaluate' }),
  });
}

/**
 * What the scheduler role sets up for a config: the feeds at their cadences (the prediction feed only when a strategy
 * watches prediction events or markets), one evaluate scheduler per shard, the reconciler and the keeper jobs.
 */
export function schedulePlan(config: KeeperConfig, watched: ReturnType<typeof watchedSets>, shards: readonly ShardPlanEntry[]): SchedulePlan {
  const { feeds, keeper } = config;
  return {
    feeds: { market: feeds.prices, wallet: feeds.wallet, prediction: watched.categories.size + watched.markets.size > 0 ? feeds.prediction : null },
    shards,
    reconcileEveryMs: config.execution.reconcileEvery,
    keeper: { claims: keeper.claimEvery, 'venue-reconcile': keeper.reconcileVenueEvery, 'stale-orders': keeper.staleOrderEvery, sweep: keeper.sweepEvery, 'cancel-resting': keeper.cancelRestingEvery },
  };
}
