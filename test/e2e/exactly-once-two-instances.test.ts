import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';

// Two `jup-keeper run` processes (all roles) on one Redis and prefix, same config and wallet: both upsert the job
// schedulers, both evaluate, both execute, both reconcile. Intent ids (the BullMQ jobIds) collapse a decision made
// twice into one intent, the commit fenced by the applied window keeps two evaluations from spending one run, and the
// fenced ledger keeps an intent from settling twice.
describe('exactly once with two keepers on one Redis and prefix', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('two-instances');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('settles each intent once and does not double the intents', async ({ onTestFailed }) => {
    const maxRuns = 4;
    const c = await h.newCase('dca');
    c.dumpOnFailure(onTestFailed);
    const config = c.writeConfig({ via: 'ultra', maxRuns, everySeconds: 2 });
    const a = c.spawn({ config });
    const b = c.spawn({ config });

    await c.waitAllDone(maxRuns, 45_000);
    // Both upserted the same job schedulers: still one per id (one shard, the reconciler and keeper jobs, the feeds).
    const evaluate = new Queue('evaluate', { connection: { host: '127.0.0.1', port: h.redis.port }, prefix: c.prefix });
    const keeper = new Queue('keeper', { connection: { host: '127.0.0.1', port: h.redis.port }, prefix: c.prefix });
    try {
      expect((await evaluate.getJobSchedulers()).map((s) => s.key)).toEqual(['evaluate-e2000.0of1']);
      expect((await keeper.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['keeper-cancel-resting', 'keeper-claims', 'keeper-reconcile', 'keeper-stale-orders', 'keeper-sweep', 'keeper-venue-reconcile']);
    } finally {
      await Promise.all([evaluate.close(), keeper.close()]);
    }
    const [exitA, exitB] = await Promise.all([c.stop(a), c.stop(b)]);
    expect([exitA, exitB], 'both keepers shut down cleanly').toEqual([0, 0]);

    const report = await assertExactlyOnce(c);
    if (process.env.EO_DUMP) console.log(await c.dump());
    // maxRuns lives in the strategy state, which two evaluations of one instance (two windows, one per keeper)
    // may read at the same moment: only one of them may spend each run. Exactly maxRuns intents, all settled once.
    expect(report.intents.map((r) => r.intent.reason).sort()).toEqual(Array.from({ length: maxRuns }, (_, i) => `dca run ${i + 1} of ${maxRuns}`));
    expect(report.landed).toHaveLength(maxRuns);
    expect(report.settled).toHaveLength(maxRuns);
    expect(await c.runs()).toBe(maxRuns);
    // Every landing was carried out (and logged) by exactly one of the two processes.
    const executedBy = (k: typeof a) => k.logs().filter((l) => l.msg === 'landed').length;
    expect(executedBy(a) + executedBy(b)).toBe(report.landed.length);
  }, 120_000);
});
