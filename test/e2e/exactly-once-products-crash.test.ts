import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IntentRecord } from '../../src/store/intents.js';
import { productKinds } from '../helpers/productScenarios.js';
import { caseOf, finished, LEFT_IN, linesAbout, prepareAll, preparedCases, startProductWorld, type ProductCase, type ProductKind, type ProductWorld } from '../helpers/productExactlyOnce.js';
import { ledger } from '../helpers/sim.js';

// Every intent kind but swap (part 1's suite proves swaps) through the keeper's executor in a process of its own,
// SIGKILLed at each step: after the build was recorded, after the signature was persisted, after the transaction was
// sent. One process per step runs one intent of every kind and dies once all of them reached the step; a fresh
// executor on the same Redis then finishes each one. The simulator's ledger judges: one settlement of each intent's
// effect under the signature its record says landed, nothing settled twice, and an intent signed before the crash
// re-sent with the same bytes, never signed again.
describe.concurrent('exactly once for every product kind across a SIGKILL', () => {
  let world: ProductWorld;
  beforeAll(async () => {
    world = await startProductWorld('crash');
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  for (const point of ['after-build', 'after-sign', 'after-submit'] as const) {
    describe(`killed ${point}`, () => {
      let cases: Map<ProductKind, ProductCase | Error> | undefined;
      /** Each intent's record as the dead process left it. */
      const left = new Map<ProductKind, IntentRecord>();
      let exit: number | string | undefined;

      beforeAll(async () => {
        cases = await prepareAll(world, productKinds(), point);
        const live = preparedCases(cases);
        const run = world.spawn(live, { JUPKEEPER_CRASH_AT: point, JUPKEEPER_FAULT_ARRIVALS: String(live.length) });
        // It dies once every intent reached the step (SIGKILL by itself); 'timeout' if one never did.
        exit = await finished(run, 90_000);
        for (const c of live) left.set(c.kind, await world.record(c));
        // A build after the crash gets a new blockhash: were a signed intent built and signed again, it would settle twice.
        await world.nextSlot();
      }, 150_000);

      for (const kind of productKinds()) {
        it(`${kind}: a fresh executor finishes it, settled once`, async () => {
          const c = caseOf(cases, kind);
          const crashed = left.get(kind)!;
          const why = async () => `\n${await world.dump(c)}`;
          expect(exit, `the process dies by SIGKILL once every intent reached ${point}${await why()}`).toBe('SIGKILL');
          expect(crashed.state, `the state ${point} left${await why()}`).toBe(LEFT_IN[point]);
          const settledBefore = (await ledger(world.sim)).filter((t) => crashed.signature !== null && t.signature === crashed.signature);
          if (point === 'after-build') {
            expect(crashed.signature, 'nothing is signed after the build').toBeNull();
            expect(crashed.signatures).toEqual([]);
          } else {
            // The signature and its block height were persisted before the bytes left the process.
            expect(crashed.signatures).toEqual([crashed.signature]);
            expect(crashed.lastValidBlockHeight).not.toBeNull();
            // after-sign: never sent; after-submit: sent and settled, but never recorded as such.
            expect(settledBefore, `settlements of the signature before the recovery${await why()}`).toHaveLength(point === 'after-submit' ? 1 : 0);
          }

          const result = await world.recover(c);
          expect(result.state, `the recovery ended${await why()}`).toBe('landed');
          const { rec } = await world.judge(c);
          if (point === 'after-build') {
            // Nothing had been signed: the recovery built it again and signed once.
            expect(rec.signatures).toHaveLength(1);
          } else {
            // Signed before the crash: the same bytes went out again, never signed anew.
            expect(rec.signature, 'the landed signature is the one persisted before the crash').toBe(crashed.signature);
            expect(rec.signatures).toEqual([crashed.signature]);
            expect(rec.signedTx, 'the same signed bytes').toBe(crashed.signedTx);
            expect(rec.attempt).toBe(crashed.attempt);
            expect(linesAbout(world.localLogs, c.id, 'resuming a signed intent: re-submitting the same bytes')).toHaveLength(1);
            expect(linesAbout(world.localLogs, c.id, 'signed; signature persisted before submit')).toEqual([]);
          }
        }, 120_000);
      }
    });
  }
});
