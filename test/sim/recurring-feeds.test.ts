import { describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { fundedWallet, SOL, USDC } from '../helpers/sim.js';
import { eventually, openRecurringOrder, recurringClient } from './recurringKit.js';
import { useFeedWorld } from '../helpers/feedWorld.js';

// The wallet feed reads a wallet's open recurring orders from the venue, which pages them 10 at a time: a strategy
// must see its eleventh order, or it would place it again.
describe('the wallet feed and recurring orders', { timeout: 60_000 }, () => {
  const world = useFeedWorld('feeds-recurring');

  it('sees every open order, past the first page, with what each has used', async () => {
    const { sim, redis, prefix } = world;
    const jup = recurringClient(sim);
    const user = await fundedWallet(sim, 500_000_000n, [[USDC, 12n * 110_000_000n]]);
    const placed: string[] = [];
    for (let i = 0; i < 12; i += 1) placed.push((await openRecurringOrder(sim, jup, user, { inputMint: USDC, outputMint: SOL, inAmount: 110_000_000n, numberOfOrders: 2, interval: 86_400 })).order);
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${sim.url}/rpc`), snapshots: new SnapshotStore(redis, prefix), logger: silentLogger });
    // Each order's first slice fills at once (on the keeper's timer); the feed is read until it shows them all.
    const snapshot = await eventually('every first slice in the feed', async () => {
      const s = await feeds.refreshWallet(user.publicKey.toBase58());
      return s.recurring.length === 12 && s.recurring.every((o) => o.inUsed > 0n) ? s : undefined;
    }, 200);
    expect(snapshot.errors.recurring).toBeUndefined();
    expect(snapshot.recurring.map((o) => o.order).sort()).toEqual([...placed].sort());
    expect(snapshot.recurring.every((o) => o.inDeposited === 110_000_000n && o.inUsed === 55_000_000n && o.outReceived > 0n)).toBe(true);
  });
});
