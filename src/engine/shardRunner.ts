import type { Logger } from '../lib/logger.js';
import type { DecisionSummary } from './ports.js';
import { evaluateShard, type EvaluateDeps, type EvaluatedInstance } from './evaluate.js';
import { windowOf, type DecisionWindow } from './ids.js';
import { planShards, type Cadence, type ShardPlanEntry } from './shards.js';

/** A configured instance as the shard runner needs it. */
export interface ScheduledInstance extends EvaluatedInstance {
  cadence: Cadence;
  /** Decides also on every new price snapshot. */
  reactive?: boolean | undefined;
}

/** What woke an evaluation: the shard's schedule, or a new price snapshot (reactive shards only). */
export type EvaluationTrigger = { kind: 'schedule'; scheduledAtMs: number } | { kind: 'prices'; snapshotAt: number };

/** Evaluates the shards of one config: what the evaluate queue's jobs call. */
export interface ShardRunner {
  /** The shards, for the scheduler. */
  readonly plan: readonly ShardPlanEntry[];
  /** The shards a new price snapshot wakes. */
  readonly reactive: readonly string[];
  /** One evaluation of a shard; undefined for a shard this config does not have. */
  run(shardKey: string, trigger: EvaluationTrigger): Promise<Map<string, DecisionSummary> | undefined>;
}

/**
 * The shards of a config's instances (planShards), each found in a map by its key, evaluated with one set of
 * dependencies. A job for a shard this process's config does not have (another keeper's config, or the config
 * changed) is skipped with a warning: its instances are not this process's to decide.
 *
 * A reactive shard decides on its schedule and on every new price snapshot. A snapshot's evaluation is its own
 * decision window, starting at the snapshot's time: the same snapshot replayed decides nothing twice, and a
 * scheduled window that starts before an evaluation already made is late and changes nothing.
 */
export function shardRunner(instances: readonly ScheduledInstance[], maxPerShard: number, deps: Omit<EvaluateDeps, 'logger'> & { logger: Logger }): ShardRunner {
  const plan = planShards(instances.map((i) => ({ id: i.id, cadence: i.cadence, reactive: i.reactive === true })), maxPerShard);
  const byId = new Map(instances.map((i) => [i.id, i]));
  const shards = new Map(plan.map((s) => [s.key, { key: s.key, cadence: s.cadence, reactive: s.reactive, instances: s.instances.map((id) => byId.get(id)!) }]));
  const decisionCache = deps.decisionCache ?? new Map<string, string>();
  return {
    plan,
    reactive: plan.filter((s) => s.reactive).map((s) => s.key),
    async run(shardKey, trigger) {
      const shard = shards.get(shardKey);
      if (!shard) {
        deps.logger.warn({ shard: shardKey }, 'no such shard in this config; skipping its evaluation');
        return undefined;
      }
      let window: DecisionWindow;
      if (trigger.kind === 'prices') {
        if (!shard.reactive) return undefined;
        window = { id: trigger.snapshotAt, start: trigger.snapshotAt };
      } else {
        window = windowOf(trigger.scheduledAtMs, 'every' in shard.cadence ? shard.cadence.every : undefined);
      }
      return evaluateShard(shard, window, Date.now(), { ...deps, decisionCache });
    },
  };
}
