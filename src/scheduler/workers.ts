import { hostname } from 'node:os';
import { Worker, type ConnectionOptions, type Job } from 'bullmq';
import { stringifyJson } from '../lib/amounts.js';
import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { settlesWithin } from '../lib/time.js';
import type { KeeperTask } from '../engine/keeperPorts.js';
import type { WorkerBeat } from '../store/heartbeats.js';
import { evaluateJobSchema, executeJobSchema, feedJobSchema, keeperJobSchema, QUEUES, scheduledAt } from './jobs.js';
import { TickPacer } from './pacer.js';

/** What each queue's jobs do; main.ts supplies them. */
export interface JobHandlers {
  feed(feed: 'market' | 'wallet' | 'prediction'): Promise<unknown>;
  /** One evaluation of a shard of strategy instances: its tick, or (reactive shards) a new price snapshot. */
  evaluate(shard: string, trigger: { kind: 'schedule'; scheduledAtMs: number } | { kind: 'prices'; snapshotAt: number }): Promise<unknown>;
  /** `signal` aborts when shutdown runs out of patience; the intent stays resumable in the ledger. */
  execute(intentId: string, signal: AbortSignal): Promise<unknown>;
  reconcile(): Promise<unknown>;
  /** One run of a keeper job (claims, venue reconciliation, stale orders, sweep, cancel-resting). */
  keeperTask(task: KeeperTask): Promise<unknown>;
  /** An error that needs a human (bad key, corrupt state): engage the kill switch and say why. */
  halt(reason: string): Promise<void>;
}

/** Worker settings. */
export interface WorkerSettings {
  connection: ConnectionOptions;
  prefix: string;
  executeConcurrency: number;
  /** Lock of execute jobs, in ms; the stall check runs every half of it. */
  jobLockMs: number;
  /** A round trip on a connection of the process that never blocks (wakes Redis at each tick: see TickPacer). */
  ping: () => Promise<unknown>;
  logger: Logger;
  /** Writes this process's heartbeat every `everyMs` while its workers run, and removes it at close (HeartbeatStore). */
  heartbeat?: { everyMs: number; write(beat: WorkerBeat): Promise<void>; remove(): Promise<void> };
  /** Told of every job this process ran: its queue, how long it took (ms) and whether it threw (the dashboard's metrics). */
  onJob?: (queue: string, ms: number, ok: boolean) => void;
}

/** The keeper's workers. */
export class KeeperWorkers {
  private readonly workers: Worker[];
  private readonly logger: Logger;
  private readonly shutdown = new AbortController();
  private readonly pacer: TickPacer;
  private readonly heartbeat: WorkerSettings['heartbeat'];
  private beatTimer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private lastJobAt: number | null = null;

  constructor(handlers: JobHandlers, s: WorkerSettings) {
    this.logger = s.logger;
    this.heartbeat = s.heartbeat;
    const common = { connection: s.connection, prefix: s.prefix, autorun: false };
    this.pacer = new TickPacer(s.ping);
    const guarded = (queue: string, fn: (job: Job) => Promise<unknown>) => async (job: Job) => {
      // A scheduler's job carries its repeat options (BullMQ's internal JobsOptions), `every` among them.
      this.pacer.afterRepeat(scheduledAt(job), (job.opts as { repeat?: { every?: number } }).repeat?.every);
      const started = performance.now();
      const ran = (ok: boolean) => {
        this.lastJobAt = Date.now();
        s.onJob?.(queue, performance.now() - started, ok);
      };
      try {
        // BullMQ stores return values as JSON: bigints become decimal strings.
        const out = JSON.parse(stringifyJson((await fn(job)) ?? null)) as unknown;
        ran(true);
        return out;
      } catch (err) {
        ran(false);
        if (err instanceof KeeperError && err.action === 'halt') {
          s.logger.fatal({ queue, job: job.id, err }, 'an error that needs a human; engaging the kill switch');
          await handlers.halt(`${err.code}: ${err.message}`);
        }
        throw err;
      }
    };
    this.workers = [
      new Worker(QUEUES.feeds, guarded('feeds', (job) => handlers.feed(feedJobSchema.parse(job.data).feed)), { ...common, concurrency: 1 }),
      new Worker(QUEUES.evaluate, guarded('evaluate', (job) => {
        const data = evaluateJobSchema.parse(job.data);
        return handlers.evaluate(data.shard, data.pricesAt !== undefined ? { kind: 'prices', snapshotAt: data.pricesAt } : { kind: 'schedule', scheduledAtMs: scheduledAt(job) });
      }), { ...common, concurrency: 4 }),
      // Order jobs fail on a stall instead of running again blindly; the reconciler decides from the ledger and the chain.
      new Worker(QUEUES.execute, guarded('execute', (job) => handlers.execute(executeJobSchema.parse(job.data).intentId, this.shutdown.signal)), {
        ...common,
        concurrency: s.executeConcurrency,
        maxStalledCount: 0,
        lockDuration: s.jobLockMs,
        stalledInterval: Math.max(1_000, Math.floor(s.jobLockMs / 2)),
      }),
      // One at a time: the intent reconciler never overlaps itself; the venue jobs are short (the sweep reads only
      // the escrows of orders that ended since the last one).
      new Worker(QUEUES.keeper, guarded('keeper', (job) => {
        const { task } = keeperJobSchema.parse(job.data);
        return task === 'reconcile' ? handlers.reconcile() : handlers.keeperTask(task);
      }), { ...common, concurrency: 1 }),
    ];
    for (const w of this.workers) {
      w.on('failed', (job, err) => s.logger.warn({ queue: w.name, job: job?.id, attempts: job?.attemptsMade, err: err.message }, 'job failed'));
      w.on('error', (err) => s.logger.error({ queue: w.name, err: err.message }, 'worker error'));
      w.on('stalled', (jobId) => s.logger.warn({ queue: w.name, job: jobId }, 'job stalled'));
    }
  }

  /** Starts consuming. */
  start(): void {
    for (const w of this.workers) w.run().catch((err: unknown) => this.logger.error({ queue: w.name, err }, 'worker stopped'));
    if (this.heartbeat) {
      const hb = this.heartbeat;
      const beat = () => {
        // Never overlaps itself: a Redis slower than the interval skips beats (and reads as unhealthy, rightly).
        if (this.beating) return;
        const queues = Object.fromEntries(this.workers.map((w) => [w.name, w.isRunning()]));
        this.beating = hb
          .write({ at: Date.now(), pid: process.pid, host: hostname(), queues, lastJobAt: this.lastJobAt })
          .catch((err: unknown) => this.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not write the workers heartbeat'))
          .finally(() => (this.beating = undefined));
      };
      beat();
      this.beatTimer = setInterval(beat, hb.everyMs);
      this.beatTimer.unref();
    }
  }

  /**
   * Stops taking jobs and waits for active ones to finish, at most `graceMs`; then aborts them. An aborted execution
   * leaves its intent signed or submitted in the ledger, and the next start (or another worker) resumes it with the
   * same signed bytes.
   */
  async close(graceMs = 20_000): Promise<void> {
    this.pacer.close();
    if (this.beatTimer) clearInterval(this.beatTimer);
    this.beatTimer = undefined;
    await this.beating;
    // Closed workers do not beat: the heartbeat goes first, so health turns bad as soon as they stop taking jobs.
    await this.heartbeat?.remove().catch(() => undefined);
    const closing = Promise.all(this.workers.map((w) => w.close()));
    if (!(await settlesWithin(closing, graceMs))) {
      this.logger.warn({ graceMs }, 'in-flight executions did not finish in time; aborting them (they resume on the next start)');
      this.shutdown.abort(new Error('shutdown'));
      await settlesWithin(closing, 5_000);
      await Promise.all(this.workers.map((w) => w.close(true)));
    }
  }
}
