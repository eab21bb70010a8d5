import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { ARRIVAL_SLACK_MS, bucketForWindow, MemoryBucketStore, RateBudget, ULTRA_SWAP_BASE, type WindowLimit } from '../../src/jupiter/rateBudget.js';
import type { GatewayCounters } from '../../src/sim/http/gateway.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { RedisBucketStore } from '../../src/store/rateBucket.js';
import { control, fundedWallet, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const QUOTE = { inputMint: SOL, outputMint: USDC, amount: 1_000_000n };

/** Most arrivals inside any window of `windowMs` (the busiest window always starts at an arrival). */
function busiest(arrivals: number[], windowMs: number): number {
  const t = [...arrivals].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < t.length; i += 1) {
    while (j < t.length && t[j]! < t[i]! + windowMs) j += 1;
    best = Math.max(best, j - i);
  }
  return best;
}

/**
 * Saturating demand on one bucket for `spanMs` of explicit time (nothing sleeps): a request every 20 ms, each
 * granted one reaching the venue `delay(n, sinceStartMs)` ms after its grant. Returns the arrival times.
 */
async function saturate(w: WindowLimit, spanMs: number, delay: (n: number, sinceStartMs: number) => number, slackMs?: number): Promise<number[]> {
  const store = new MemoryBucketStore();
  const spec = bucketForWindow(w, slackMs);
  const arrivals: number[] = [];
  const start = 1_800_000_000_000;
  for (let t = start; t < start + spanMs; t += 20) {
    if ((await store.take('k', 1, spec, t)) === 0) arrivals.push(t + delay(arrivals.length, t - start));
  }
  return arrivals;
}

/** The gateway's counts, read over HTTP. */
async function gatewayCounts(sim: RunningSimulator): Promise<ReturnType<GatewayCounters['snapshot']>> {
  return control(sim, '/gateway', undefined, 'GET');
}

describe('the rate budget', () => {
  describe('a bucket for a sliding-window limit', () => {
    // Arrivals late by anything up to the slack: scattered, and in the pattern that packs a window most (every
    // grant of the first third of a two-window cycle a full slack late, the rest on time).
    const scattered = (n: number) => (n % 7 === 0 ? 0 : ARRIVAL_SLACK_MS - ((n * 37) % 200));
    const packed = (w: WindowLimit) => (_n: number, since: number) => (since % (2 * w.windowMs) < (2 * w.windowMs) / 3 ? ARRIVAL_SLACK_MS : 0);

    it.each([
      ['the ultra swap interface (50 per 10 s)', ULTRA_SWAP_BASE],
      ['a grown ultra limit (66 per 10 s)', { limit: 66, windowMs: 10_000 }],
      ['keyless (30 per 60 s)', { limit: 30, windowMs: 60_000 }],
      ['free (60 per 60 s)', { limit: 60, windowMs: 60_000 }],
      ['one per 10 s', { limit: 1, windowMs: 10_000 }],
    ])('keeps every venue window of %s at or under its limit when requests arrive up to the slack late', async (_label, w) => {
      for (const delay of [scattered, packed(w)]) {
        const arrivals = await saturate(w, 6 * w.windowMs, delay);
        expect(busiest(arrivals, w.windowMs)).toBeLessThanOrEqual(w.limit);
        // and spends the budget: over six windows, at least 80 % of what the venue allows (half, for 1 a window)
        expect(arrivals.length).toBeGreaterThanOrEqual(Math.floor(w.limit * 6 * (w.limit > 1 ? 0.8 : 0.5)));
      }
    });

    it('would break the venue window without the slack, which is why it is there', async () => {
      const arrivals = await saturate(ULTRA_SWAP_BASE, 60_000, packed(ULTRA_SWAP_BASE), 0);
      expect(busiest(arrivals, ULTRA_SWAP_BASE.windowMs)).toBeGreaterThan(ULTRA_SWAP_BASE.limit);
    });
  });

  describe('on the ultra tier', () => {
    it('starts the swap interface at 50 per 10 s and the other paths at 60 per minute', () => {
      const budget = new RateBudget({ keyId: 'key-test', tier: 'ultra', store: new MemoryBucketStore() });
      expect(budget.windowFor('/ultra/v1/order')).toEqual({ limit: 50, windowMs: 10_000 });
      expect(budget.windowFor('/ultra/v1/execute')).toEqual({ limit: 50, windowMs: 10_000 });
      expect(budget.windowFor('/price/v3')).toEqual({ limit: 60, windowMs: 60_000 });
      expect(budget.windowFor('/swap/v1/quote')).toEqual({ limit: 60, windowMs: 60_000 });
    });

    it('learns the swap interface limit from the headers, up and down, and nothing from a storm', async () => {
      const budget = new RateBudget({ keyId: 'key-test', tier: 'ultra', store: new MemoryBucketStore() });
      await budget.observe({ limit: 66, remaining: 40, current: 26 }, 200, '/ultra/v1/order');
      expect(budget.windowFor('/ultra/v1/order')?.limit).toBe(66);
      expect(budget.specFor('/ultra/v1/order')).toEqual(bucketForWindow({ limit: 66, windowMs: 10_000 }));
      // The other paths are not the swap interface's window.
      expect(budget.windowFor('/price/v3')?.limit).toBe(60);
      // Without x-ratelimit-limit: the window's count plus what is left of it.
      await budget.observe({ remaining: 30, current: 31 }, 200, '/ultra/v1/execute');
      expect(budget.windowFor('/ultra/v1/order')?.limit).toBe(61);
      // The volume left the rolling day: the venue says less, and the budget follows.
      await budget.observe({ limit: 50, remaining: 49, current: 1 }, 429, '/ultra/v1/order');
      expect(budget.windowFor('/ultra/v1/order')?.limit).toBe(50);
      // A 429 storm's headers (nothing left, nothing counted) say nothing about the limit.
      await budget.observe({ remaining: 0, current: 0 }, 429, '/ultra/v1/order');
      expect(budget.windowFor('/ultra/v1/order')?.limit).toBe(50);
    });

    it('lowers a fixed tier to a smaller limit the venue announces, and never raises it past the plan', async () => {
      const budget = new RateBudget({ keyId: 'key-test', tier: 'developer', store: new MemoryBucketStore() });
      await budget.observe({ limit: 60 }, 200, '/price/v3');
      expect(budget.windowFor('/price/v3')).toEqual({ limit: 60, windowMs: 60_000 });
      await budget.observe({ limit: 9_000 }, 200, '/price/v3');
      expect(budget.windowFor('/price/v3')?.limit).toBe(600);
      // current + remaining is no proof on a fixed plan (a storm's headers would set it to 0).
      await budget.observe({ remaining: 3, current: 2 }, 200, '/price/v3');
      expect(budget.windowFor('/price/v3')?.limit).toBe(600);
    });
  });

  describe('against the simulator over HTTP, one API key at the ultra tier', { timeout: 120_000 }, () => {
    let sim: RunningSimulator;
    const redis: Redis[] = [];
    const namespace = `test-budget-${process.pid}`;
    // One key per test: the venue's window of one test's key must not hold the requests of another.
    const clientOn = (key: string, store: RedisBucketStore | MemoryBucketStore): JupiterClient =>
      createJupiterClient({ baseUrl: sim.url, apiKey: key, tier: 'ultra', bucketStore: store, retry: { retries: 8, baseDelayMs: 200, maxDelayMs: 2_000 } });
    const newRedis = (): Redis => {
      const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
      redis.push(r);
      return r;
    };

    beforeAll(async () => {
      sim = await startTestSim({ apiKeys: ['jup_shared:ultra', 'jup_split:ultra', 'jup_volume:ultra'] });
    });
    afterAll(async () => {
      const keys = await redis[0]?.keys(`${namespace}*`);
      if (keys && keys.length > 0) await redis[0]!.del(...keys);
      for (const r of redis) r.disconnect();
      await sim.close();
    });

    it('two clients sharing the key\'s bucket through Redis get no 429 under twice the swap budget at once', async () => {
      await control(sim, '/gateway', undefined, 'DELETE');
      // Each its own Redis connection and store, as two keepers have: they meet only in the key's bucket.
      const a = clientOn('jup_shared', new RedisBucketStore(newRedis(), namespace));
      const b = clientOn('jup_shared', new RedisBucketStore(newRedis(), namespace));
      const results = await Promise.all([a, b].flatMap((c) => Array.from({ length: 30 }, () => c.ultra.getOrder(QUOTE))));
      expect(results).toHaveLength(60);
      const counts = await gatewayCounts(sim);
      expect(counts.lanes['ultra/swap']).toEqual({ allowed: 60, tooMany: 0 });
      expect(a.transport.budget.windowFor('/ultra/v1/order')?.limit).toBe(50);
    });

    it('(the contrast) two buckets of one key, as prefixes used to make, draw 429s from the venue', async () => {
      await control(sim, '/gateway', undefined, 'DELETE');
      const a = clientOn('jup_split', new RedisBucketStore(newRedis(), `${namespace}-prefix-a`));
      const b = clientOn('jup_split', new RedisBucketStore(newRedis(), `${namespace}-prefix-b`));
      await Promise.all([a, b].flatMap((c) => Array.from({ length: 30 }, () => c.ultra.getOrder(QUOTE))));
      expect((await gatewayCounts(sim)).lanes['ultra/swap']!.tooMany).toBeGreaterThan(0);
    });

    it('follows the limit as executed volume grows it, and the other paths stay on their own window', async () => {
      const jup = clientOn('jup_volume', new RedisBucketStore(newRedis(), `${namespace}-volume`));
      // 150,000 USD executed through Ultra with the key; the quota is recomputed every 10 simulated minutes.
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 150_000_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 150_000_000_000n, taker: wallet.publicKey.toBase58() });
      expect((await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId })).status).toBe('Success');
      await control(sim, '/clock', { advanceMs: 600_000 });
      await control(sim, '/gateway', undefined, 'DELETE');
      await jup.ultra.getOrder(QUOTE);
      // 50 + the documented quota for 150,000 USD (between +11 at 100,000 and +115 at 1,000,000).
      expect(jup.transport.budget.windowFor('/ultra/v1/order')).toEqual({ limit: 66, windowMs: 10_000 });
      await jup.price.getPrices({ ids: [SOL] });
      expect(jup.transport.budget.windowFor('/price/v3')).toEqual({ limit: 60, windowMs: 60_000 });
      // Demand past the grown limit still draws no 429.
      await Promise.all(Array.from({ length: 60 }, () => jup.ultra.getOrder(QUOTE)));
      expect((await gatewayCounts(sim)).lanes['ultra/swap']).toEqual({ allowed: 61, tooMany: 0 });
    });
  });
});
