import { afterEach, describe, expect, it } from 'vitest';
import { Queue, QueueEvents, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { silentLogger } from '../../src/lib/logger.js';
import { EXECUTE_JOB_OPTIONS, QUEUES } from '../../src/scheduler/jobs.js';
import { reconcile } from '../../src/scheduler/reconcile.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const GRACE = 15_000;
const T0 = Date.UTC(2026, 10, 25, 12);
/** A reconciler run well after every intent's last move (beyond the grace). */
const LATER = T0 + GRACE + 1;

/** One test's own queue and ledger under its own prefix, and a worker that runs jobs as their ids say. */
async function scene(label: string) {
  const prefix = `test-rec-${process.pid}-${label}`;
  const redis = new Redis(url);
  const bull = new Redis(url, { maxRetriesPerRequest: null });
  const store = new IntentStore(redis, prefix);
  const queue = new Queue(QUEUES.execute, { connection: bull, prefix, defaultJobOptions: { ...EXECUTE_JOB_OPTIONS, attempts: 1 } });
  const events = new QueueEvents(QUEUES.execute, { connection: new Redis(url, { maxRetriesPerRequest: null }), prefix });
  await events.waitUntilReady();
  let release = () => undefined as void;
  const held = new Promise<void>((res) => (release = res));
  let worker: Worker | undefined;
  const intent = async (id: string, updatedAt = T0) => {
    await store.create({ id, instance: 'dca', strategy: 'dca-swap@1.0.0', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 1_000n }, createdAt: updatedAt, deadline: updatedAt + 600_000 });
    return id;
  };
  return {
    store,
    queue,
    intent,
    /** Damages a field of an intent's record, as a bad write or a hand edit would. */
    corrupt: (id: string) => redis.hset(`${prefix}:intent:${id}`, 'intent', '{not json'),
    /** Adds the execute job of an intent, as evaluation does. */
    enqueue: (id: string, opts: { delay?: number } = {}) => queue.add('execute', { intentId: id }, { jobId: id, ...opts }),
    /** Runs jobs: ids starting with `fail` throw, `hold` wait for release(), others complete. */
    work: () => {
      worker = new Worker(
        QUEUES.execute,
        async (job: Job) => {
          if (job.id!.startsWith('fail')) throw new Error('the executor stopped (stall)');
          if (job.id!.startsWith('hold')) await held;
          return 'done';
        },
        { connection: new Redis(url, { maxRetriesPerRequest: null }), prefix, concurrency: 4 },
      );
      return worker;
    },
    /** Resolves when the job ends, whichever way. */
    finished: (job: Job) => job.waitUntilFinished(events).catch(() => undefined),
    stateOf: async (id: string) => (await queue.getJob(id))?.getState() ?? 'missing',
    release: () => release(),
    close: async () => {
      release();
      await worker?.close();
      await events.close();
      await queue.close();
      await clearNamespace(redis, prefix);
      redis.disconnect();
      bull.disconnect();
    },
  };
}

describe('the reconciler', () => {
  const scenes: Array<Awaited<ReturnType<typeof scene>>> = [];
  const open = async (label: string) => {
    const s = await scene(label);
    scenes.push(s);
    return s;
  };
  afterEach(async () => {
    await Promise.all(scenes.splice(0).map((s) => s.close()));
  });

  it('leaves an intent alone while its job waits, is delayed or runs', async () => {
    const s = await open('inhand');
    // One job held by a worker (active), which then takes nothing more; then one waiting and one delayed.
    const active = await s.intent('hold-1');
    const job = await s.enqueue(active);
    const worker = s.work();
    await new Promise<void>((res) => worker.on('active', (j) => j.id === job.id && res()));
    await worker.pause(true);
    const waiting = await s.intent('wait-1');
    await s.enqueue(waiting);
    const delayed = await s.intent('delay-1');
    await s.enqueue(delayed, { delay: 60_000 });

    expect(await reconcile(s.store, s.queue, silentLogger, GRACE, LATER)).toEqual({ redriven: [], corrupt: [] });
    expect([await s.stateOf(waiting), await s.stateOf(delayed), await s.stateOf(active)]).toEqual(['waiting', 'delayed', 'active']);
  });

  it('leaves alone an intent that moved within the grace, even with no job at all', async () => {
    const s = await open('grace');
    const id = await s.intent('recent-1', T0);
    expect((await reconcile(s.store, s.queue, silentLogger, GRACE, T0 + GRACE - 1)).redriven).toEqual([]);
    expect(await s.stateOf(id)).toBe('missing');
    // Past the grace, the same intent is handed back.
    expect((await reconcile(s.store, s.queue, silentLogger, GRACE, LATER)).redriven).toEqual([id]);
  });

  it('retries the job of a live intent that failed (a stalled order job fails) or completed', async () => {
    const s = await open('retry');
    const failed = await s.intent('fail-1');
    const completed = await s.intent('done-1');
    const jobs = [await s.enqueue(failed), await s.enqueue(completed)];
    const worker = s.work();
    await Promise.all(jobs.map((j) => s.finished(j)));
    await worker.close();
    expect([await s.stateOf(failed), await s.stateOf(completed)]).toEqual(['failed', 'completed']);

    const { redriven } = await reconcile(s.store, s.queue, silentLogger, GRACE, LATER);
    expect(redriven.sort()).toEqual([completed, failed].sort());
    expect([await s.stateOf(failed), await s.stateOf(completed)]).toEqual(['waiting', 'waiting']);
  });

  it('adds the job back when a live intent has none, under the intent id', async () => {
    const s = await open('missing');
    const id = await s.intent('lost-1');
    expect((await reconcile(s.store, s.queue, silentLogger, GRACE, LATER)).redriven).toEqual([id]);
    const job = await s.queue.getJob(id);
    expect(job?.data).toEqual({ intentId: id });
    expect(await job?.getState()).toBe('waiting');
  });

  it('does not touch terminal intents', async () => {
    const s = await open('terminal');
    const id = await s.intent('landed-1');
    for (const to of ['built', 'guarded', 'signed', 'submitted', 'landed'] as const) await s.store.move(id, null, to, {}, T0);
    expect((await reconcile(s.store, s.queue, silentLogger, GRACE, LATER)).redriven).toEqual([]);
    expect(await s.stateOf(id)).toBe('missing');
  });

  it('reports a live record that does not parse and still reconciles the others', async () => {
    const s = await open('corrupt');
    const bad = await s.intent('bad-1');
    const good = await s.intent('lost-2');
    await s.corrupt(bad);
    expect(await reconcile(s.store, s.queue, silentLogger, GRACE, LATER)).toEqual({ redriven: [good], corrupt: [bad] });
    expect(await s.stateOf(bad)).toBe('missing');
  });
});
