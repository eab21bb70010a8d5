import type { Logger } from '../lib/logger.js';
import type { DecisionSummary } from './ports.js';
import { evaluateShard, type EvaluateDeps, type EvaluatedInstance } from './evaluate.js';
import { windowOf } from './ids.js';
import { planShards, type Cadence, type ShardPlanEntry } from './shards.js';

/** A configured instance as the shard runner needs it. */
export interface ScheduledInstance extends EvaluatedInstance {
  cadence: Cadence;
}

/** Evaluates the shards of one config: what the evaluate queue's jobs call. */
export interface ShardRunner {
  /** The shards, for the scheduler. */
  readonly plan: readonly ShardPlanEntry[];
  /** One tick of a shard, scheduled at `scheduledAtMs`; undefined for a shard this config does not have. */
  run(shardKey: string, scheduledAtMs: number): Promise<Map<string, DecisionSummary> | undefined>;
}

/**
 * The shards of a config's instances (planShards), each found in a map by its key, evaluated with one set of
 * dependencies. A job for a shard this process's config does not have (another keeper's config, or the config
 * changed) is skipped with a warning: its instances are not this process's to decide.
 */
export function shardRunner(instances: readonly ScheduledInstance[], maxPerShard: number, deps: Omit<EvaluateDeps, 'logger'> & { logger: Logger }): ShardRunner {
  const plan = planShards(instances.map((i) => ({ id: i.id, cadence: i.cadence })), maxPerShard);
  const byId = new Map(instances.map((i) => [i.id, i]));
  const shards = new Map(plan.map((s) => [s.key, { key: s.key, cadence: s.cadence, instances: s.instances.map((id) => byId.get(id)!) }]));
  const decisionCache = deps.decisionCache ?? new Map<string, string>();
  return {
    plan,
    async run(shardKey, scheduledAtMs) {
      const shard = shards.get(shardKey);
      if (!shard) {
        deps.logger.warn({ shard: shardKey }, 'no such shard in this config; skipping its evaluation');
        return undefined;
      }
      const window = windowOf(scheduledAtMs, 'every' in shard.cadence ? shard.cadence.every : undefined);
      return evaluateShard(shard, window, Date.now(), { ...deps, decisionCache });
    },
  };
}
