// The keeper's executor wired as `jup-keeper run` wires it (createExecutor, src/execution/keeperExecutor.ts, with
// the parts src/main.ts gives it: the Redis store with the durability checkRedis found, the Jupiter client with its
// retry policy and Redis rate bucket, the RPC, the venue's declared co-signers, the builder priced from the market
// snapshot the price feed wrote, the guard with the intent's policy), for any number of wallets on one Redis prefix:
// what the exactly-once product suite runs, in a child process (runIntents.ts) that it crashes, pauses or races, and
// in the test process to finish what a dead one left.
import { Writable } from 'node:stream';
import type { Redis } from 'ioredis';
import type { Executor } from '../../src/execution/executor.js';
import { Feeds } from '../../src/execution/feeds.js';
import { createExecutor } from '../../src/execution/keeperExecutor.js';
import { declaredCoSigners } from '../../src/execution/venueSigners.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { createLogger, type Logger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import type { HotWallet } from '../../src/solana/wallet.js';
import { RedisBucketStore } from '../../src/store/rateBucket.js';
import { checkRedis, createRedis } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { IntentStore } from '../../src/store/intents.js';

/** The config's risk defaults the guard applies (config/schema.ts `risk`). */
const RISK = { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] as string[] };
/** The config's default `execution.maxAttempts` and `feeds.maxPriceAge`. */
const MAX_ATTEMPTS = 3;
const MAX_PRICE_AGE_MS = 60_000;

/** Executors of several wallets on one Redis prefix and venue, with what they share. */
export interface IntentExecutors {
  redis: Redis;
  store: IntentStore;
  jup: JupiterClient;
  /** The executor of a wallet (one per wallet, as a keeper runs one wallet). */
  executorOf(wallet: HotWallet): Executor;
  /** Writes the market snapshot of these mints as the price feed job does (the builder prices from it). */
  refreshMarket(mints: readonly string[]): Promise<void>;
  close(): Promise<void>;
}

/** Wires the keeper's executor parts against `venueUrl` (the simulator) and the Redis at `redisUrl`. */
export async function intentExecutors(o: { redisUrl: string; prefix: string; venueUrl: string; logger: Logger }): Promise<IntentExecutors> {
  const { logger, prefix } = o;
  const redis = createRedis(o.redisUrl, { name: `${prefix}:store` });
  redis.on('error', (err) => logger.error({ err: err.message }, 'redis connection error'));
  const health = await checkRedis(redis, { live: false, logger });
  const store = new IntentStore(redis, prefix, { durability: { mode: health.durability, replicas: health.replicas } });
  const jup = createJupiterClient({ baseUrl: o.venueUrl, tier: 'off', bucketStore: new RedisBucketStore(redis), logger: logger.child({ component: 'jupiter' }) });
  const rpc = new SolanaRpc(`${o.venueUrl}/rpc`);
  const snapshots = new SnapshotStore(redis, prefix);
  const feeds = new Feeds({ jup, rpc, snapshots, logger: logger.child({ component: 'feeds' }) });
  const coSigners = await declaredCoSigners({ kind: 'simulator', coSigners: [] }, o.venueUrl);
  const executors = new Map<string, Executor>();
  const executorOf = (wallet: HotWallet): Executor => {
    const known = executors.get(wallet.address);
    if (known) return known;
    const executor = createExecutor(
      {
        store,
        jup,
        rpc,
        wallet,
        killSwitch: () => Promise.resolve(null),
        logger: logger.child({ component: 'executor', wallet: wallet.address }),
        notice: () => undefined,
        market: () => snapshots.read('market'),
      },
      { risk: RISK, coSigners, maxPriceAgeMs: MAX_PRICE_AGE_MS, maxAttempts: MAX_ATTEMPTS },
    );
    executors.set(wallet.address, executor);
    return executor;
  };
  return {
    redis,
    store,
    jup,
    executorOf,
    refreshMarket: async (mints) => {
      await feeds.refreshMarket(mints);
    },
    close: async () => {
      await store.close();
      redis.disconnect();
    },
  };
}

/** The mints an intent names (what the price feed of a keeper running it would watch). */
export function mintsOf(intent: Intent): string[] {
  const fields = intent as Partial<Record<'inputMint' | 'outputMint' | 'asset' | 'mint' | 'depositMint', string>>;
  return [fields.inputMint, fields.outputMint, fields.asset, fields.mint, fields.depositMint].filter((m): m is string => typeof m === 'string');
}

/** A logger whose JSON lines are kept in memory (the test process's executors), with the lines. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line) continue;
        try {
          lines.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          // not a JSON line
        }
      }
      done();
    },
  });
  return { logger: createLogger({ level: 'debug', destination }), lines };
}
