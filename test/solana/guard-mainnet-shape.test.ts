import { describe, expect, it } from 'vitest';
import type { UiInnerInstructions } from '../../src/sim/rpc/parseInstruction.js';
import { flowEventsOf, fromUiInstruction, type FlowEvent } from '../../src/solana/guardInstructions.js';
import { contextual, resultOf } from '../../src/solana/rpc.js';
import { instructionsOf, isMoveProgram, type MainnetTwin } from '../helpers/mainnetShape.js';
import { rulesOf, useMainnetShapeWorld, type ProductCase, type ProductIntentKind } from '../helpers/mainnetShapeWorld.js';

/** Every product's intent kind, each with what it acts on made first. */
const KINDS: ProductIntentKind[] = [
  'trigger.create',
  'trigger.cancel',
  'recurring.create',
  'recurring.cancel',
  'lend.deposit',
  'lend.withdraw',
  'lend.mint',
  'lend.redeem',
  'prediction.buy',
  'prediction.sell',
  'prediction.closePosition',
  'prediction.closeOrder',
  'prediction.claim',
  'send',
  'send.clawback',
];

// Issue 20, item 7: the guard judges a product transaction alike in both shapes: with the money moves beside the
// product instruction, as the simulator builds them, and with the same moves inside it, as a real program makes them
// and a node reports them (inner instructions of the product instruction). The mainnet twin of each honest build passes.
describe('the guard on honest product transactions in mainnet shape (the moves inside the product instruction)', { timeout: 240_000 }, () => {
  const w = useMainnetShapeWorld('guard-mainnet-shape');

  /** The flow events of the twin's product instruction, as the guard reads the front's answer. */
  const presentedEvents = (twin: MainnetTwin): FlowEvent[] => {
    const group = w.front.presented(twin)?.find((g) => g.index === twin.productIndex);
    return (group?.instructions ?? []).flatMap((ix) => flowEventsOf(fromUiInstruction(ix)));
  };

  /**
   * What the original's moves do, read as the guard reads top-level instructions (raw), followed by their own CPIs as
   * the simulator reports them for the original: what the front must present inside the twin's product instruction.
   */
  const originalMoveEvents = async (twin: MainnetTwin): Promise<FlowEvent[]> => {
    const wire = Buffer.from(twin.original.serialize()).toString('base64');
    const [reply] = await w.world.rpc.batch([{ method: 'simulateTransaction', params: [wire, { encoding: 'base64', sigVerify: false, innerInstructions: true, commitment: 'confirmed' }] }]);
    const { value } = contextual(resultOf(reply!, 'simulateTransaction'), 'simulateTransaction') as { value: { innerInstructions: UiInnerInstructions[] } };
    const ixs = instructionsOf(twin.original);
    return twin.placement.flatMap((place, i) => {
      if (place !== 'inner') return [];
      const ix = ixs[i]!;
      const own = flowEventsOf({ form: 'raw', programId: ix.programId.toBase58(), accounts: ix.keys.map((k) => k.pubkey.toBase58()), data: ix.data });
      const cpis = (value.innerInstructions.find((g) => g.index === i)?.instructions ?? []).flatMap((x) => flowEventsOf(fromUiInstruction(x)));
      return [...own, ...cpis];
    });
  };

  it('is faithful: the wallet\'s changes and every movement are the sim shape\'s, the fee the twin\'s own signatures', async () => {
    // A deposit, a refund the venue's keeper co-signs, a deposit that mints shares, a withdrawal that burns them.
    for (const kind of ['trigger.create', 'trigger.cancel', 'lend.deposit', 'lend.withdraw'] as const) {
      const c = await w.prepare(kind);
      const sim = await w.guardSim(c, c.built.tx);
      const twin = w.twinOf(c, c.built.tx);
      const main = await w.guardMainnet(c, twin);
      expect([sim.violations, main.violations], kind).toEqual([[], []]);
      expect(main.changes.tokens, `${kind}: token changes`).toEqual(sim.changes.tokens);
      expect(main.changes.tokens.length, kind).toBeGreaterThan(0);
      // The keeper signs a payout or a mint beside the instruction; on mainnet the program signs inside it, so the
      // twin pays one signature less, and the guard's fee is the twin's.
      expect(twin.feeRefund, kind).toBe(kind === 'trigger.create' ? 0n : 5_000n);
      expect(main.changes.lamports - sim.changes.lamports, `${kind}: SOL changes`).toBe(twin.feeRefund);
      expect(sim.feeLamports! - main.feeLamports!, kind).toBe(twin.feeRefund);
      // The inner instructions presented decode, with the guard's own decoder, to the moves of the original.
      const events = presentedEvents(twin);
      expect(events, `${kind}: movements`).toEqual(await originalMoveEvents(twin));
      expect(events.some((e) => e.kind === 'tokens'), kind).toBe(true);
      // Every move is presented as a node sends system and token CPIs: jsonParsed, one level below the instruction.
      const group = w.front.presented(twin)!.find((g) => g.index === twin.productIndex)!;
      expect(group.instructions.map((ix) => ['parsed' in ix, ix.stackHeight]), kind).toEqual(group.instructions.map(() => [true, 2]));
    }
  });

  describe.each(KINDS)('%s', (kind) => {
    it('passes in both shapes, the twin carrying no move of its own', async () => {
      const c: ProductCase = await w.prepare(kind);
      expect((await w.guardSim(c, c.built.tx)).violations, 'sim shape').toEqual([]);
      const twin = w.twinOf(c, c.built.tx);
      // The twin's top level holds no system or token instruction: every move runs inside the product instruction.
      expect(instructionsOf(twin.twin).filter((ix) => isMoveProgram(ix.programId))).toEqual([]);
      // A sell order moves nothing when it is placed (the proceeds come with its fills): its twin is its original.
      const movesNothing = kind === 'prediction.sell' || kind === 'prediction.closePosition';
      expect(twin.placement.filter((p) => p === 'inner').length > 0).toBe(!movesNothing);
      const report = await w.guardMainnet(c, twin);
      expect(report.violations, 'mainnet shape').toEqual([]);
      expect(report.simulated).toBe(true);
      expect(presentedEvents(twin).length > 0, 'the moves the front presented inside the instruction').toBe(!movesNothing);
      const group = w.front.presented(twin)?.find((g) => g.index === twin.productIndex);
      expect((group?.instructions ?? []).every((ix) => (ix.stackHeight ?? 0) >= 2)).toBe(true);
      expect(w.front.unknownSimulations).toBe(0);
      expect(rulesOf(report)).toEqual([]);
    });
  });
});
