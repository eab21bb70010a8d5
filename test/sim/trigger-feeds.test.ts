import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { fundedWallet, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The wallet feed reads a wallet's open trigger orders from the venue, which pages them 10 at a time.
describe('the wallet feed and trigger orders', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  const prefix = `feeds-trigger-${randomUUID().slice(0, 8)}`;
  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await sim.close();
  });

  it('sees every open order, past the first page', async () => {
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
