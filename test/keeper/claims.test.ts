// Acceptance (issue 10, item 5, claims): after the venue resolves markets, every winning position is claimed once
// ($1 a contract arrives), losing ones are left alone, and a position already claimed elsewhere counts as done
// without error. The claims job runs as the keeper wires it (venue read through the project's client over HTTP, a
// Redis ledger, the kill switch in Redis), and the intents it hands to the queue go through the keeper's real
// executor (builder, guard with the intent's policy, signature, RPC submit, confirmation) against the simulator.
import { describe, expect, it } from 'vitest';
import { KEEPER_INSTANCE } from '../../src/engine/keeperPorts.js';
import { claimWinnings, keeperIntentId } from '../../src/keeper/index.js';
import { ledger } from '../helpers/sim.js';
import { useExecutorWorld } from '../helpers/executorKit.js';
import { boughtPosition, freshMarkets, keeperKit, resolveMarket, sendAsOwner } from '../helpers/keeperKit.js';

describe('the claims job', { timeout: 180_000 }, () => {
  const world = useExecutorWorld('keeper-claims');
  const taken = new Set<string>();
  /** The wallet's claim transactions on the venue's settlement ledger. */
  const claimsOnChain = async (wallet: string) => (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind === 'prediction-claim');

  it('claims every winning position once, leaves the losing ones alone, and counts one claimed elsewhere as done', async () => {
    const kit = await keeperKit(world, { usdc: 100_000_000n });
    const [winner, loser, claimedBefore, claimedBetween] = await freshMarkets(world, 4, taken);
    const won = await boughtPosition(world, kit, winner!);
    const lost = await boughtPosition(world, kit, loser!);
    const before = await boughtPosition(world, kit, claimedBefore!);
    const between = await boughtPosition(world, kit, claimedBetween!);
    await resolveMarket(world, winner!.marketId, 'yes');
    await resolveMarket(world, loser!.marketId, 'no');
    await resolveMarket(world, claimedBefore!.marketId, 'yes');
    await resolveMarket(world, claimedBetween!.marketId, 'yes');

    // The owner claims one winner directly, through the API, before the keeper's job runs.
    const ownClaim = await world.jup.prediction.claimPredictionPosition({ positionPubkey: before.position, ownerPubkey: kit.address });
    const start = await kit.usdc();
    await sendAsOwner(world, ownClaim.transaction, kit.keypair);
    expect((await kit.usdc()) - start).toBe(before.contractsMicro);

    const first = await claimWinnings(kit.deps);
    // Two winners are still claimable; the loser is not, and the one the owner claimed is no longer listed.
    expect(first.counts).toMatchObject({ claimable: 2, recorded: 2 });
    const ids = [won.position, between.position].map((p) => keeperIntentId('prediction.claim', p));
    expect([...kit.queued].sort()).toEqual([...ids].sort());
    const afterOwn = await kit.usdc();

    // The owner claims the other one between the keeper recording its claim and the executor carrying it out.
    const race = await world.jup.prediction.claimPredictionPosition({ positionPubkey: between.position, ownerPubkey: kit.address });
    await sendAsOwner(world, race.transaction, kit.keypair);
    await kit.drain();

    const wonClaim = (await kit.store.get(keeperIntentId('prediction.claim', won.position)))!;
    expect(wonClaim).toMatchObject({ instance: KEEPER_INSTANCE, state: 'landed', error: null, intent: { kind: 'prediction.claim', positionPubkey: won.position } });
    expect(wonClaim.quote).toMatchObject({ position: won.position, payoutMicroUsd: won.contractsMicro });
    // The venue answered "already claimed": done, nothing signed, no error.
    const raced = (await kit.store.get(keeperIntentId('prediction.claim', between.position)))!;
    expect(raced).toMatchObject({ state: 'landed', error: null, signature: null, signatures: [], result: { alreadyDone: { code: 'JUP_PREDICTION_ALREADY_CLAIMED' } } });
    // $1 a contract arrived for the keeper's claim, and for the owner's own of the raced one: nothing else.
    expect((await kit.usdc()) - afterOwn).toBe(won.contractsMicro + between.contractsMicro);
    // On chain: the owner's two claims and the keeper's one, of exactly the position's contracts.
    const onChain = await claimsOnChain(kit.address);
    expect(onChain).toHaveLength(3);
    expect(onChain.filter((t) => t.signature === wonClaim.signature)).toEqual([expect.objectContaining({ outputAmount: won.contractsMicro.toString() })]);
    // The losing position was left alone: no intent, no claim, and the venue closed it as lost.
    expect((await kit.intents()).filter((r) => r.kind === 'prediction.claim').map((r) => r.intent)).not.toContainEqual(expect.objectContaining({ positionPubkey: lost.position }));
    expect(await world.jup.prediction.getPredictionPosition({ positionPubkey: lost.position })).toMatchObject({ claimable: false, claimed: false });
    expect((await kit.intents()).filter((r) => r.state === 'failed' || r.state === 'rejected')).toEqual([]);

    // Run again (and by a second keeper at once): nothing more is recorded, nothing more is claimed.
    const [again, other] = await Promise.all([claimWinnings(kit.deps), claimWinnings({ ...kit.deps })]);
    expect([again.counts.recorded, other.counts.recorded]).toEqual([0, 0]);
    expect(kit.queued).toEqual([]);
    expect(await claimsOnChain(kit.address)).toHaveLength(3);
    const landed = await kit.usdc();
    expect((await kit.drain()).length).toBe(0);
    expect(await kit.usdc()).toBe(landed);
    await kit.close();
  });

  it('two keepers claiming at once record one claim per position, and it lands once', async () => {
    const kit = await keeperKit(world, { usdc: 50_000_000n });
    const [m] = await freshMarkets(world, 1, taken);
    const won = await boughtPosition(world, kit, m!);
    await resolveMarket(world, m!.marketId, 'yes');
    const start = await kit.usdc();
    const [a, b] = await Promise.all([claimWinnings(kit.deps), claimWinnings({ ...kit.deps })]);
    expect([a.counts.recorded, b.counts.recorded].sort()).toEqual([0, 1]);
    expect(kit.queued).toEqual([keeperIntentId('prediction.claim', won.position)]);
    // Both workers pick the job up (BullMQ delivers at least once): the ledger lets one sign.
    const id = kit.queued[0]!;
    await Promise.all([kit.executor.execute(id), kit.executor.execute(id)]);
    expect(await claimsOnChain(kit.address)).toHaveLength(1);
    expect((await kit.usdc()) - start).toBe(won.contractsMicro);
    await kit.close();
  });

  it('records no claim while the kill switch halts trading, and claims once it is released', async () => {
    const kit = await keeperKit(world, { usdc: 50_000_000n });
    const [m] = await freshMarkets(world, 1, taken);
    const won = await boughtPosition(world, kit, m!);
    await resolveMarket(world, m!.marketId, 'yes');
    await kit.switchStore.engage('halt', 'maintenance', 'cli');
    expect((await claimWinnings(kit.deps)).counts).toMatchObject({ claimable: 1, recorded: 0, refused: 1 });
    expect(kit.queued).toEqual([]);
    await kit.switchStore.release();
    expect((await claimWinnings(kit.deps)).counts).toMatchObject({ claimable: 1, recorded: 1 });
    const start = await kit.usdc();
    await kit.drain();
    expect((await kit.usdc()) - start).toBe(won.contractsMicro);
    await kit.close();
  });
});
