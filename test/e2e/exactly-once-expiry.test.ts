import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../helpers/sim.js';
import { assertExactlyOnce, startHarness, withTimeout, type Harness } from '../helpers/exactlyOnce.js';

// Rule 5 of docs/architecture.md § Exactly-once execution: a signed intent is rebuilt only once its blockhash has
// provably expired with the signature absent. The keeper dies right after signing and stays down past the blockhash's
// life (the simulator's clock jumps ahead). The restarted keeper re-submits the old bytes, finds them expired, and
// only then builds and signs a second attempt; the first signature never settles.
// Own file, cases in sequence: moving the clock would disturb any other case running on the same simulator.
describe('exactly once when a signed intent expires while the keeper is down', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('expiry');
  });
  afterAll(async () => {
    await h?.close();
  });

  const cases = [
    // 130 s: past the blockhash and past the Ultra order's cache (execute answers -1, "order not found").
    { name: 'Ultra, order forgotten by the venue', via: 'ultra', advanceMs: 130_000 },
    // 70 s: past the blockhash, the order still cached (execute answers "transaction expired").
    { name: 'Ultra, order still cached', via: 'ultra', advanceMs: 70_000 },
    { name: 'Metis (RPC)', via: 'metis', advanceMs: 70_000 },
  ] as const;
  for (const t of cases) {
    it(`${t.name}: rebuilds as a new attempt with a new signature, and only that one settles`, async ({ onTestFailed }) => {
      const maxRuns = 1;
      const c = await h.newCase(`${t.via}-${t.advanceMs / 1000}s`);
      c.dumpOnFailure(onTestFailed);
      const config = c.writeConfig({ via: t.via, maxRuns, everySeconds: 2 });
      const crashing = c.spawn({ config, env: { JUPKEEPER_CRASH_AT: 'after-sign' } });
      expect(await withTimeout(crashing.exited, 40_000, 'the keeper did not crash after signing')).toBe('SIGKILL');
      const signed = (await c.intents()).find((r) => r.state === 'signed');
      expect(signed?.signature).toBeTruthy();

      const clock = await control<{ blockHeight: number }>(h.sim, '/clock', { advanceMs: t.advanceMs });
      expect(BigInt(clock.blockHeight)).toBeGreaterThan(signed!.lastValidBlockHeight!);

      const recovering = c.spawn({ config });
      await c.waitAllDone(maxRuns, 45_000);
      expect(await c.stop(recovering)).toBe(0);

      const report = await assertExactlyOnce(c);
      const after = report.intents.find((r) => r.id === signed!.id)!;
      expect(after.state).toBe('landed');
      expect(after.attempt).toBe(signed!.attempt + 1);
      expect(after.signatures).toHaveLength(2);
      expect(after.signatures[0], 'the first attempt keeps its signature in the history').toBe(signed!.signature);
      expect(after.signature).not.toBe(signed!.signature);
      expect(report.settled.filter((s) => s.signature === signed!.signature)).toEqual([]);
      if (t.via === 'ultra') {
        expect(after.requestId).not.toBe(signed!.requestId);
        expect(report.settled.filter((s) => s.requestId === signed!.requestId)).toEqual([]);
      }
      expect(recovering.logs().some((l) => l.msg === 'attempt expired with its signature absent; building a new attempt' && l.intent === signed!.id)).toBe(true);
    }, 150_000);
  }
});
