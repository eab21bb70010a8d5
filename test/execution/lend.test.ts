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
import { guardTransaction } from '../../src/solana/guard.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { IntentStore } from '../../src/store/intents.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

// lend.deposit and lend.withdraw intents carried out by the real Executor (real client, builder, guard policy and
// guard, a real Redis ledger) against the simulator: each lands once and the guard lets it through.
describe('the executor with lend intents', { timeout: 90_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let coSigners: string[];
  const prefix = `lend-exec-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
    // What a paper run trusts: the co-signers the simulator declares at start.
    coSigners = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await sim.close();
  });

  async function executorFor(lamports: bigint, usdc: bigint) {
    const keypair = await fundedWallet(sim, lamports, usdc > 0n ? [[USDC, usdc]] : []);
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const store = new IntentStore(redis, prefix);
    const refusals: string[] = [];
    const executor = new Executor({
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: silentLogger,
      maxAttempts: 2,
      guardRetry: { firstMs: 20, maxMs: 50 },
      build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }),
      guard: async (intent, built) => {
        const policy = guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners, market: undefined, maxPriceAgeMs: 60_000, now: Date.now() });
        const report = await guardTransaction(built.tx, policy, rpc);
        refusals.push(...report.violations.map((v) => `${v.rule}: ${v.message}`));
        return report;
      },
    });
    return { keypair, wallet, store, executor, refusals };
  }

  async function run(s: Awaited<ReturnType<typeof executorFor>>, intent: Intent): Promise<string> {
    const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
    await s.store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
    const outcome = await s.executor.execute(id);
    expect(s.refusals).toEqual([]);
    expect(outcome).toEqual({ state: 'landed' });
    return (await s.store.get(id))!.signature!;
  }

  it('deposits USDC, lets time pass, and withdraws more than it put in, each intent landing once', async () => {
    const s = await executorFor(100_000_000n, 100_000_000n);
    const owner = s.wallet.address;
    const deposit = await run(s, { kind: 'lend.deposit', asset: USDC, amount: 80_000_000n });
    expect((await ledger(sim)).filter((t) => t.signature === deposit)).toEqual([expect.objectContaining({ kind: 'lend-deposit', wallet: owner, inputAmount: '80000000' })]);
    await control(sim, '/clock', { advanceMs: 90 * 86_400_000 });
    const [position] = (await jup.lend.getLendPositions({ users: [owner] })).filter((p) => p.token.address === JL_USDC);
    expect(position!.underlyingAssets).toBeGreaterThan(80_000_000n);
    const withdraw = await run(s, { kind: 'lend.withdraw', asset: USDC, amount: position!.underlyingAssets });
    expect((await ledger(sim)).filter((t) => t.signature === withdraw)).toEqual([expect.objectContaining({ kind: 'lend-withdraw', wallet: owner, outputMint: USDC })]);
    expect((await balances(sim, owner)).tokens[USDC]).toBe(20_000_000n + position!.underlyingAssets);
  });

  it('deposits and withdraws native SOL', async () => {
    const s = await executorFor(3_000_000_000n, 0n);
    const owner = s.wallet.address;
    await run(s, { kind: 'lend.deposit', asset: SOL, amount: 1_500_000_000n });
    const before = (await balances(sim, owner)).lamports;
    await run(s, { kind: 'lend.withdraw', asset: SOL, amount: 1_000_000_000n });
    // The withdrawal pays 1 SOL in; the wallet pays only the fees of its transaction.
    expect((await balances(sim, owner)).lamports - before).toBeGreaterThan(999_980_000n);
  });
});
