import { Queue, type ConnectionOptions } from 'bullmq';
import type { Logger } from '../lib/logger.js';
import { EXECUTE_JOB_OPTIONS, QUEUES } from './jobs.js';

/** The keeper's four queues. */
export class KeeperQueues {
  readonly feeds: Queue;
  readonly evaluate: Queue;
  readonly execute: Queue;
  readonly keeper: Queue;

  constructor(connection: ConnectionOptions, prefix: string, logger?: Logger) {
    const common = { connection, prefix };
    this.feeds = new Queue(QUEUES.feeds, { ...common, defaultJobOptions: { removeOnComplete: 100, removeOnFail: 200 } });
    this.evaluate = new Queue(QUEUES.evaluate, { ...common, defaultJobOptions: { removeOnComplete: 500, removeOnFail: 500 } });
    this.execute = new Queue(QUEUES.execute, { ...common, defaultJobOptions: EXECUTE_JOB_OPTIONS });
    this.keeper = new Queue(QUEUES.keeper, { ...common, defaultJobOptions: { removeOnComplete: 50, removeOnFail: 200 } });
    // Without a listener an 'error' event (Redis unreachable) is printed as a raw stack trace; log it instead.
    for (const q of this.all()) q.on('error', (err) => logger?.error({ queue: q.name, err: err.message }, 'queue connection error'));
  }

  /** Queues an intent for execution; a second add with the same id is ignored by BullMQ. */
  async enqueueIntent(intentId: string): Promise<void> {
    await this.execute.add('execute', { intentId }, { jobId: intentId });
  }

  /** Queues many intents in one round trip (a job id per intent: one already queued is not added again). */
  async enqueueIntents(intentIds: readonly string[]): Promise<void> {
    if (intentIds.length === 0) return;
    await this.execute.addBulk(intentIds.map((intentId) => ({ name: 'execute', data: { intentId }, opts: { jobId: intentId } })));
  }

  /** Wakes reactive shards for a new price snapshot: one job each, its id naming the snapshot (added once). */
  async wakeShards(shards: readonly string[], snapshotAt: number): Promise<void> {
    if (shards.length === 0) return;
    await this.evaluate.addBulk(shards.map((shard) => ({ name: 'evaluate', data: { shard, pricesAt: snapshotAt }, opts: { jobId: `prices-${shard}-${snapshotAt}` } })));
  }

  all(): Queue[] {
    return [this.feeds, this.evaluate, this.execute, this.keeper];
  }

  async close(): Promise<void> {
    await Promise.all(this.all().map((q) => q.close()));
  }
}
