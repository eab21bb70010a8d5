import type { Queue } from 'bullmq';
import type { Logger } from '../lib/logger.js';
import { isTerminal } from '../engine/states.js';
import type { IntentStore } from '../store/intents.js';

/** Job states in which the executor still has the intent in hand (or will): the reconciler leaves those alone. */
const IN_HAND = new Set(['active', 'waiting', 'delayed', 'prioritized', 'waiting-children']);

/** What one reconciliation did. */
export interface ReconcileResult {
  /** Live intents handed back to the executor. */
  redriven: string[];
  /** Live intents whose records do not parse: left alone and logged at error level (they need a human). */
  corrupt: string[];
}

/**
 * The reconciler: finds live intents whose execute job is gone, failed (a stall fails order jobs instead of
 * re-running them) or completed while the intent is still live, and hands them back to the executor, which decides
 * from the ledger and the chain what happened (re-submit the same bytes, confirm, or rebuild after proven expiry).
 * It never acts on an intent whose job is waiting or active, nor on one that moved within `graceMs`. The live
 * records are read in one round trip; one that does not parse is reported and skipped, so it cannot stop the
 * reconciliation of every other intent.
 */
export async function reconcile(store: IntentStore, execute: Queue, logger: Logger, graceMs: number, now = Date.now()): Promise<ReconcileResult> {
  const { records, corrupt } = await store.read(await store.liveIds());
  for (const c of corrupt) logger.error({ intent: c.id, problem: c.problem }, 'a live intent record does not parse; the reconciler leaves it alone');
  const redriven: string[] = [];
  for (const rec of records) {
    // It may have settled since the live ids were read; a recent move means its executor is still at work.
    if (isTerminal(rec.state) || now - rec.updatedAt < graceMs) continue;
    const job = await execute.getJob(rec.id);
    const state = job ? await job.getState() : 'missing';
    if (IN_HAND.has(state)) continue;
    if (job && (state === 'failed' || state === 'completed')) await job.retry(state);
    else await execute.add('execute', { intentId: rec.id }, { jobId: rec.id });
    logger.warn({ intent: rec.id, state: rec.state, job: state }, 're-driving a live intent whose execution stopped');
    redriven.push(rec.id);
  }
  return { redriven, corrupt: corrupt.map((c) => c.id) };
}
