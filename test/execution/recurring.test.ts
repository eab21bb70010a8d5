import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MarketData } from '../../src/engine/ports.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { IntentStore } from '../../src/store/intents.js';
import { balances, control, fundedWallet, ledger, SOL, startTestSim, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// recurring.create and recurring.cancel intents carried out by the real executor: the real client and builder
// against the simulator, the real guard with the policy the keeper derives from the intent, and a Redis ledger.
describe('recurring intents through the executor', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let coSigners: string[];
  const prefix = `exec-recurring-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    coSigners = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await sim.close();
  });

  async function market(): Promise<MarketData> {
    const prices = await jup.price.getPrices({ ids: [SOL, USDC] });
    return { at: Date.now(), prices: Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, { usd: p.usdPrice, decimals: p.decimals, change24h: null }])), tokens: {} };
  }

  /** The keeper's executor for one funded wallet, its guard policy derived from the intent and the feed. */
  async function setup(usdc: bigint) {
    const keypair = await fundedWallet(sim, 1_000_000_000n, usdc > 0n ? [[USDC, usdc]] : []);
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const store = new IntentStore(redis, prefix);
    const snapshot = await market();
    const policy = (intent: Intent, built: BuiltTransaction) =>
      guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners, market: snapshot, maxPriceAgeMs: 60_000, now: Date.now() });
    const usdPrice = (mint: string) => snapshot.prices[mint] && { usd: snapshot.prices[mint].usd, decimals: snapshot.prices[mint].decimals };
    const executor = new Executor({
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: silentLogger,
      maxAttempts: 2,
      guardRetry: { firstMs: 20, maxMs: 50 },
      build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice, signal }),
      guard: async (intent, built) => guardTransaction(built.tx, policy(intent, built), rpc),
    });
    const run = async (intent: Intent) => {
      const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
      await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 600_000 });
      const result = await executor.execute(id);
      return { result, record: (await store.get(id))! };
    };
    return { wallet, run, policy, usdPrice };
  }

  it('lands a recurring.create that the guard accepts, then a recurring.cancel that returns the rest', async () => {
    const s = await setup(200_000_000n);
    const owner = s.wallet.address;
    const create = await s.run({ kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 200_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 });
    expect(create.result).toEqual({ state: 'landed' });
    expect((await ledger(sim)).find((t) => t.signature === create.record.signature)).toMatchObject({ kind: 'recurring-create', wallet: owner, inputAmount: '200000000' });
    const page = await jup.recurring.getOrders({ user: owner, orderStatus: 'active', recurringType: 'time' });
    expect(page.orders).toHaveLength(1);
    const order = page.orders[0]!.orderKey;

    // The first slice fills at once; the cancel returns the other half, exactly.
    for (let i = 0; i < 400 && (await jup.recurring.getOrders({ user: owner, orderStatus: 'active', recurringType: 'time' })).orders[0]?.trades.length !== 1; i += 1) await new Promise((r) => setTimeout(r, 25));
    const before = (await balances(sim, owner)).tokens[USDC] ?? 0n;
    const cancel = await s.run({ kind: 'recurring.cancel', order });
    expect(cancel.result).toEqual({ state: 'landed' });
    expect((await balances(sim, owner)).tokens[USDC]! - before).toBe(100_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === cancel.record.signature)).toMatchObject({ kind: 'recurring-cancel', wallet: owner, outputAmount: '100000000' });
    expect((await jup.recurring.getOrders({ user: owner, orderStatus: 'history', recurringType: 'time' })).orders).toEqual([expect.objectContaining({ orderKey: order, userClosed: true })]);
  });

  it('lands a SOL-funded recurring.create (the deposit wrapped into the escrow)', async () => {
    const s = await setup(0n);
    const create = await s.run({ kind: 'recurring.create', inputMint: SOL, outputMint: USDC, inAmount: 700_000_000n, numberOfOrders: 2, intervalSeconds: 3_600 });
    expect(create.result).toEqual({ state: 'landed' });
    const order = (await jup.recurring.getOrders({ user: s.wallet.address, orderStatus: 'active', recurringType: 'time' })).orders[0]!.orderKey;
    expect((await s.run({ kind: 'recurring.cancel', order })).result).toEqual({ state: 'landed' });
  });

  it('refuses to sign a create that deposits other than the intent says', async () => {
    const s = await setup(300_000_000n);
    const intent: Intent = { kind: 'recurring.create', inputMint: USDC, outputMint: SOL, inAmount: 150_000_000n, numberOfOrders: 2, intervalSeconds: 86_400 };
    const built = await buildTransaction(intent, { jup, rpc, wallet: s.wallet, intentId: 'x', maxSlippageBps: 300, usdPrice: s.usdPrice });
    const honest = await guardTransaction(built.tx, s.policy(intent, built), rpc);
    expect(honest.violations).toEqual([]);
    // The same transaction judged against an intent of a different amount: the escrow deposit is not the intent's.
    const other = { ...intent, inAmount: 140_000_000n };
    expect((await guardTransaction(built.tx, s.policy(other, built), rpc)).violations.map((v) => v.rule)).toContain('escrow-amount');
  });
});
