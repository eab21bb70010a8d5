import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { MarketData, NotionalReservation, WalletData } from '../../src/engine/ports.js';
import { judgeAll, readRiskState, type RiskItem, type RiskLimits } from '../../src/engine/risk.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { intentSchema } from '../../src/sdk/intents.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { clearNamespace } from '../../src/store/redis.js';
import { JUP, SOL, startTestSim, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// The risk gate over a whole shard's intents at once (issue 11): the daily and per-instance reservations of every
// intent in one round trip, in the instances' order, with the same verdicts as ruling them one by one; prices from
// the simulator's feed over HTTP, counters in a real Redis.
describe('the risk gate over a shard', () => {
  let sim: RunningSimulator;
  let market: MarketData;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const prefix = `risk-batch-${process.pid}`;
  beforeAll(async () => {
    sim = await startTestSim();
    const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off' });
    const prices = await jup.price.getPrices({ ids: [SOL, USDC, JUP] });
    market = { at: Date.now(), prices: Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, { usd: p.usdPrice, decimals: p.decimals, change24h: null }])), tokens: {} };
  });
  afterAll(async () => {
    await clearNamespace(redis, prefix);
    redis.disconnect();
    await sim.close();
  });

  const wallet: () => WalletData = () => ({ at: Date.now(), address: '11111111111111111111111111111111', lamports: 10_000_000_000n, holdings: [{ mint: USDC, amount: 10_000_000_000n, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [] });
  const usdcToJup = (usd: number) => intentSchema.parse({ kind: 'swap', inputMint: USDC, outputMint: JUP, amount: BigInt(usd * 1_000_000) });
  const LIMITS: RiskLimits = { maxNotionalUsdPerIntent: 1_000, maxDailyNotionalUsd: 100, maxSlippageBps: 300, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] };

  /** Rules on the items with a fresh counter namespace; counts the reservation calls (each one round trip). */
  const judge = async (ns: string, items: RiskItem[], limits: Partial<RiskLimits> = {}) => {
    const store = new RiskStore(redis, `${prefix}:${ns}`);
    const calls: Array<readonly NotionalReservation[]> = [];
    const counters = Object.assign(Object.create(store) as RiskStore, {
      reserveNotionalMany: (rs: readonly NotionalReservation[], now: number) => {
        calls.push(rs);
        return store.reserveNotionalMany(rs, now);
      },
    });
    const inputs = { market, wallet: wallet(), prediction: undefined, limits: { ...LIMITS, ...limits }, counters, now: Date.now() };
    const verdicts = await judgeAll(inputs, await readRiskState(inputs), items);
    return { verdicts, calls, total: await store.dailyNotional(inputs.now) };
  };
  const item = (id: string, usd: number, instance = 'a', dailyBudgetUsd?: number): RiskItem => ({ intentId: id, intent: usdcToJup(usd), instance: { id: instance, dailyBudgetUsd } });

  it('reserves every intent of the shard in one round trip, in order: what passes the day\'s limit is refused, a smaller one after it still fits', async () => {
    const items = [item('i1', 40), item('i2', 40), item('i3', 30), item('i4', 20), item('i5', 5, 'b')];
    const { verdicts, calls, total } = await judge('order', items);
    expect(calls).toHaveLength(1);
    expect(calls[0]!.map((r) => r.intentId)).toEqual(['i1', 'i2', 'i3', 'i4', 'i5']);
    // $100 a day: 40 + 40, then 30 would make 110, 20 makes exactly 100, and 5 more would pass it.
    expect(verdicts.map((v) => (v.ok ? 'ok' : v.rule))).toEqual(['ok', 'ok', 'max-daily-notional', 'ok', 'max-daily-notional']);
    expect(total).toBeCloseTo(100, 6);
  });

  it('applies each instance\'s own budget inside the same script, and a replay of the shard counts nothing twice', async () => {
    const items = [item('a1', 30, 'a', 50), item('a2', 30, 'a', 50), item('b1', 30, 'b', 50), item('a3', 10, 'a', 50)];
    const first = await judge('budget', items);
    expect(first.verdicts.map((v) => (v.ok ? 'ok' : v.rule))).toEqual(['ok', 'strategy-budget', 'ok', 'ok']);
    expect(first.total).toBeCloseTo(70, 6);
    const again = await judge('budget', items);
    expect(again.verdicts.map((v) => (v.ok ? 'ok' : v.rule))).toEqual(['ok', 'strategy-budget', 'ok', 'ok']);
    expect(again.total).toBeCloseTo(70, 6);
  });

  it('rules again an intent a position cap refused when an intent counted before it was then refused by the day\'s limit', async () => {
    // Cap of $80 of JUP. x ($60) would fit the cap but not instance a's budget of $50; y ($60) was refused by the cap
    // only because x was counted; with x refused, y is accepted and reserved: what one-by-one ruling decides.
    const items = [item('x', 60, 'a', 50), item('y', 60, 'b')];
    const { verdicts, calls, total } = await judge('recount', items, { maxPositionUsdPerToken: 80 });
    expect(verdicts.map((v) => (v.ok ? 'ok' : v.rule))).toEqual(['strategy-budget', 'ok']);
    expect(calls.map((c) => c.map((r) => r.intentId))).toEqual([['x'], ['y']]);
    expect(total).toBeCloseTo(60, 6);
  });
});
