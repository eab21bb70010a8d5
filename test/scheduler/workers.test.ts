import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QueueEvents, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { KeeperError } from '../../src/lib/errors.js';
import { silentLogger } from '../../src/lib/logger.js';
import { QUEUES } from '../../src/scheduler/jobs.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { KeeperWorkers } from '../../src/scheduler/workers.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { clearNamespace } from '../../src/store/redis.js';

// An error that needs a human (a corrupt record, a refused key), thrown inside any job, must stop all trading
// through the kill switch; every other error only fails its job.
describe('a worker whose job throws', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-workers-${process.pid}`;
  const redis = new Redis(url);
  const bull = new Redis(url, { maxRetriesPerRequest: null });
  const risk = new RiskStore(redis, prefix);
  const queues = new KeeperQueues(bull, prefix);
  const events = new QueueEvents(QUEUES.execute, { connection: new Redis(url, { maxRetriesPerRequest: null }), prefix });
  const thrown: Record<string, Error> = {
    'retry-1': new KeeperError('RPC_TIMEOUT', 'retry', 'the node did not answer in time'),
    'abandon-1': new KeeperError('BUILD_REFUSED', 'abandon', 'the venue refused the order'),
    'plain-1': new TypeError('cannot read properties of undefined'),
    'halt-1': new KeeperError('INTENT_CORRUPT', 'halt', 'intent halt-1 is signed without its signed transaction'),
  };
  let workers: KeeperWorkers;

  beforeAll(async () => {
    await clearNamespace(redis, prefix);
    await events.waitUntilReady();
    workers = new KeeperWorkers(
      {
        feed: () => Promise.resolve(undefined),
        evaluate: () => Promise.resolve(undefined),
        execute: (id) => Promise.reject(thrown[id] ?? new Error(`no such test job ${id}`)),
        reconcile: () => Promise.resolve(undefined),
        keeperTask: () => Promise.resolve(undefined),
        // As main.ts wires it: the kill switch in Redis, which every worker and the risk gate read.
        halt: (reason) => risk.setHalted(reason),
      },
      { connection: bull, prefix, executeConcurrency: 1, jobLockMs: 30_000, ping: () => redis.ping(), logger: silentLogger },
    );
    workers.start();
  });
  afterAll(async () => {
    await workers.close();
    await events.close();
    await queues.close();
    await clearNamespace(redis, prefix);
    redis.disconnect();
    bull.disconnect();
  });

  /** Runs one execute job to its end and returns why it failed. */
  const run = async (id: string): Promise<string> => {
    const job: Job = await queues.execute.add('execute', { intentId: id }, { jobId: id, attempts: 1 });
    return job.waitUntilFinished(events).then(
      () => 'completed',
      (err: unknown) => (err instanceof Error ? err.message : String(err)),
    );
  };

  it('leaves trading on for errors that do not need a human', async () => {
    for (const id of ['retry-1', 'abandon-1', 'plain-1']) {
      expect(await run(id)).toBe(thrown[id]!.message);
      expect(await risk.halted(), `${id} engaged the kill switch`).toBeNull();
    }
  });

  it('engages the kill switch with the error code and message for one that does, and still fails the job', async () => {
    expect(await run('halt-1')).toBe(thrown['halt-1']!.message);
    expect(await risk.halted()).toBe('INTENT_CORRUPT: intent halt-1 is signed without its signed transaction');
  });
});
