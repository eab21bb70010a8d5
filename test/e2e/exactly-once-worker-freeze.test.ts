import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../helpers/sim.js';
import type { KeeperProcess } from '../helpers/keeper.js';
import { assertExactlyOnce, movedTo, startHarness, type Harness } from '../helpers/exactlyOnce.js';

// A frozen worker (SIGSTOP: a GC pause, a starved VM, a laptop lid) loses its job lock while its execute is in
// flight, and the other worker re-drives the intent. When the frozen one wakes up it carries on where it was: the
// fence must refuse its writes, and the swap must still settle once (bullmq-and-solana.md §1.3, E2).
describe('exactly once when a worker freezes mid-execution and wakes up later', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('worker-freeze');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('the woken worker is fenced off and the swap settles once', async ({ onTestFailed }) => {
    const maxRuns = 2;
    const c = await h.newCase('ultra');
    c.dumpOnFailure(onTestFailed);
    const config = c.writeConfig({ via: 'ultra', maxRuns, everySeconds: 2 });
    await control(h.sim, '/faults', { kind: 'latency', latencyMs: 2_500, count: 1, pathPrefix: '/ultra/v1/execute' });
    const scheduler = c.spawn({ config, role: 'scheduler' });
    const workers = [c.spawn({ config, role: 'worker' }), c.spawn({ config, role: 'worker' })];

    // Freeze whichever worker sends the first execute, right after it recorded `submitted`.
    const frozen = await Promise.race(workers.map((w) => w.waitForLog(movedTo('submitted'), 30_000).then((l) => ({ w, l }))));
    frozen.w.kill('SIGSTOP');
    const other = workers.find((w) => w !== frozen.w)!;
    const id = String(frozen.l.intent);
    const before = (await c.store.get(id))!;
    let stateAtLanding: string;
    try {
      // The other worker fails the stalled job, re-drives the intent and lands it with the same bytes...
      await other.waitForLog((l) => l.msg === 'landed' && l.intent === id, 30_000);
      // ...while the first one is still stopped (a process that ignored the stop would race it, proving nothing).
      stateAtLanding = processState(frozen.w.proc.pid!);
    } finally {
      frozen.w.kill('SIGCONT');
    }
    expect(stateAtLanding, 'the frozen worker was running when the other one landed the intent').toBe('T');
    // Awake again, the first worker finishes its confirmation; its landing write carries the old fence.
    await frozen.w.waitForLog((l) => l.msg === 'another worker took this intent over; stopping' && l.intent === id, 20_000);

    await c.waitAllDone(maxRuns, 40_000);
    expect(await Promise.all([...workers, scheduler].map((k: KeeperProcess) => c.stop(k)))).toEqual([0, 0, 0]);

    const report = await assertExactlyOnce(c);
    const after = report.intents.find((r) => r.id === id)!;
    expect(after.state).toBe('landed');
    expect(after.signatures, 'never re-signed').toEqual([before.signature]);
    expect(after.fence).toBeGreaterThan(before.fence);
    expect(report.settled.filter((t) => t.requestId === before.requestId)).toHaveLength(1);
    expect(frozen.w.logs().some((l) => l.msg === 'landed' && l.intent === id), 'the frozen worker must not record the landing').toBe(false);
    if (process.env.EO_DUMP) console.log(await c.dump());
  }, 180_000);
});

/** The scheduler state of a process from /proc (Linux): `T` when stopped by a signal, `S`/`R` when running. */
function processState(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) is in parentheses and may hold spaces: the state follows the last ')'.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]!;
}
