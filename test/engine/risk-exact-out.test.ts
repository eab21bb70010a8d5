import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { MarketData, WalletData } from '../../src/engine/ports.js';
import { openRiskGate, type RiskLimits } from '../../src/engine/risk.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { intentSchema, type Intent } from '../../src/sdk/intents.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { clearNamespace } from '../../src/store/redis.js';
import { JUP, SOL, startTestSim, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMITS: RiskLimits = { maxNotionalUsdPerIntent: 1_000, maxDailyNotionalUsd: 100_000, maxSlippageBps: 300, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] };

// The risk gate on ExactOut swaps, whose amount is the output: what they spend is the output's worth in the input at
// the feed's prices plus the slippage bound, valued with the simulator's price feed over HTTP and real risk counters.
describe('the risk gate on an ExactOut swap', () => {
  let sim: RunningSimulator;
  let market: MarketData;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const prefix = `risk-exact-out-${process.pid}`;
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

  const wallet = (lamports: bigint): WalletData => ({ at: Date.now(), address: '11111111111111111111111111111111', lamports, holdings: [], trigger: [], recurring: [], lend: [], prediction: [] });
  const check = async (intent: Intent, o: { lamports: bigint; limits?: Partial<RiskLimits>; market?: MarketData }) => {
    const gate = await openRiskGate({ market: o.market ?? market, wallet: wallet(o.lamports), prediction: undefined, limits: { ...LIMITS, ...o.limits }, counters: new RiskStore(redis, prefix), instance: { id: 'i' }, now: Date.now() });
    return gate.check(`t-${Math.random()}`, intent);
  };
  /** Buy exactly 100 USDC with SOL. */
  const buy100Usdc = intentSchema.parse({ kind: 'swap', via: 'metis', swapMode: 'ExactOut', inputMint: SOL, outputMint: USDC, amount: 100_000_000n, slippageBps: 100 });
  const solFor = (usd: number) => BigInt(Math.ceil((usd / market.prices[SOL]!.usd) * 1e9));

  it('values the spend as the output\'s worth plus the slippage, and refuses it over the per-order limit', async () => {
    const ok = await check(buy100Usdc, { lamports: 5_000_000_000n });
    expect(ok).toMatchObject({ ok: true });
    // $100 of USDC plus 1 % slippage, in SOL at the feed: about $101 (the output amount read as lamports would be 0.1 SOL).
    expect((ok as { notionalUsd: number }).notionalUsd).toBeCloseTo(101, 0);
    expect(await check(buy100Usdc, { lamports: 5_000_000_000n, limits: { maxNotionalUsdPerIntent: 60 } })).toMatchObject({ ok: false, rule: 'max-notional-per-order' });
  });

  it('wants the wallet to hold the bounded input, not the output amount read as input', async () => {
    // Enough SOL for 0.1 SOL (the amount misread) and the reserve, but not for $101 of SOL.
    const refused = await check(buy100Usdc, { lamports: solFor(50) });
    expect(refused).toMatchObject({ ok: false, rule: 'balance' });
    expect(await check(buy100Usdc, { lamports: solFor(101) + 20_000_000n })).toMatchObject({ ok: true });
  });

  it('refuses it when the feed lacks a price of either mint', async () => {
    const withoutJup: MarketData = { ...market, prices: { [SOL]: market.prices[SOL]!, [USDC]: market.prices[USDC]! } };
    const buyJup = intentSchema.parse({ kind: 'swap', via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n });
    expect(await check(buyJup, { lamports: 1_000_000_000n, market: withoutJup })).toMatchObject({ ok: false, rule: 'price-unknown' });
  });
});
