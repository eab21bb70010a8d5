import { z } from 'zod';
import { KEEPER_TASKS } from '../engine/keeperPorts.js';

/** Queue names (BullMQ forbids ':' in them). */
export const QUEUES = { feeds: 'feeds', evaluate: 'evaluate', execute: 'execute', keeper: 'keeper' } as const;

/** Job data of each queue, parsed when a worker picks a job up (job data is a boundary too). */
export const feedJobSchema = z.object({ feed: z.enum(['market', 'wallet', 'prediction']) });
/** An evaluate job: a shard's tick (from its scheduler), or a reactive shard woken by the price snapshot of `pricesAt`. */
export const evaluateJobSchema = z.object({ shard: z.string().min(1), pricesAt: z.number().int().positive().optional() });
export const executeJobSchema = z.object({ intentId: z.string().min(1).regex(/^[^:]+$/, 'intent ids contain no colon') });
/** Keeper jobs: `reconcile` re-drives stuck intents of the ledger; the others are the keeper's venue jobs. */
export const keeperJobSchema = z.object({ task: z.enum(['reconcile', ...KEEPER_TASKS]) });

/** The time a job scheduler meant a job for: parsed from its id `repeat:<scheduler>:<millis>`, else its timestamp. */
export function scheduledAt(job: { id?: string | undefined; timestamp: number }): number {
  const m = /^repeat:[^:]+:(\d+)$/.exec(job.id ?? '');
  return m ? Number(m[1]) : job.timestamp;
}

/** Options of execute jobs: id = intent id; kept a day so the same id is not queued twice; stalls fail, not rerun. */
export const EXECUTE_JOB_OPTIONS = {
  attempts: 6,
  backoff: { type: 'exponential' as const, delay: 1_000 },
  removeOnComplete: { age: 86_400 },
  removeOnFail: { age: 7 * 86_400 },
};
