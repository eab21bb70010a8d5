import type { RiskCounters, SnapshotSource } from '../engine/ports.js';
import { watchLossesOnSnapshots, type RiskLimits } from '../engine/risk.js';
import type { Logger } from '../lib/logger.js';
import type { JobHandlers } from './workers.js';

/** What the feed jobs refresh: the feeds (Feeds, src/execution/feeds.ts), each writing its snapshot to Redis. */
export interface FeedRefresher {
  /** Prices (and token facts) of `mints`; resolves with the snapshot written, `at` in unix ms. */
  refreshMarket(mints: readonly string[]): Promise<{ at: number }>;
  /** The wallet's balances, open orders and positions. */
  refreshWallet(address: string): Promise<unknown>;
  /** The prediction events of `categories` and the markets `marketIds`. */
  refreshPrediction(categories: readonly string[], marketIds: readonly string[]): Promise<unknown>;
}

/** What the feed jobs work with. */
export interface FeedJobDeps {
  feeds: FeedRefresher;
  /** What the enabled strategies watch, all together (watchedSets, src/engine/watchedMints.ts). */
  watched: { mints: ReadonlySet<string>; categories: ReadonlySet<string>; markets: ReadonlySet<string> };
  /** The wallet's address. */
  wallet: string;
  /** Wakes the reactive shards on a new market snapshot taken at `snapshotAt` (KeeperQueues.wakeShards). */
  wakeReactive(snapshotAt: number): Promise<unknown>;
  /** The loss limits checked after each wallet refresh, on the latest snapshots, and the counters they trip. */
  losses: { snapshots: SnapshotSource; limits: RiskLimits; counters: RiskCounters; logger: Logger };
  /** Unix ms (default Date.now). */
  now?: () => number;
}

/**
 * The feed job's work, by feed. `market`: prices the mints every strategy watches, then wakes the reactive shards on
 * the new snapshot. `wallet`: reads the wallet, then checks the daily-loss and drawdown limits on the snapshots
 * (watchLossesOnSnapshots), so a falling wallet halts trading even while no strategy is deciding. `prediction`: reads
 * the watched events and markets.
 */
export function feedJobs(d: FeedJobDeps): JobHandlers['feed'] {
  const now = d.now ?? Date.now;
  return async (feed) => {
    if (feed === 'market') {
      const snapshot = await d.feeds.refreshMarket([...d.watched.mints]);
      return d.wakeReactive(snapshot.at);
    }
    if (feed === 'wallet') {
      await d.feeds.refreshWallet(d.wallet);
      const { snapshots, limits, counters, logger } = d.losses;
      return watchLossesOnSnapshots(snapshots, limits, counters, logger, now());
    }
    return d.feeds.refreshPrediction([...d.watched.categories], [...d.watched.markets]);
  };
}
