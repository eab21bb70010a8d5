import type { Queue } from 'bullmq';
import type { Logger } from '../lib/logger.js';
import type { IntentStore } from '../store/intents.js';


/**
 * The reconciler: finds live intents whose execute job is gone, failed (a stall fails order jobs instead of
 * re-running them) or completed while the intent is still live, and hands them back to the executor, which decides
 * from the ledger and the chain what happened (re-submit the same bytes, confirm, or rebuild after proven expiry).
 * It never acts on an intent whose job is waiting or active, nor on one that moved within `graceMs`.
 */
export async function reconcile(store: IntentStore, execute: Queue, logger: Logger, graceMs: number, now = Date.now()): Promise<{ redriven: string[] }> {
  const redriven: string[] = [];
  for (const id of await store.liveIds()) {
    const rec = await store.get(id);
    if (!rec || now - rec.updatedAt < graceMs) continue;
    const job = await execute.getJob(id);
    const state = job ? await job.getState() : 'missing';
    if (state === 'active' || state === 'waiting' || state === 'delayed' || state === 'prioritized' || state === 'waiting-children') continue;
    if (job && (state === 'failed' || state === 'completed')) await job.retry(state);
    else await execute.add('execute', { intentId: id }, { jobId: id });
    logger.warn({ intent: id, state: rec.state, job: state }, 're-driving a live intent whose execution stopped');
    redriven.push(id);
  }
  return { redriven };
}
