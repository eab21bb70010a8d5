import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { IntentStore } from '../../src/store/intents.js';
import { intentKeys } from '../../src/store/intentLayout.js';
import { clearNamespace, createRedis } from '../../src/store/redis.js';
import type { Intent } from '../../src/sdk/intents.js';

const intent: Intent = { kind: 'swap', via: 'ultra', inputMint: 'So11111111111111111111111111111111111111112', outputMint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', amount: 1_000n };

// The executor reads and claims an intent in one step (IntentStore.claimUnlessEnded): what it finds must be what a
// get after a claim would have found, an ended intent must keep its fence, and a missing one must stay missing.
describe('claiming an intent with its record', () => {
  const prefix = `test-claim-${process.pid}`;
  let redis: Redis;
  let store: IntentStore;
  const create = (id: string) => store.create({ id, instance: 'i', strategy: 's@1', intent, createdAt: 1, deadline: Date.now() + 60_000 });

  beforeAll(() => {
    redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { name: 'test-claim', enableAutoPipelining: true });
    store = new IntentStore(redis, prefix);
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    await store.close();
    redis.disconnect();
  });

  it('bumps the fence of a live intent and returns the record as the claim left it', async () => {
    await create('live');
    const before = (await store.get('live'))!;
    const claimed = (await store.claimUnlessEnded('live'))!;
    expect(claimed.fence).toBe(before.fence + 1);
    expect(claimed.record).toEqual(await store.get('live'));
    // An earlier owner's fence is refused from now on; the new one moves it.
    expect((await store.move('live', before.fence, 'built')).ok).toBe(false);
    expect((await store.move('live', claimed.fence, 'built')).ok).toBe(true);
  });

  it('leaves an ended intent unclaimed', async () => {
    await create('ended');
    const fence = await store.claim('ended');
    expect((await store.move('ended', fence, 'rejected', { error: { code: 'X', message: 'refused' } })).ok).toBe(true);
    const claimed = (await store.claimUnlessEnded('ended'))!;
    expect(claimed.fence).toBeNull();
    expect(claimed.record.state).toBe('rejected');
    expect((await store.get('ended'))!.fence).toBe(fence);
  });

  it('does not claim a record without a state, and fails on it as a read does', async () => {
    const key = intentKeys(prefix).record('broken');
    await redis.hset(key, 'id', 'broken', 'fence', '3');
    await expect(store.get('broken')).rejects.toThrow(/state/);
    await expect(store.claimUnlessEnded('broken')).rejects.toThrow(/state/);
    expect(await redis.hget(key, 'fence')).toBe('3');
  });

  it('answers undefined for an intent that does not exist, and creates nothing', async () => {
    expect(await store.claimUnlessEnded('nobody')).toBeUndefined();
    expect(await store.exists('nobody')).toBe(false);
  });
});
