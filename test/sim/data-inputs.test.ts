import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import type { PriceMap } from '../../src/jupiter/price/getPrices.js';
import { startSimulator, type RunningSimulator } from '../../src/sim/server.js';

const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const JUP = 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN';

const mints = (n: number): string[] => Array.from({ length: n }, () => Keypair.generate().publicKey.toBase58());

describe('when the data endpoints get bad input', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ seed: 3, clockSpeed: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });

  const unknown = Keypair.generate().publicKey.toBase58();
  /** Path and query, and the answer: 400 with {error}, or the documented empty result. */
  const cases: Array<[string, 400 | { empty: unknown }]> = [
    ['/price/v3', 400],
    ['/price/v3?ids=', 400],
    ['/price/v3?ids=,,,', 400],
    [`/price/v3?ids=${mints(51).join(',')}`, 400],
    ['/price/v3?ids=not-a-mint', { empty: {} }],
    [`/price/v3?ids=${unknown}`, { empty: {} }],
    ['/price/v3?ids=%E0%A4%A', { empty: {} }],
    ['/price/v3?ids[]=x&ids[]=y', 400],
    ['/tokens/v2/search', 400],
    ['/tokens/v2/search?query=', 400],
    ['/tokens/v2/search?query=%20%20', 400],
    [`/tokens/v2/search?query=${mints(101).join(',')}`, 400],
    ['/tokens/v2/search?query=%00%FF%FE', { empty: [] }],
    [`/tokens/v2/search?query=${unknown}`, { empty: [] }],
    [`/tokens/v2/search?query=${'x'.repeat(10_001)}`, 400],
    ['/tokens/v2/tag', 400],
    ['/tokens/v2/tag?query=no-such-tag', 400], // tokens-v2.yaml: query is one of lst, verified, stocks
    ['/tokens/v2/toptraded/24h?limit=abc', 400],
    ['/tokens/v2/toptraded/24h?limit=0', 400],
    ['/tokens/v2/toptraded/24h?limit=101', 400],
    ['/tokens/v2/toptraded/24h?limit=-5', 400],
    ['/tokens/v2/toptraded/24h?limit=2.5', 400],
    ['/tokens/v2/toptraded/24h?limit=1e999', 400],
    ['/tokens/v2/toptraded/24h?limit=', 400],
    ['/tokens/v2/topfoo/24h', 400],
    ['/tokens/v2/toptrending/7d', 400],
    ['/tokens/v2/content', 400],
    ['/tokens/v2/content?mints=bad', 400],
    [`/tokens/v2/content?mints=${mints(51).join(',')}`, 400],
    [`/tokens/v2/content?mints=${unknown}`, { empty: { data: [] } }],
    ['/tokens/v2/content/feed', 400],
    [`/tokens/v2/content/feed?mint=${JUP}&page=0`, 400],
    [`/tokens/v2/content/feed?mint=${JUP}&page=abc`, 400],
    [`/tokens/v2/content/feed?mint=${JUP}&limit=101`, 400],
    ['/tokens/v2/content/feed?mint=nope', 400],
    ['/tokens/v2/v1/content/summaries', 400],
    ['/tokens/v2/v1/content/summaries?mints=,', 400],
    ['/ultra/v1/search', 400],
    [`/ultra/v1/search?query=${mints(101).join(',')}`, 400],
    ['/ultra/v1/search?query=qqqqqqqq', { empty: [] }],
    ['/ultra/v1/holdings/not-an-address', 400],
    [`/ultra/v1/holdings/${'1'.repeat(43)}`, 400],
    ['/ultra/v1/holdings/%E0%A4%A', 400],
    ['/ultra/v1/holdings/%F0%9F%92%A9/native', 400],
    ['/ultra/v1/balances/0x1234', 400],
    ['/ultra/v1/shield', 400],
    ['/ultra/v1/shield?mints=', 400],
    [`/ultra/v1/shield?mints=${USDC},bad`, 400],
    [`/ultra/v1/shield?mints=${unknown}`, { empty: { warnings: { [unknown]: [] } } }],
  ];

  for (const [path, expected] of cases) {
    it(`answers GET ${path.length > 90 ? `${path.slice(0, 90)}...` : path} with ${expected === 400 ? '400 {error}' : 'the empty result'}`, async () => {
      const res = await fetch(`${sim.url}${path}`);
      const body: unknown = await res.json();
      if (expected === 400) {
        expect(res.status).toBe(400);
        expect(body).toEqual({ error: expect.any(String) });
      } else {
        expect(res.status).toBe(200);
        expect(body).toEqual(expected.empty);
      }
    });
  }

  it('still answers afterwards', async () => {
    const res = await fetch(`${sim.url}/price/v3?ids=${USDC}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toHaveProperty(USDC);
  });
});

describe('same seed, same prices', () => {
  const sims: RunningSimulator[] = [];
  beforeAll(async () => {
    // A fixed start: dates derived from it (a young token's createdAt) are then the same on both sims too.
    const startMs = Date.parse('2026-03-01T12:00:00.000Z');
    sims.push(...(await Promise.all([11, 11, 12].map((seed) => startSimulator({ seed, clockSpeed: 0, startMs })))));
  });
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });

  async function pricesOf(sim: RunningSimulator): Promise<PriceMap> {
    const listed = ((await (await fetch(`${sim.url}/__sim/tokens`)).json()) as { tokens: Array<{ mint: string }> }).tokens.map((t) => t.mint);
    return createJupiterClient({ baseUrl: sim.url, tier: 'off' }).price.getPrices({ ids: listed });
  }

  async function advance(sim: RunningSimulator, advanceMs: number): Promise<void> {
    const res = await fetch(`${sim.url}/__sim/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceMs }) });
    expect(res.status).toBe(200);
  }

  it('gives equal prices at every step for the same seed, and different ones for another seed', async () => {
    const [a, b, other] = sims as [RunningSimulator, RunningSimulator, RunningSimulator];
    for (const step of [1_000, 59_000, 3_600_000, 6 * 3_600_000, 86_400_000]) {
      await Promise.all(sims.map((s) => advance(s, step)));
      // Different request order on the two sims: prices depend on the seed and the time only.
      const pb = await pricesOf(b);
      const pa = await pricesOf(a);
      expect(pa).toEqual(pb);
      const po = await pricesOf(other);
      expect(Object.keys(po).sort()).toEqual(Object.keys(pa).sort());
      expect(po[JUP]!.usdPrice).not.toBe(pa[JUP]!.usdPrice);
    }
  });

  it('gives the same token stats and rankings for the same seed', async () => {
    const [a, b] = sims as [RunningSimulator, RunningSimulator];
    const get = async (sim: RunningSimulator, path: string): Promise<unknown> => (await fetch(`${sim.url}${path}`)).json();
    for (const path of ['/tokens/v2/toptrending/1h', '/tokens/v2/content/cooking', `/ultra/v1/search?query=${JUP}`]) {
      expect(await get(a, path)).toEqual(await get(b, path));
    }
  });
});
