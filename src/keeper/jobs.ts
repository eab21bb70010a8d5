import type { KeeperRun, KeeperTask } from '../engine/keeperPorts.js';
import { KeeperError } from '../lib/errors.js';
import { cancelResting } from './cancelResting.js';
import { claimWinnings } from './claims.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';
import { closeStaleOrders } from './staleOrders.js';
import { sweepEscrows } from './sweep.js';
import { reconcileVenue } from './venueReconcile.js';

/** What each keeper task runs. */
const JOBS: Record<KeeperTask, (d: KeeperDeps) => Promise<KeeperJobResult>> = {
  claims: claimWinnings,
  'venue-reconcile': reconcileVenue,
  'stale-orders': closeStaleOrders,
  sweep: sweepEscrows,
  'cancel-resting': cancelResting,
};

/**
 * A keeper job failed. Retried at its next run, never a reason to stop trading: a job reads products the strategies
 * may not use (a prediction API the deployment's region or key cannot reach answers 403), so an error that would
 * call for a human elsewhere is reported here, with its code, without engaging the kill switch.
 */
export class KeeperJobError extends KeeperError {
  constructor(task: KeeperTask, cause: unknown) {
    const code = cause instanceof KeeperError ? cause.code : 'UNEXPECTED';
    super('KEEPER_JOB_FAILED', 'retry', `keeper job ${task} failed (${code}): ${cause instanceof Error ? cause.message : String(cause)}`, { details: { task, code }, cause });
  }
}

/** A run lock outlives a hung run by at most this long; a normal run releases it when it ends. */
const LOCK_MS = 5 * 60_000;

/**
 * The keeper jobs behind one interface for the scheduler's keeper queue. A task never overlaps itself, across
 * workers too (a run lock in Redis; a run that finds it held is skipped), and every run's outcome is recorded for
 * status. A failed run is recorded and thrown as a KeeperJobError, which the worker reports as a failed job; it
 * does not engage the kill switch (see KeeperJobError).
 */
export class KeeperJobs {
  constructor(private readonly d: KeeperDeps) {}

  /** Runs one task now; returns how it went. */
  async run(task: KeeperTask): Promise<KeeperRun> {
    const { d } = this;
    const at = d.now();
    const token = await d.state.lock(task, LOCK_MS);
    if (token === null) {
      d.logger.debug({ task }, 'keeper job skipped: its previous run still holds the lock');
      return { at, durationMs: 0, outcome: 'skipped', summary: 'its previous run was still going', counts: {}, error: null };
    }
    try {
      const result = await JOBS[task](d);
      const run: KeeperRun = { at, durationMs: d.now() - at, outcome: 'ok', summary: result.summary, counts: result.counts, error: null };
      await d.state.recordRun(task, run);
      d.logger.debug({ task, durationMs: run.durationMs, counts: run.counts }, `keeper job ${task}: ${run.summary}`);
      return run;
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await d.state.recordRun(task, { at, durationMs: d.now() - at, outcome: 'error', summary: `failed: ${message.slice(0, 200)}`, counts: {}, error: message.slice(0, 500) });
      throw new KeeperJobError(task, err);
    } finally {
      await d.state.unlock(task, token);
    }
  }
}
