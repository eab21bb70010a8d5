import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../helpers/sim.js';
import { assertExactlyOnce, movedTo, startHarness, withTimeout, type Harness } from '../helpers/exactlyOnce.js';

// Split roles: one process runs the schedulers, another the workers. The worker is SIGKILLed while its execute is
// in flight (the venue holds the execute for 2.5 s and settles it after the worker is dead). Its job stalls and fails
// (maxStalledCount 0); a new worker's reconciler re-drives the intent, which re-submits the same signed bytes.
describe('exactly once when a worker is killed mid-execution', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('worker-kill');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a restarted worker re-drives the intent and it settles once', async ({ onTestFailed }) => {
    const maxRuns = 2;
    const c = await h.newCase('ultra');
    c.dumpOnFailure(onTestFailed);
    const config = c.writeConfig({ via: 'ultra', maxRuns, everySeconds: 2 });
    await control(h.sim, '/faults', { kind: 'latency', latencyMs: 2_500, count: 1, pathPrefix: '/ultra/v1/execute' });
    const scheduler = c.spawn({ config, role: 'scheduler' });
    const worker = c.spawn({ config, role: 'worker' });

    const submitted = await worker.waitForLog(movedTo('submitted'), 30_000);
    worker.kill('SIGKILL');
    expect(await withTimeout(worker.exited, 10_000, 'the worker did not die')).toBe('SIGKILL');
    const crashed = (await c.store.get(String(submitted.intent)))!;
    expect(crashed.state).toBe('submitted');
    expect(crashed.signature).toBeTruthy();

    const replacement = c.spawn({ config, role: 'worker' });
    await c.waitAllDone(maxRuns, 45_000);
    expect(await Promise.all([c.stop(replacement), c.stop(scheduler)])).toEqual([0, 0]);

    const report = await assertExactlyOnce(c);
    const after = report.intents.find((r) => r.id === crashed.id)!;
    expect(after.state).toBe('landed');
    expect(after.signatures, 'never re-signed').toEqual([crashed.signature]);
    expect(report.settled.filter((t) => t.requestId === crashed.requestId)).toHaveLength(1);
    const logs = replacement.logs();
    expect(logs.some((l) => l.msg === 're-driving a live intent whose execution stopped' && l.intent === crashed.id), 'the reconciler re-drove it').toBe(true);
    expect(logs.some((l) => l.msg === 'resuming a signed intent: re-submitting the same bytes' && l.intent === crashed.id)).toBe(true);
    if (process.env.EO_DUMP) console.log(await c.dump());
  }, 150_000);
});
