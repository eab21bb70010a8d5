import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control } from '../helpers/sim.js';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';

// The venue settles an Ultra execute and the connection drops before the answer arrives: the keeper cannot know
// whether it landed. It must not build or sign again; it confirms by the signature it persisted (re-sending the
// same bytes, which the venue answers from its cache) and the swap settles once.
describe('exactly once when the execute response is lost', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('lost-response');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('settles once, and the intent lands with the signature it was sent with', async ({ onTestFailed }) => {
    const maxRuns = 2;
    const c = await h.newCase('ultra');
    c.dumpOnFailure(onTestFailed);
    await control(h.sim, '/faults', { kind: 'lose-execute-response', count: 1, pathPrefix: '/ultra/v1/execute' });
    const k = c.spawn({ config: c.writeConfig({ via: 'ultra', maxRuns, everySeconds: 2 }) });

    const sent = await k.waitForLog((l) => l.msg === 'signed; signature persisted before submit', 30_000);
    await c.waitAllDone(maxRuns, 40_000);
    expect(await c.stop(k)).toBe(0);

    // The fault was used up: an execute settled and its answer was lost.
    expect((await control<{ faults: unknown[] }>(h.sim, '/faults', undefined, 'GET')).faults).toEqual([]);
    const report = await assertExactlyOnce(c);
    const first = report.intents.find((r) => r.id === sent.intent)!;
    expect(first.state).toBe('landed');
    expect(first.signatures, 'never re-signed').toEqual([sent.signature]);
    expect(first.signature).toBe(sent.signature);
    expect(report.settled.filter((t) => t.requestId === first.requestId)).toHaveLength(1);
    // The executor did not hear back from the first execute and fell back to the chain.
    expect(k.logs().some((l) => l.intent === first.id && l.msg === 'submit did not confirm; checking the chain by signature')).toBe(true);
  }, 120_000);
});
