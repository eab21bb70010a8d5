// Price requests per tick: 1,000 instances watching 500 distinct mints (and two prediction categories) in one keeper
// process, against a simulator in this process that records every request it receives. Each request is attributed
// to the feed job during which it arrived (the job's processedOn..finishedOn in BullMQ's record): a market tick should
// make exactly ceil(500 / 50) = 10 /price/v3 requests, a prediction tick one events request per watched category,
// whatever the number of instances watching them.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import type { Redis } from 'ioredis';
import { KeeperQueues } from '../src/scheduler/queues.js';
import { startSimulator } from '../src/sim/server.js';
import { benchPrefix } from './lib/keepers.js';
import { sleep, spawnTsProcess, stopProcesses, waitFor } from './lib/procs.js';
import { rememberVenueBucket, removeKeys } from './lib/redis.js';
import { fundedWallet, keeperConfig, SOL, USDC } from './lib/venue.js';

const INSTANCES = 1_000;
const MINTS = 500;
const CATEGORIES = ['crypto', 'sports'];

/** Requests seen per feed tick. */
export interface PriceRequestsResult {
  instances: number;
  mints: number;
  categories: number;
  /** /price/v3 requests of each market tick. */
  pricePerTick: number[];
  /** Events requests of each prediction tick. */
  eventsPerTick: number[];
  /** Requests of those paths that arrived outside any feed job. */
  unattributed: number;
  errors: string[];
}

export async function benchPriceRequests(o: { seconds: number }, env: { redis: Redis; redisUrl: string; dir: string }): Promise<PriceRequestsResult> {
  const sim = await startSimulator({ seed: 7, clockSpeed: 1, recordRequests: true });
  rememberVenueBucket(sim.url);
  const prefix = benchPrefix('prices');
  const queues = new KeeperQueues(env.redis, prefix);
  let keeper: ReturnType<typeof spawnTsProcess> | undefined;
  try {
    // SOL and USDC (the wallet's own feed prices them) and 498 other addresses: 500 distinct mints in all.
    const mints = [SOL, USDC, ...Array.from({ length: MINTS - 2 }, () => Keypair.generate().publicKey.toBase58())];
    const strategies = Array.from({ length: INSTANCES }, (_, i) => {
      const watched = [mints[i % MINTS]!, mints[(7 * i + 3) % MINTS]!];
      return `  - { id: w-${i}, strategy: bench-watch, schedule: { every: 5s }, params: { mints: [${watched.join(', ')}], categories: [${CATEGORIES.join(', ')}] } }`;
    });
    const wallet = await fundedWallet(sim.url, env.dir, prefix, { sol: 10_000_000_000n, usdc: 0n });
    const config = join(env.dir, `${prefix}.yaml`);
    writeFileSync(config, keeperConfig({ venueUrl: sim.url, walletPath: wallet.path, prefix, strategies, feeds: { prices: '1s', wallet: '5s', prediction: '5s' } }));
    keeper = spawnTsProcess(`${prefix} all`, 'bench/watchKeeper.ts', ['--config', config, '--redis-url', env.redisUrl, '--prefix', prefix]);
    await waitFor('the first market feed', async () => (await queues.feeds.getJobs(['completed'])).some((j) => j.id?.startsWith('repeat:feed-market:')), 60_000, 100);
    const t0 = Date.now();
    await sleep(o.seconds * 1000);
    const t1 = Date.now();
    const jobs = (await queues.feeds.getJobs(['completed', 'failed'])).filter((j) => j.processedOn !== undefined && j.finishedOn !== undefined && j.processedOn >= t0 && j.finishedOn <= t1);
    const requests = sim.requests().filter((r) => r.at >= t0 && r.at <= t1);
    const of = (feed: string, path: RegExp) => {
      const mine = jobs.filter((j) => j.id?.startsWith(`repeat:feed-${feed}:`));
      const hits = requests.filter((r) => path.test(r.path));
      return { perTick: mine.map((j) => hits.filter((r) => r.at >= j.processedOn! && r.at <= j.finishedOn!).length), hits, mine };
    };
    const price = of('market', /^\/price\/v3\b/);
    const events = of('prediction', /^\/prediction\/v1\/events\b/);
    const inside = (r: { at: number }, list: typeof jobs) => list.some((j) => r.at >= j.processedOn! && r.at <= j.finishedOn!);
    const unattributed = price.hits.filter((r) => !inside(r, price.mine)).length + events.hits.filter((r) => !inside(r, events.mine)).length;
    return { instances: INSTANCES, mints: MINTS, categories: CATEGORIES.length, pricePerTick: price.perTick, eventsPerTick: events.perTick, unattributed, errors: keeper.errors() };
  } finally {
    if (keeper) await stopProcesses([keeper]);
    await queues.close();
    await removeKeys(env.redis, [prefix]);
    await sim.close();
  }
}
