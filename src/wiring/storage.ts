import type { Redis } from 'ioredis';
import type { KeeperConfig } from '../config/load.js';
import type { Logger } from '../lib/logger.js';
import { RiskStore, StrategyStateStore } from '../store/engineStore.js';
import { HeartbeatStore } from '../store/heartbeats.js';
import { IntentStore } from '../store/intents.js';
import { KeeperStore } from '../store/keeperStore.js';
import { KillSwitchStore } from '../store/killSwitch.js';
import { beginPaperSession } from '../store/paperSession.js';
import { PnlStore } from '../store/pnl.js';
import { assertDatabase, checkRedis, createRedis } from '../store/redis.js';
import { SnapshotStore } from '../store/snapshots.js';

/** Something to close if the start fails half-way (src/main.ts closes them in reverse order). */
export type Closer = () => unknown;

/** The keeper's Redis connections and every store over them. */
export interface KeeperStorage {
  /** The stores' connection: never blocking; commands issued together leave in one write. */
  redis: Redis;
  /** BullMQ's connection (blocking commands). */
  bullConnection: Redis;
  intents: IntentStore;
  snapshots: SnapshotStore;
  states: StrategyStateStore;
  risk: RiskStore;
  pnl: PnlStore;
  keeper: KeeperStore;
  killSwitch: KillSwitchStore;
  heartbeats: HeartbeatStore;
  /** Quits BullMQ's connection, the ledger, then the stores' connection: once everything using them closed. */
  close(): Promise<void>;
}

/** Where and how the storage opens: the deployment's Redis and prefix, and what the start does with earlier records. */
export interface StorageOptions {
  redisUrl: string;
  prefix: string;
  config: KeeperConfig;
  /** `fresh`: clear the prefix; `new`: roll the earlier paper session over (beginPaperSession). */
  session: 'fresh' | 'new' | undefined;
  logger: Logger;
}

/**
 * Opens the keeper's storage: the stores' connection (its database checked, then the Redis itself: a live keeper
 * refuses one that cannot make the signed record durable, see checkRedis), the paper session's housekeeping, BullMQ's
 * connection, and the stores with the ledger's durability as checkRedis found it. Each thing opened is pushed on
 * `opened`, so that a start failing later closes it.
 */
export async function openStorage(o: StorageOptions, opened: Closer[]): Promise<KeeperStorage> {
  const { config, logger, prefix } = o;
  // Commands issued together (the executors', the feeds', one evaluation's) leave in one write: a socket write is
  // the store's largest CPU cost per intent (bench/: 10 % of the keeper's time in writeUtf8String before).
  const redis = createRedis(o.redisUrl, { name: `${prefix}:store`, enableAutoPipelining: true });
  opened.push(() => redis.disconnect());
  redis.on('error', (err) => logger.error({ err: err.message }, 'redis connection error'));
  await assertDatabase(redis, o.redisUrl);
  const health = await checkRedis(redis, { live: config.venue.kind === 'live', logger });
  await beginPaperSession(redis, prefix, o.session, logger, Date.now());
  const bullConnection = createRedis(o.redisUrl, { name: `${prefix}:bullmq`, blocking: true });
  opened.push(() => bullConnection.disconnect());
  bullConnection.on('error', (err) => logger.error({ err: err.message }, 'redis (queues) connection error'));
  const intents = new IntentStore(redis, prefix, { durability: { mode: health.durability, replicas: health.replicas } });
  opened.push(() => intents.close());
  await intents.indexActiveInstances();
  return {
    redis,
    bullConnection,
    intents,
    snapshots: new SnapshotStore(redis, prefix, { priceHistory: { keepMs: config.feeds.priceHistory, resolutionMs: config.feeds.priceHistoryResolution } }),
    states: new StrategyStateStore(redis, prefix),
    risk: new RiskStore(redis, prefix),
    pnl: new PnlStore(redis, prefix),
    keeper: new KeeperStore(redis, prefix, intents),
    killSwitch: new KillSwitchStore(redis, prefix),
    heartbeats: new HeartbeatStore(redis, prefix),
    close: async () => {
      await bullConnection.quit().catch(() => undefined);
      await intents.close();
      await redis.quit().catch(() => undefined);
    },
  };
}
