import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { bucketForTier } from '../../src/jupiter/rateBudget.js';
import { RedisBucketStore } from '../../src/store/rateBucket.js';
import { clearNamespace } from '../../src/store/redis.js';

describe('the rate bucket shared through Redis', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const prefix = `test-bucket-${process.pid}`;
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    await redis.quit();
  });

  it('lets two workers together take no more than the tier allows in any 60-second window', async () => {
    const spec = bucketForTier('free')!;
    const a = new RedisBucketStore(redis, prefix);
    const b = new RedisBucketStore(redis, prefix);
    const start = 1_800_000_000_000;
    // Two workers ask every 100 ms for two minutes of simulated time; times are explicit, nothing sleeps.
    const granted: number[] = [];
    for (let t = start; t < start + 120_000; t += 100) {
      for (const store of [a, b]) if ((await store.take('key-x:free', 1, spec, t)) === 0) granted.push(t);
    }
    expect(granted.length).toBeGreaterThan(100);
    // The gateway counts any 60 s window, not windows aligned to the start: check the one starting at every grant
    // (the busiest window always starts at a grant).
    let busiest = { from: 0, count: 0 };
    for (let i = 0, j = 0; i < granted.length; i += 1) {
      while (j < granted.length && granted[j]! < granted[i]! + 60_000) j += 1;
      if (j - i > busiest.count) busiest = { from: granted[i]! - start, count: j - i };
    }
    expect(busiest.count, `${busiest.count} requests in the 60 s from +${busiest.from} ms`).toBeLessThanOrEqual(60);
  });

  it('makes every worker wait once the server says the budget is spent', async () => {
    const spec = bucketForTier('pro')!;
    const store = new RedisBucketStore(redis, prefix);
    const now = 1_800_000_000_000;
    expect(await store.take('key-y:pro', 1, spec, now)).toBe(0);
    await store.syncRemaining('key-y:pro', 0, spec, now);
    await store.blockUntil('key-y:pro', now + 1_500);
    const other = new RedisBucketStore(redis, prefix);
    expect(await other.take('key-y:pro', 1, spec, now + 10)).toBe(1_490);
    expect(await other.take('key-y:pro', 1, spec, now + 1_600)).toBe(0);
  });
});
