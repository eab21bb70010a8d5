import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CrashPoint } from '../../src/execution/faultPoints.js';
import { INTENT_KINDS } from '../../src/sdk/intents.js';
import type { IntentRecord } from '../../src/store/intents.js';
import { KIND_SCENARIOS, productKinds } from '../helpers/productScenarios.js';
import { caseOf, finished, LEFT_IN, linesAbout, pausedAt, prepareAll, preparedCases, startProductWorld, type IntentRun, type ProductCase, type ProductKind, type ProductWorld } from '../helpers/productExactlyOnce.js';
import { control } from '../helpers/sim.js';

// Every intent kind but swap (part 1's suite proves swaps) through the keeper's executor in processes of their own:
// the venue settles a transaction and its answer never arrives; two executor processes are started together on the
// same intents (whichever claims an intent last owns it; the other's next move is refused); one executor stalls
// after the build, after the signature or after the send while another takes the intent over and lands it, then
// carries on. The simulator's ledger judges each: one settlement of the intent's effect under the signature its
// record says landed, nothing settled twice, the balances moved once. The crash and Redis scenarios are in
// exactly-once-products-crash and exactly-once-products-redis.
describe.concurrent('exactly once for every product kind', () => {
  let world: ProductWorld;
  beforeAll(async () => {
    world = await startProductWorld('products');
  }, 60_000);
  afterAll(async () => {
    await world?.close();
  });

  it('has a scenario for every intent kind but swap', () => {
    // A kind added to INTENT_KINDS must be proved here (swap is proved by the part 1 suite).
    expect(INTENT_KINDS.filter((k) => k !== 'swap' && !(k in KIND_SCENARIOS))).toEqual([]);
    expect(productKinds().filter((k) => !(INTENT_KINDS as readonly string[]).includes(k))).toEqual([]);
  });

  describe('when the venue settles a transaction and its answer is lost', () => {
    let cases: Map<ProductKind, ProductCase | Error> | undefined;
    let run: IntentRun | undefined;
    let exit: number | string | undefined;
    beforeAll(async () => {
      cases = await prepareAll(world, productKinds(), 'lost');
      const live = preparedCases(cases);
      // Each wallet's first settled send loses its answer: the execute of trigger and recurring, RPC for the rest.
      for (const c of live) {
        const route = c.spec.route;
        await control(world.sim, '/faults', route === 'rpc' ? { kind: 'lose-send-response', count: 1, wallet: c.owner } : { kind: 'lose-execute-response', count: 1, pathPrefix: route.execute, wallet: c.owner });
      }
      run = world.spawn(live);
      exit = await finished(run, 90_000);
    }, 150_000);

    for (const kind of productKinds()) {
      it(`${kind}: confirmed by its signature, never signed again, settled once`, async () => {
        const c = caseOf(cases, kind);
        const why = async () => `\n${await world.dump(c)}`;
        // The fault was used: the transaction settled and its answer was dropped.
        const faults = (await control<{ faults: Array<{ wallet?: string }> }>(world.sim, '/faults', undefined, 'GET')).faults;
        expect(faults.filter((f) => f.wallet === c.owner), `the wallet's lost-answer fault is used up${await why()}`).toEqual([]);
        const [signed] = linesAbout(run!.proc.logs(), c.id, 'signed; signature persisted before submit');
        expect(signed, `the intent was signed${await why()}`).toBeDefined();
        // The executor heard nothing back and went to the chain by the signature it had persisted.
        expect(linesAbout(run!.proc.logs(), c.id, 'submit did not confirm; checking the chain by signature'), `no answer came${await why()}`).toHaveLength(1);
        const { rec } = await world.judge(c);
        expect(rec.signatures, 'never signed again').toEqual([signed!.signature]);
        expect(linesAbout(run!.proc.logs(), c.id, 'signed; signature persisted before submit')).toHaveLength(1);
        expect(exit, `the executor process exits cleanly${await why()}`).toBe(0);
      }, 120_000);
    }
  });

  describe('when two executors run the same intent at once', () => {
    let cases: Map<ProductKind, ProductCase | Error> | undefined;
    let runs: IntentRun[] = [];
    let exits: Array<number | string> = [];
    beforeAll(async () => {
      cases = await prepareAll(world, productKinds(), 'two');
      const live = preparedCases(cases);
      runs = [world.spawn(live), world.spawn(live)];
      exits = await Promise.all(runs.map((r) => finished(r, 90_000)));
    }, 150_000);

    for (const kind of productKinds()) {
      it(`${kind}: one of them lands it, signed once, settled once`, async () => {
        const c = caseOf(cases, kind);
        const { rec } = await world.judge(c);
        const why = `\n${await world.dump(c, runs)}`;
        expect(rec.signatures, `one signature for the intent${why}`).toHaveLength(1);
        expect(rec.attempt).toBe(1);
        // Exactly one of the two moved it to landed; each ended either landed or superseded by the other.
        expect(runs.map((r) => linesAbout(r.proc.logs(), c.id, 'landed').length).reduce((a, b) => a + b), `landings logged${why}`).toBe(1);
        expect(exits, `both processes exit cleanly${why}`).toEqual([0, 0]);
        expect(runs.map((r) => r.results().get(c.id)?.error ?? null), `neither threw${why}`).toEqual([null, null]);
      }, 120_000);
    }
  });

  /** What the stalled executor holds at each step when the other one takes the intent over. */
  const HOLDING: Record<CrashPoint, string> = {
    'after-build': 'the transaction built, unsigned',
    'after-sign': 'the transaction signed, not sent',
    'after-submit': 'the transaction sent, not confirmed',
  };
  for (const point of ['after-build', 'after-sign', 'after-submit'] as const) {
    describe(`when one executor stalls ${point} (${HOLDING[point]}) and another takes the intent over`, () => {
      let cases: Map<ProductKind, ProductCase | Error> | undefined;
      let stalled: IntentRun | undefined;
      let exit: number | string | undefined;
      const tookOver = new Map<ProductKind, string>();
      const heldBefore = new Map<ProductKind, IntentRecord>();
      beforeAll(async () => {
        cases = await prepareAll(world, productKinds(), `stall-${point}`);
        const live = preparedCases(cases);
        // The first executor takes every intent to the step and stops there; the second (this process) runs each
        // intent to the end; then the first carries on.
        stalled = world.spawn(live, { JUPKEEPER_PAUSE_AT: point, JUPKEEPER_FAULT_ARRIVALS: String(live.length) });
        await pausedAt(stalled, point, 90_000);
        for (const c of live) heldBefore.set(c.kind, await world.record(c));
        // The second executor's builds carry a newer blockhash than the stalled one's: two signed builds would both settle.
        await world.nextSlot();
        await Promise.all(
          live.map(async (c) => {
            const state = await world.recover(c).then((r) => r.state, (err: unknown) => `threw: ${err instanceof Error ? err.message : String(err)}`);
            tookOver.set(c.kind, state);
          }),
        );
        stalled.proc.kill('SIGUSR2');
        exit = await finished(stalled, 60_000);
      }, 150_000);

      for (const kind of productKinds()) {
        it(`${kind}: the stalled one stops at its next step, settled once`, async () => {
          const c = caseOf(cases, kind);
          const why = async () => `\n${await world.dump(c)}`;
          const held = heldBefore.get(kind)!;
          expect(held.state, `the stalled executor's step${await why()}`).toBe(LEFT_IN[point]);
          expect(tookOver.get(kind), `the second executor landed it${await why()}`).toBe('landed');
          const { rec } = await world.judge(c);
          const logs = stalled!.proc.logs();
          if (point === 'after-build') {
            // Its next move was refused by the fence: it signed nothing and sent nothing.
            expect(linesAbout(logs, c.id, 'signed; signature persisted before submit'), `the stalled executor signed${await why()}`).toEqual([]);
            expect(rec.signatures, 'only the second executor signed').toHaveLength(1);
          } else {
            // The second executor found the intent signed: it sent the stalled one's bytes and signed nothing.
            expect(rec.signatures, `the stalled executor's signature, and no other${await why()}`).toEqual([held.signature]);
            expect(rec.signedTx).toBe(held.signedTx);
            expect(linesAbout(world.localLogs, c.id, 'resuming a signed intent: re-submitting the same bytes')).toHaveLength(1);
            expect(linesAbout(world.localLogs, c.id, 'signed; signature persisted before submit')).toEqual([]);
          }
          expect(linesAbout(logs, c.id, 'landed'), `the stalled executor recorded a landing${await why()}`).toEqual([]);
          expect(linesAbout(logs, c.id, 'another worker took this intent over; stopping'), `the stalled executor noticed the takeover${await why()}`).toHaveLength(1);
          expect(exit, `the stalled process exits cleanly${await why()}`).toBe(0);
          expect(stalled!.results().get(c.id)).toMatchObject({ state: 'landed', superseded: true });
        }, 120_000);
      }
    });
  }
});
