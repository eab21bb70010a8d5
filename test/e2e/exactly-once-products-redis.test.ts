import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntentRecord } from '../../src/store/intents.js';
import { productKinds } from '../helpers/productScenarios.js';
import { caseOf, finished, linesAbout, pausedAt, prepareAll, preparedCases, startProductWorld, type IntentRun, type ProductCase, type ProductKind, type ProductWorld } from '../helpers/productExactlyOnce.js';
import { ledger } from '../helpers/sim.js';

// The `signed` record is written durably before the transaction leaves the process
// (docs/architecture.md § Exactly-once execution, rule 3). For every intent kind but swap (part 1's suite proves
// swaps): two executor processes, on a Redis with AOF and appendfsync always, each stop right after the signed write
// of one intent of every kind, holding the signed bytes and having sent nothing. Redis is SIGKILLed there and started
// again on the same AOF: every signed record must survive. Then one process carries on with the bytes it holds, and
// the other dies too and a fresh executor takes over; either way no intent is signed twice and each settles once.
describe('exactly once for every product kind when Redis dies right after the signed write', () => {
  let world: ProductWorld;
  const variants = ['carry-on', 'take-over'] as const;
  const cases = new Map<(typeof variants)[number], Map<ProductKind, ProductCase | Error>>();
  const signedBefore = new Map<string, IntentRecord>();
  const runs = new Map<(typeof variants)[number], IntentRun>();
  const recovered = new Map<string, string>();
  const sentBeforeKill = new Map<string, number>();
  const survived = new Map<string, IntentRecord>();
  let carryingExit: number | string | undefined;

  beforeAll(async () => {
    world = await startProductWorld('redis-kill', { aof: true });
    for (const v of variants) cases.set(v, await prepareAll(world, productKinds(), v));
    for (const v of variants) {
      const live = preparedCases(cases.get(v)!);
      runs.set(v, world.spawn(live, { JUPKEEPER_PAUSE_AT: 'after-sign', JUPKEEPER_FAULT_ARRIVALS: String(live.length) }));
    }
    await Promise.all(variants.map((v) => pausedAt(runs.get(v)!, 'after-sign', 90_000)));
    const live = variants.flatMap((v) => preparedCases(cases.get(v)!));
    const settled = await ledger(world.sim);
    for (const c of live) {
      const rec = await world.record(c);
      signedBefore.set(c.id, rec);
      sentBeforeKill.set(c.id, settled.filter((t) => t.signature === rec.signature).length);
    }

    await world.redis.kill();
    expect(await world.redis.answers(), 'Redis still answers after the kill').toBe(false);
    await world.redis.restart();
    for (const c of live) survived.set(c.id, await world.record(c));
    // A build from here on gets a new blockhash: an intent signed again would be other bytes, and settle twice.
    await world.nextSlot();

    // The first process carries on with the bytes it holds; the second dies, and this process's executor takes over.
    const carrying = runs.get('carry-on')!;
    carrying.proc.kill('SIGUSR2');
    const dying = runs.get('take-over')!;
    dying.proc.kill('SIGKILL');
    await dying.proc.exited;
    await Promise.all(
      preparedCases(cases.get('take-over')!).map(async (c) => {
        const state = await world.recover(c).then((r) => r.state, (err: unknown) => `threw: ${err instanceof Error ? err.message : String(err)}`);
        recovered.set(c.id, state);
      }),
    );
    carryingExit = await finished(carrying, 90_000);
  }, 200_000);
  afterAll(async () => {
    await world?.close();
  });

  for (const v of variants) {
    describe(v === 'carry-on' ? 'the same executor carries on' : 'a fresh executor takes over from a dead one', () => {
      for (const kind of productKinds()) {
        it(`${kind}: the signed record survived; one signature, settled once`, async () => {
          const c = caseOf(cases.get(v), kind);
          const before = signedBefore.get(c.id)!;
          const why = async () => `\n${await world.dump(c)}`;
          // Paused right after the signed write: signed, nothing sent; and the record survived the crash as it was.
          expect(before.state, `paused right after the signed write${await why()}`).toBe('signed');
          expect(before.signatures).toEqual([before.signature]);
          expect(sentBeforeKill.get(c.id), 'nothing was sent before the kill').toBe(0);
          const after = survived.get(c.id)!;
          expect(after.state, `the signed record survived the crash${await why()}`).toBe('signed');
          expect(after.signature).toBe(before.signature);
          expect(after.signedTx).toBe(before.signedTx);

          if (v === 'take-over') {
            expect(recovered.get(c.id), `the fresh executor landed it${await why()}`).toBe('landed');
            expect(linesAbout(world.localLogs, c.id, 'resuming a signed intent: re-submitting the same bytes')).toHaveLength(1);
            expect(linesAbout(world.localLogs, c.id, 'signed; signature persisted before submit')).toEqual([]);
          } else {
            expect(carryingExit, `the carrying-on process exits cleanly${await why()}`).toBe(0);
            expect(linesAbout(runs.get(v)!.proc.logs(), c.id, 'signed; signature persisted before submit'), 'signed once').toHaveLength(1);
            expect(runs.get(v)!.results().get(c.id)).toMatchObject({ state: 'landed' });
          }
          const { rec } = await world.judge(c);
          expect(rec.signatures, 'one signature, made before the crash').toEqual([before.signature]);
          expect(rec.signedTx, 'the same signed bytes').toBe(before.signedTx);
        }, 120_000);
      }
    });
  }
});
