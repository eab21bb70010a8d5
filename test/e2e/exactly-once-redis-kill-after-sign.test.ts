import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertExactlyOnce, startHarness, withTimeout, type Case, type Harness } from '../helpers/exactlyOnce.js';
import type { KeeperProcess } from '../helpers/keeper.js';

// The `signed` record is written durably before the transaction leaves the process
// (docs/architecture.md § Exactly-once execution, rule 3). Under the setting the keeper requires (AOF with
// appendfsync always on this Redis 7.0; WAITAOF on 7.2+), Redis is SIGKILLed right after that write, while the keeper
// holds the signed bytes and has sent nothing: the record must survive, and no second signature may ever be made for
// the intent, whether the same keeper carries on or a new one takes over.
describe('exactly once when Redis dies right after the signed write', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('redis-kill-sign', { aof: true });
  });
  afterAll(async () => {
    await h?.close();
  });

  /** Spawns a keeper that stops right after the signed write, and waits until it is there. */
  async function pausedAfterSign(c: Case): Promise<{ k: KeeperProcess; config: string; signature: string }> {
    const config = c.writeConfig({ via: 'ultra', maxRuns: 1, everySeconds: 2 });
    const k = c.spawn({ config, env: { JUPKEEPER_PAUSE_AT: 'after-sign' } });
    await withTimeout(
      new Promise<void>((resolve) => {
        const check = () => (k.stderr.join('').includes('JUPKEEPER_PAUSED after-sign') ? resolve() : setTimeout(check, 50));
        check();
      }),
      40_000,
      `[${c.label}] the keeper never reached the signed write`,
    );
    const [rec] = await c.intents();
    expect(rec?.state, 'the keeper pauses right after the signed write').toBe('signed');
    expect(rec!.signature).toBeTruthy();
    expect(await c.settled(), 'nothing was sent before the pause').toEqual([]);
    return { k, config, signature: rec!.signature! };
  }

  /** SIGKILL Redis, prove it is gone, start it again on the same AOF, and prove the signed record survived. */
  async function crashRedis(c: Case, signature: string): Promise<void> {
    await h.redis.kill();
    expect(await h.redis.answers(), 'Redis still answers after the kill').toBe(false);
    await h.redis.restart();
    const [rec] = await c.intents();
    expect(rec?.state, 'the signed record survived the crash').toBe('signed');
    expect(rec!.signature).toBe(signature);
    expect(rec!.signatures).toEqual([signature]);
  }

  it('the same keeper carries on with the bytes it signed: one signature, settled once', async ({ onTestFailed }) => {
    const c = await h.newCase('same');
    c.dumpOnFailure(onTestFailed);
    const { k, signature } = await pausedAfterSign(c);
    await crashRedis(c, signature);
    k.proc.kill('SIGUSR2');
    await c.waitAllDone(1, 45_000);
    expect(await c.stop(k)).toBe(0);
    const report = await assertExactlyOnce(c);
    expect(report.landed.map((r) => r.signatures)).toEqual([[signature]]);
    expect(k.logs().filter((l) => l.msg === 'signed; signature persisted before submit')).toHaveLength(1);
  }, 90_000);

  it('a new keeper, after the first one died too, re-sends the same bytes and never signs again', async ({ onTestFailed }) => {
    const c = await h.newCase('new');
    c.dumpOnFailure(onTestFailed);
    const { k, config, signature } = await pausedAfterSign(c);
    await crashRedis(c, signature);
    k.proc.kill('SIGKILL');
    await k.exited;
    const next = c.spawn({ config });
    await c.waitAllDone(1, 45_000);
    expect(await c.stop(next)).toBe(0);
    const report = await assertExactlyOnce(c);
    expect(report.landed.map((r) => r.signatures)).toEqual([[signature]]);
    expect(next.logs().some((l) => l.msg === 'resuming a signed intent: re-submitting the same bytes')).toBe(true);
    expect(next.logs().filter((l) => l.msg === 'signed; signature persisted before submit')).toEqual([]);
  }, 90_000);
});
