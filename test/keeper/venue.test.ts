// Acceptance (issue 10, item 5): the venue reconciliation notices an order filled, cancelled or expired on the venue
// behind the bot's back and updates the ledger within one run (visible in `jup-keeper intents --json`); prediction
// orders left unfilled past keeper.staleOrderAge are closed (their deposit refunded); the sweep reports escrows
// that hold the wallet's funds with no live order behind them, and unclaimed winnings. The jobs run as the keeper
// wires them (venue read through the project's client over HTTP, a Redis ledger) and their intents go through the
// keeper's real executor against the simulator, whose clock is frozen: orders rest until told otherwise.
import { describe, expect, it } from 'vitest';
import { PublicKey } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import type { IntentRow } from '../../src/cli/commands/intents.js';
import { closeStaleOrders, keeperIntentId, reconcileVenue, sweepEscrows } from '../../src/keeper/index.js';
import { tokenProgramId } from '../../src/sim/catalog.js';
import { readKeeperStatus } from '../../src/store/keeperStore.js';
import { cliJson, waitUntil } from '../helpers/e2e.js';
import { marketOf, useExecutorWorld, type ExecutorWorld } from '../helpers/executorKit.js';
import { boughtPosition, fillNow, freshMarkets, keeperKit, resolveMarket, sendAsOwner, type KeeperKit } from '../helpers/keeperKit.js';
import { control, signBase64, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

describe('the keeper jobs against the venue', { timeout: 180_000 }, () => {
  const world = useExecutorWorld('keeper-venue');
  const taken = new Set<string>();
  /** The kit's open prediction orders as the venue lists them. */
  const openPrediction = async (kit: KeeperKit) => (await world.jup.prediction.getPredictionOrders({ ownerPubkey: kit.address })).data;

  it('notices limit, recurring and prediction orders filled, cancelled or expired behind the bot\'s back within one run', async () => {
    const kit = await keeperKit(world, { usdc: 400_000_000n, market: await marketOf(world, [SOL, USDC]) });
    const [m1, m2] = await freshMarkets(world, 2, taken);
    const limit = await kit.run({ kind: 'trigger.create', inputMint: SOL, outputMint: USDC, makingAmount: 100_000_000n, takingAmount: 1_000_000_000_000n });
    const dca = await kit.run({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 });
    const buy = await kit.run({ kind: 'prediction.buy', marketId: m1!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    const idle = await kit.run({ kind: 'prediction.buy', marketId: m2!.marketId, side: 'no', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    for (const r of [limit, dca, buy, idle]) expect(r.state).toBe('landed');
    // The prediction builds recorded their order and position.
    expect(buy.quote).toMatchObject({ order: expect.any(String), position: expect.any(String) });

    // The venue's keeper buys the recurring order's first slice on its own timer once the order lands: wait for it,
    // or on a loaded machine it lands between the two runs below and the second sees the order change.
    await waitUntil('the first recurring slice bought', async () => (await world.jup.recurring.getOrders({ user: kit.address, orderStatus: 'active', recurringType: 'time' })).orders[0]?.rawInUsed === 75_000_000n, 30_000);

    // First run: every order is found open on the venue, and its account written onto the intent's record.
    const first = await reconcileVenue(kit.deps);
    expect(first.counts).toMatchObject({ tracked: 4, changed: 4, ended: 0, unseen: 0 });
    const triggerOrder = (await world.jup.trigger.getOrders({ user: kit.address, orderStatus: 'active' })).orders[0]!.orderKey;
    const recurringOrder = (await world.jup.recurring.getOrders({ user: kit.address, orderStatus: 'active', recurringType: 'time' })).orders[0]!.orderKey;
    const venue = async (id: string) => (await kit.deps.ledger.read([id]))[0]!.venueOrder;
    expect(await venue(limit.id)).toMatchObject({ product: 'trigger', order: triggerOrder, status: 'open' });
    expect(await venue(dca.id)).toMatchObject({ product: 'recurring', order: recurringOrder, status: 'partially-filled' });
    expect(await venue(buy.id)).toMatchObject({ product: 'prediction', order: buy.quote!.order, position: buy.quote!.position, status: 'open' });
    expect((await reconcileVenue(kit.deps)).counts).toMatchObject({ tracked: 4, changed: 0 });

    // Behind the bot's back: the venue fills the limit order and the prediction buy, the owner cancels the
    // recurring order through the API, and the venue expires the other prediction order.
    await fillNow(world, triggerOrder);
    await fillNow(world, buy.quote!.order as string);
    const cancel = await world.jup.recurring.cancelOrder({ order: recurringOrder, user: kit.address, recurringType: 'time' });
    const signed = signBase64(cancel.transaction, kit.keypair);
    expect((await world.jup.recurring.execute({ signedTransaction: signed, requestId: cancel.requestId })).status).toBe('Success');
    expect((await control<{ expired: number }>(world.sim, '/orders/expire', { order: idle.quote!.order })).expired).toBe(1);

    // One run later the ledger says so.
    const second = await reconcileVenue(kit.deps);
    expect(second.counts).toMatchObject({ tracked: 4, changed: 4, ended: 4 });
    expect(await venue(limit.id)).toMatchObject({ order: triggerOrder, status: 'filled' });
    expect(await venue(dca.id)).toMatchObject({ order: recurringOrder, status: 'cancelled' });
    expect(await venue(buy.id)).toMatchObject({ status: 'filled', position: buy.quote!.position });
    expect(await venue(idle.id)).toMatchObject({ status: 'expired' });
    // Ended orders are tracked no more: the next run reads nothing from the venue.
    expect((await reconcileVenue(kit.deps)).counts).toMatchObject({ tracked: 0 });

    // `jup-keeper intents --json` shows it, after the existing fields.
    const rows = await cliJson<IntentRow[]>(['intents', '--redis-url', REDIS_URL, '--prefix', kit.prefix, '--json']);
    const byId = new Map(rows.map((r) => [r.id, r]));
    expect(Object.keys(byId.get(limit.id)!).slice(0, 6)).toEqual(['id', 'strategy', 'kind', 'state', 'signatures', 'requestId']);
    expect(byId.get(limit.id)!.venueOrder).toMatchObject({ product: 'trigger', order: triggerOrder, status: 'filled' });
    expect(byId.get(dca.id)!.venueOrder).toMatchObject({ product: 'recurring', order: recurringOrder, status: 'cancelled' });
    expect(byId.get(buy.id)!.venueOrder).toMatchObject({ product: 'prediction', status: 'filled', position: buy.quote!.position });
    expect(byId.get(idle.id)!.venueOrder).toMatchObject({ status: 'expired' });
    await kit.close();
  });

  it('closes a prediction order left unfilled past keeper.staleOrderAge, and only then; its deposit comes back', async () => {
    let clock = 0;
    const kit = await keeperKit(world, { usdc: 50_000_000n, staleOrderAgeMs: 15 * 60_000, now: () => clock });
    const [m] = await freshMarkets(world, 1, taken);
    const buy = await kit.run({ kind: 'prediction.buy', marketId: m!.marketId, side: 'yes', depositAmount: 20_000_000n, maxPriceMicroUsd: 990_000n });
    const [order] = await openPrediction(kit);
    expect(order?.pubkey).toBe(buy.quote!.order);
    const placedAt = order!.createdAt * 1000;

    clock = placedAt + 10 * 60_000;
    expect((await closeStaleOrders(kit.deps)).counts).toMatchObject({ open: 1, stale: 0, recorded: 0 });
    expect(kit.queued).toEqual([]);

    clock = placedAt + 16 * 60_000;
    expect((await closeStaleOrders(kit.deps)).counts).toMatchObject({ open: 1, stale: 1, recorded: 1 });
    const id = keeperIntentId('prediction.closeOrder', order!.pubkey);
    expect(kit.queued).toEqual([id]);
    const before = await kit.usdc();
    await kit.drain();
    expect(await kit.store.get(id)).toMatchObject({ state: 'landed', instance: '_keeper', intent: { kind: 'prediction.closeOrder', orderPubkey: order!.pubkey } });
    expect((await kit.usdc()) - before).toBe(20_000_000n);
    expect(await openPrediction(kit)).toEqual([]);
    // Nothing more to close.
    expect((await closeStaleOrders(kit.deps)).counts).toMatchObject({ open: 0, recorded: 0 });
    await kit.close();
  });

  it('reports funds in the escrow of an ended order, and unclaimed winnings, in the report status reads', async () => {
    const kit = await keeperKit(world, { usdc: 60_000_000n });
    const [m1, m2] = await freshMarkets(world, 2, taken);
    const buy = await kit.run({ kind: 'prediction.buy', marketId: m1!.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    const order = buy.quote!.order as string;
    const won = await boughtPosition(world, kit, m2!);
    // The filled buy ends at once; the resting one is open.
    expect((await reconcileVenue(kit.deps)).counts).toMatchObject({ tracked: 2, ended: 1 });
    // The owner closes the resting buy: its escrow is refunded and closed.
    const close = await world.jup.prediction.closePredictionOrder({ ownerPubkey: kit.address, orderPubkey: order });
    await sendAsOwner(world, close.transaction, kit.keypair);
    expect((await reconcileVenue(kit.deps)).counts).toMatchObject({ tracked: 1, ended: 1 });
    await resolveMarket(world, m2!.marketId, 'yes');

    const clean = await sweepEscrows(kit.deps);
    expect(clean.counts).toMatchObject({ checkedOrders: 2, stranded: 0, unclaimed: 1, unclaimedMicroUsd: Number(won.contractsMicro) });

    // 1 USDC sent to the ended order's escrow address (as a mistaken transfer would): stranded.
    const escrow = sendIntoEscrow(world, kit, order, 1_000_000n);
    const report = await sweepEscrows(kit.deps);
    expect(report.counts).toMatchObject({ stranded: 1, unclaimed: 1 });
    // Found stranded, it is checked again at every sweep until it is empty; the clean order is not read again once
    // the sweeps have moved past its end.
    const later = (minutes: number) => ({ ...kit.deps, now: () => Date.now() + minutes * 60_000 });
    expect((await sweepEscrows(later(10))).counts).toMatchObject({ checkedOrders: 2, stranded: 1 });
    expect((await sweepEscrows(later(20))).counts).toMatchObject({ checkedOrders: 1, stranded: 1 });
    const status = await readKeeperStatus(world.redis, kit.prefix, kit.store);
    expect(status.sweep).toMatchObject({ stranded: [{ intent: buy.id, product: 'prediction', order, account: escrow, mint: USDC, amount: 1_000_000n }], unclaimed: [{ position: won.position, payoutMicroUsd: won.contractsMicro }], unclaimedMicroUsd: won.contractsMicro });
    await kit.close();
  });
});

/** The wallet sends `amount` USDC into the associated token account of `authority` (opening it): returns its address. */
function sendIntoEscrow(world: ExecutorWorld, kit: KeeperKit, authority: string, amount: bigint): string {
  const venue = world.sim.ctx.state.venue;
  const program = new PublicKey(tokenProgramId(venue.token(USDC)!));
  const mint = new PublicKey(USDC);
  const owner = kit.keypair.publicKey;
  const escrow = getAssociatedTokenAddressSync(mint, new PublicKey(authority), true, program);
  const from = getAssociatedTokenAddressSync(mint, owner, false, program);
  const { tx } = venue.chain.buildTransaction(owner, [
    createAssociatedTokenAccountIdempotentInstruction(owner, escrow, new PublicKey(authority), mint, program),
    createTransferCheckedInstruction(from, mint, escrow, owner, amount, 6, [], program),
  ]);
  tx.sign([kit.keypair]);
  const outcome = venue.settle(tx);
  expect(outcome.kind).toBe('landed');
  return escrow.toBase58();
}
