import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';

// Redis (AOF, appendfsync always) is SIGKILLed in the middle of a DCA and comes back, once the keeper has run into
// the outage, on the same port and data directory. The keeper survives (ioredis reconnects, BullMQ resumes),
// nothing settles twice, nothing is lost.
describe('exactly once across a Redis crash and restart', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('redis-restart', { aof: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('survives Redis being killed mid-run and finishes every intent once', async ({ onTestFailed }) => {
    const maxRuns = 5;
    const c = await h.newCase('dca');
    c.dumpOnFailure(onTestFailed);
    const k = c.spawn({ config: c.writeConfig({ via: 'ultra', maxRuns, everySeconds: 2 }) });

    // Kill Redis while an intent is in flight: the first one landed, the next one has just been built.
    const first = await k.waitForLog((l) => l.msg === 'landed', 30_000);
    await k.waitForLog((l) => l.msg === 'intent moved' && l.to === 'built' && l.intent !== first.intent, 30_000);
    // Every window that produced an intent before the crash must see it land.
    const before = await c.intents();
    expect(before.length).toBeGreaterThan(0);
    const serverBefore = h.redis.pid();
    const linesBefore = k.logs().length;
    await h.redis.kill();
    // Prove the outage: nothing answers on the port, and the keeper itself ran into it (a connection error logged
    // after the kill), rather than this test restarting a server that never went away.
    expect(await h.redis.answers(), 'Redis still answers after the kill').toBe(false);
    await k.waitForLog((l) => k.logs().indexOf(l) >= linesBefore && /connection error|ECONNREFUSED/.test(`${String(l.msg)} ${String(l.err)}`), 20_000);
    expect(k.proc.exitCode, 'the keeper must survive a Redis outage').toBeNull();
    expect(k.proc.signalCode).toBeNull();
    await h.redis.restart();
    expect(h.redis.pid(), 'the restarted Redis is a new process').not.toBe(serverBefore);

    await c.waitAllDone(maxRuns, 45_000);
    expect(k.proc.exitCode, 'the keeper must survive a Redis outage').toBeNull();
    expect(await c.stop(k)).toBe(0);

    const report = await assertExactlyOnce(c);
    if (process.env.EO_DUMP) console.log(await c.dump(), k.stderr.join('').split('\n').filter((l) => !l.startsWith('{')).join('\n'));
    for (const r of before) expect(report.intents.find((x) => x.id === r.id)?.state, `intent ${r.id} (${r.state} before the crash)`).toBe('landed');
    expect(report.landed.length).toBeGreaterThanOrEqual(maxRuns);
  }, 75_000);
});
