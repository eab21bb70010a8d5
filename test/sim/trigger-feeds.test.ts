import { describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { fundedWallet, signBase64, SOL, USDC } from '../helpers/sim.js';
import { useFeedWorld } from '../helpers/feedWorld.js';

// The wallet feed reads a wallet's open trigger orders from the venue, which pages them 10 at a time.
describe('the wallet feed and trigger orders', { timeout: 60_000 }, () => {
  const world = useFeedWorld('feeds-trigger');

  it('sees every open order, past the first page', async () => {
    const { sim, redis, prefix } = world;
    const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const maker = await fundedWallet(sim, 500_000_000n, [[USDC, 130_000_000n]]);
    const placed: string[] = [];
    for (let i = 0; i < 13; i += 1) {
      const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: maker.publicKey.toBase58(), payer: maker.publicKey.toBase58(), params: { makingAmount: 10_000_000n, takingAmount: 1_000_000_000n } });
      await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, maker) });
      placed.push(created.order!);
    }
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${sim.url}/rpc`), snapshots: new SnapshotStore(redis, prefix), logger: silentLogger });
    const snapshot = await feeds.refreshWallet(maker.publicKey.toBase58());
    expect(snapshot.errors.trigger).toBeUndefined();
    expect(snapshot.trigger.map((o) => o.order).sort()).toEqual([...placed].sort());
    expect(snapshot.trigger.every((o) => o.remainingMakingAmount === 10_000_000n)).toBe(true);
  });
});
