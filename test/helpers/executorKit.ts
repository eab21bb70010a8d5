// The executor in-process with the keeper's real parts (client, builder, guard with the intent's own policy, a Redis
// ledger) against a simulator: what the executor tests of each product share.
import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import type { MarketData } from '../../src/engine/ports.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor, type ExecutionResult, type ExecutorDeps } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction, type GuardReport } from '../../src/solana/guard.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator, SimulatorOptions } from '../../src/sim/server.js';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { control, fundedWallet, startTestSim } from './sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A test file's simulator, Redis connection, client, RPC and the venue's declared co-signers. */
export interface ExecutorWorld {
  readonly sim: RunningSimulator;
  readonly redis: Redis;
  readonly jup: JupiterClient;
  readonly rpc: SolanaRpc;
  readonly coSigners: string[];
  /** The Redis prefix of this file's ledger (removed after the file). */
  readonly prefix: string;
}

/** Starts an ExecutorWorld before the file's tests and tears it down after; read it inside tests and hooks. */
export function useExecutorWorld(label: string, simOptions: SimulatorOptions = {}): ExecutorWorld {
  let w: ExecutorWorld | undefined;
  beforeAll(async () => {
    const sim = await startTestSim(simOptions);
    w = {
      sim,
      redis: new Redis(REDIS_URL, { maxRetriesPerRequest: 3 }),
      jup: createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }),
      rpc: new SolanaRpc(`${sim.url}/rpc`),
      coSigners: (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners,
      prefix: `${label}-${randomUUID().slice(0, 8)}`,
    };
  });
  afterAll(async () => {
    if (!w) return;
    const keys = await w.redis.keys(`${w.prefix}:*`);
    if (keys.length > 0) await w.redis.del(...keys);
    w.redis.disconnect();
    await w.sim.close();
  });
  const ready = (): ExecutorWorld => {
    if (!w) throw new Error('the executor world is not started yet (read it inside a test or hook)');
    return w;
  };
  return {
    get sim() {
      return ready().sim;
    },
    get redis() {
      return ready().redis;
    },
    get jup() {
      return ready().jup;
    },
    get rpc() {
      return ready().rpc;
    },
    get coSigners() {
      return ready().coSigners;
    },
    get prefix() {
      return ready().prefix;
    },
  };
}

/** An executor for one funded wallet, with what its guard decided and what it showed the operator. */
export interface WalletExecutor {
  keypair: Keypair;
  wallet: HotWallet;
  store: IntentStore;
  executor: Executor;
  deps: ExecutorDeps;
  /** Every guard report, in order. */
  reports: GuardReport[];
  /** Every operator notice (a send's invite code), in order. */
  notices: string[];
  /** Records an intent and executes it; returns its id, how it ended and its record. */
  run(intent: Intent, o?: { deadlineMs?: number }): Promise<{ id: string; result: ExecutionResult; rec: IntentRecord }>;
}

/**
 * The keeper's executor for a fresh wallet funded with `lamports` and `tokens`: the real builder (USD prices from
 * `market`, when given) and the real guard with the policy the keeper derives from the intent, the config's
 * limits and the feed (`market`). `over` replaces parts of it for one test.
 */
export async function executorFor(world: ExecutorWorld, o: { lamports?: bigint; tokens?: Array<[string, bigint]>; market?: MarketData; over?: Partial<ExecutorDeps> } = {}): Promise<WalletExecutor> {
  const { jup, rpc } = world;
  const keypair = await fundedWallet(world.sim, o.lamports ?? 1_000_000_000n, o.tokens ?? []);
  const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
  const store = new IntentStore(world.redis, world.prefix);
  const reports: GuardReport[] = [];
  const notices: string[] = [];
  const market = o.market;
  const usdPrice = (mint: string) => market?.prices[mint] && { usd: market.prices[mint].usd, decimals: market.prices[mint].decimals };
  const deps: ExecutorDeps = {
    store,
    jup,
    rpc,
    wallet,
    killSwitch: () => Promise.resolve(null),
    notice: (text) => notices.push(text),
    logger: silentLogger,
    maxAttempts: 2,
    guardRetry: { firstMs: 20, maxMs: 50 },
    build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice, signal }),
    guard: async (intent, built) => {
      const policy = await guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market, maxPriceAgeMs: 60_000, now: Date.now() });
      const report = await guardTransaction(built.tx, policy, rpc);
      reports.push(report);
      return report;
    },
    ...o.over,
  };
  const executor = new Executor(deps);
  return {
    keypair,
    wallet,
    store,
    executor,
    deps,
    reports,
    notices,
    run: async (intent, r = {}) => {
      const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
      await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + (r.deadlineMs ?? 86_400_000) });
      const result = await executor.execute(id);
      return { id, result, rec: (await store.get(id))! };
    },
  };
}

/** The simulator's prices of `mints` as the keeper's market snapshot holds them (the price feed). */
export async function marketOf(world: ExecutorWorld, mints: string[]): Promise<MarketData> {
  const prices = await world.jup.price.getPrices({ ids: mints });
  return { at: Date.now(), prices: Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, { usd: p.usdPrice, decimals: p.decimals, change24h: null }])), tokens: {} };
}
