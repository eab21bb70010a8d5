import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction, type GuardReport } from '../../src/solana/guard.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { IntentStore } from '../../src/store/intents.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

// trigger.create and trigger.cancel intents carried out by the real Executor (builder, guard with the intent's own
// policy, signature, /trigger/v1/execute, confirmation by signature) against the simulator and a real Redis ledger.
describe('trigger intents through the executor', { timeout: 90_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let coSigners: string[];
  const prefix = `exec-trigger-${randomUUID().slice(0, 8)}`;

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

  /** An executor with the keeper's real parts for a fresh wallet; `reports` collects each guard verdict. */
  async function setup(lamports: bigint, tokens: Array<[string, bigint]> = []) {
    const keypair = await fundedWallet(sim, lamports, tokens);
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const store = new IntentStore(redis, prefix);
    const reports: GuardReport[] = [];
    const executor = new Executor({
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: silentLogger,
      maxAttempts: 2,
      build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }),
      guard: async (intent, built) => {
        const policy = guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners, market: undefined, maxPriceAgeMs: 60_000, now: Date.now() });
        const report = await guardTransaction(built.tx, policy, rpc);
        reports.push(report);
        return report;
      },
    });
    const run = async (intent: Intent) => {
      const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
      await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
      const result = await executor.execute(id);
      return { result, rec: (await store.get(id))! };
    };
    return { wallet, run, reports };
  }

  const active = async (user: string) => (await jup.trigger.getOrders({ user, orderStatus: 'active' })).orders;

  it('lands a USDC limit order and its cancel, each passing the guard, and the cancel refunds the escrow', async () => {
    const s = await setup(100_000_000n, [[USDC, 50_000_000n]]);
    const placed = await s.run({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 25_000_000n, takingAmount: 1_000_000_000n });
    expect(placed.result).toEqual({ state: 'landed' });
    expect(s.reports.map((r) => r.violations)).toEqual([[]]);
    const order = placed.rec.quote?.order as string;
    expect((await active(s.wallet.address)).map((o) => [o.orderKey, o.rawRemainingMakingAmount])).toEqual([[order, 25_000_000n]]);
    expect((await ledger(sim)).find((t) => t.signature === placed.rec.signature)).toMatchObject({ kind: 'trigger-create', wallet: s.wallet.address });

    const cancelled = await s.run({ kind: 'trigger.cancel', order });
    expect(cancelled.result).toEqual({ state: 'landed' });
    expect(s.reports[1]!.violations).toEqual([]);
    // The keeper co-signed the refund; it is a declared co-signer, and nothing but fees left the wallet.
    expect(s.reports[1]!.signers).toContain(sim.ctx.state.venue.keeper.publicKey.toBase58());
    expect(await active(s.wallet.address)).toEqual([]);
    expect((await balances(sim, s.wallet.address)).tokens[USDC]).toBe(50_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === cancelled.rec.signature)).toMatchObject({ kind: 'trigger-cancel', outputMint: USDC, outputAmount: '25000000' });
  });

  it('lands a SOL limit order with an expiry, the lamports escrowed as wrapped SOL of the order', async () => {
    const s = await setup(1_000_000_000n);
    const { nowMs } = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    const placed = await s.run({ kind: 'trigger.create', inputMint: SOL, outputMint: USDC, makingAmount: 200_000_000n, takingAmount: 50_000_000n, expiresAt: Math.floor(nowMs / 1000) + 3_600 });
    expect(placed.result).toEqual({ state: 'landed' });
    expect(s.reports[0]!.violations).toEqual([]);
    const [order] = await active(s.wallet.address);
    expect(order).toMatchObject({ orderKey: placed.rec.quote?.order, rawMakingAmount: 200_000_000n, expiredAt: expect.any(String) });
    const cancelled = await s.run({ kind: 'trigger.cancel', order: order!.orderKey });
    expect(cancelled.result).toEqual({ state: 'landed' });
    expect(s.reports[1]!.violations).toEqual([]);
  });
});
