// The crash-point scenario of the exactly-once tests, shared by the Ultra and Metis files: a keeper that SIGKILLs
// itself at a step of the first intent (JUPKEEPER_CRASH_AT), then a clean keeper on the same Redis, prefix, config
// and wallet, judged by the simulator's ledger.
import { expect } from 'vitest';
import type { CrashPoint } from '../../src/execution/faultPoints.js';
import { assertExactlyOnce, withTimeout, type Harness } from './exactlyOnce.js';

/** The state the first intent is left in by each crash point. */
const LEFT_IN: Record<CrashPoint, string> = { 'after-build': 'built', 'after-sign': 'signed', 'after-submit': 'submitted' };

/** Runs one crash-point scenario on its own case (prefix and wallet) of the harness. */
export async function crashAndRecover(h: Harness, point: CrashPoint, via: 'ultra' | 'metis', onTestFailed: (fn: () => Promise<void>) => void): Promise<void> {
  const maxRuns = 2;
  const c = await h.newCase(`${via}-${point}`);
  c.dumpOnFailure(onTestFailed);
  const config = c.writeConfig({ via, maxRuns, everySeconds: 2 });

  // 1. The keeper dies by SIGKILL at the first intent's step.
  const crashing = c.spawn({ config, env: { JUPKEEPER_CRASH_AT: point } });
  const exit = await withTimeout(crashing.exited, 40_000, `[${c.label}] the keeper did not crash at ${point}`);
  expect(exit, `the keeper was meant to die by SIGKILL at ${point}`).toBe('SIGKILL');

  // 2. What the crash left in Redis and on the chain.
  const before = await c.intents();
  const crashed = before.find((r) => r.state === LEFT_IN[point]);
  expect(crashed, `no intent left ${LEFT_IN[point]} by the crash: ${before.map((r) => `${r.id}=${r.state}`).join(', ')}`).toBeDefined();
  const settledBefore = await c.settled();
  if (point === 'after-build') {
    expect(crashed!.signature, 'nothing is signed at after-build').toBeNull();
    expect(crashed!.signatures).toEqual([]);
    expect(settledBefore).toEqual([]);
    if (via === 'ultra') expect(crashed!.requestId).toBeTruthy();
  } else {
    // The signature and lastValidBlockHeight were persisted before the transaction left the process.
    expect(crashed!.signature).toBeTruthy();
    expect(crashed!.signatures).toEqual([crashed!.signature]);
    expect(crashed!.lastValidBlockHeight).not.toBeNull();
    const onChain = settledBefore.filter((t) => t.signature === crashed!.signature);
    // after-sign: signed, never sent; after-submit: sent and settled, but the keeper never recorded it.
    expect(onChain, `settlements of the crashed intent's signature before the restart`).toHaveLength(point === 'after-submit' ? 1 : 0);
  }

  // 3. A clean keeper on the same Redis, prefix, config and wallet finishes the job.
  const recovering = c.spawn({ config, durationSeconds: 55 });
  await c.waitAllDone(maxRuns, 45_000);
  expect(await c.stop(recovering), 'the recovering keeper must shut down cleanly').toBe(0);

  // 4. The ledger is the judge.
  const report = await assertExactlyOnce(c);
  if (process.env.EO_DUMP) console.log(await c.dump());
  const after = report.intents.find((r) => r.id === crashed!.id)!;
  expect(after.state).toBe('landed');
  if (point === 'after-build') {
    // Nothing was signed: the intent was rebuilt (a new order), and the abandoned order never settled.
    expect(after.signatures).toHaveLength(1);
    if (via === 'ultra') {
      expect(after.requestId).not.toBe(crashed!.requestId);
      expect(report.settled.filter((t) => t.requestId === crashed!.requestId)).toEqual([]);
    }
  } else {
    // Signed before the crash: re-submitted with the same bytes, never re-signed.
    expect(after.signature, 'the landed signature must be the one persisted before the crash').toBe(crashed!.signature);
    expect(after.signatures).toEqual([crashed!.signature]);
    expect(after.attempt).toBe(crashed!.attempt);
    if (via === 'ultra') expect(after.requestId).toBe(crashed!.requestId);
    expect(recovering.logs().some((l) => l.msg === 'resuming a signed intent: re-submitting the same bytes' && l.intent === crashed!.id)).toBe(true);
  }
}
