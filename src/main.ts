import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KeeperConfig } from './config/load.js';
import type { KeeperMetrics } from './dashboard/metrics.js';
import type { DashboardSettings } from './dashboard/settings.js';
import type { IsolatedDecider } from './engine/evaluate.js';
import { valueAtStart } from './engine/walletValue.js';
import { watchedSets } from './engine/watchedMints.js';
import { Feeds } from './execution/feeds.js';
import type { Logger } from './lib/logger.js';
import { startEvents } from './notify/index.js';
import { feedJobs } from './scheduler/feedJobs.js';
import { KeeperQueues } from './scheduler/queues.js';
import { reconcile } from './scheduler/reconcile.js';
import { applySchedules } from './scheduler/schedules.js';
import { KeeperWorkers } from './scheduler/workers.js';
import { SolanaRpc } from './solana/rpc.js';
import type { HotWallet } from './solana/wallet.js';
import { snapshotSource } from './store/engineStore.js';
import { KeeperHeartbeat, recordKeeperStart } from './store/presence.js';
import { startSession } from './store/sessions.js';
import { ledgerTotals } from './store/sessionTotals.js';
import { keeperStartMeta, logKeeperStarted } from './wiring/banner.js';
import { keeperExecution } from './wiring/execution.js';
import { keeperJobs } from './wiring/keeper.js';
import { openStorage, type Closer } from './wiring/storage.js';
import { schedulePlan, strategyShards } from './wiring/strategies.js';
import { keeperJupiterClient } from './wiring/venue.js';

/** What `jup-keeper run` passes to the keeper. */
export interface KeeperOptions {
  config: KeeperConfig;
  role: 'all' | 'scheduler' | 'worker';
  /** Redis URL, already resolved (the CLI starts a private redis-server when needed). */
  redisUrl: string;
  /** Key prefix shared by the queues and the ledger; two deployments on one Redis use different prefixes. */
  prefix: string;
  /** Origin of the Jupiter API (the simulator's, for paper trading). */
  venueUrl: string;
  /** Solana RPC endpoint. */
  rpcUrl: string;
  /** The wallet, loaded by the caller (file, env, or a fresh paper wallet). */
  wallet: HotWallet;
  /** Start from an empty namespace (a fresh in-process simulator and paper wallet: old records are meaningless). */
  freshSession?: boolean;
  /**
   * A new paper session (a new in-process simulator and paper wallet) on the prefix's kept history: the earlier
   * session's ledger and realised P&L stay, what was bound to its chain and wallet goes (see rollOverPaperSession).
   */
  newPaperSession?: boolean;
  /** The threads of the config's strategies of the user's own, by module path (see src/cli/strategies.ts). */
  strategyThreads?: ReadonlyMap<string, IsolatedDecider>;
  /** The dashboard to serve (src/dashboard), or none. */
  dashboard?: DashboardSettings | undefined;
  logger: Logger;
}

/** A running keeper. */
export interface RunningKeeper {
  wallet: string;
  /** The dashboard's URL, when one listens. */
  dashboardUrl?: string | undefined;
  close(): Promise<void>;
}

/**
 * The composition root: wires Redis, the Jupiter client, the RPC, the wallet, the stores, the feeds, the engine,
 * the executor, the queues and the workers, for the roles asked. The only place concrete parts meet; the config is
 * mapped onto them by src/wiring.
 */
export async function startKeeper(o: KeeperOptions): Promise<RunningKeeper> {
  // Fix: a failed start (a Redis check refused) left the connections open, and the process hung after the error.
  const opened: Closer[] = [];
  try {
    return await wireKeeper(o, opened);
  } catch (err) {
    for (const close of opened.reverse()) await Promise.resolve().then(close).catch(() => undefined);
    throw err;
  }
}

async function wireKeeper(o: KeeperOptions, opened: Closer[]): Promise<RunningKeeper> {
  const { config, logger, prefix, wallet } = o;
  const store = await openStorage({ redisUrl: o.redisUrl, prefix, config, session: o.freshSession ? 'fresh' : o.newPaperSession ? 'new' : undefined, logger }, opened);
  const { redis, intents, snapshots, risk } = store;
  // Loaded only when a dashboard is served: its metrics are fed by hooks of the parts wired below.
  const metrics: KeeperMetrics | undefined = o.dashboard ? new (await import('./dashboard/metrics.js')).KeeperMetrics() : undefined;
  const jup = keeperJupiterClient(config, o.venueUrl, { redis, prefix, metrics, logger });
  const rpc = new SolanaRpc(o.rpcUrl);
  // The event stream (fills, claims, refusals, kill-switch trips, errors) and, outside worker-only processes, the
  // notifications it feeds; see src/notify.
  const session = await startSession(redis, prefix, o.role, Date.now());
  const events = await startEvents({ redis, prefix, summaryEveryMs: config.logging.summaryEvery, notify: config.notify, sendNotifications: o.role !== 'worker', env: config.env, session, totals: (w) => ledgerTotals(redis, prefix, w), logger });
  opened.push(() => events.close());
  const queues = new KeeperQueues(store.bullConnection, prefix, logger.child({ component: 'queues' }));
  opened.push(() => queues.close());
  const feeds = new Feeds({ jup, rpc, snapshots, logger: logger.child({ component: 'feeds' }), sent: () => intents.sentSignatures() });
  const instances = config.strategies.filter((s) => s.enabled);
  const watched = watchedSets(instances.map((s) => s.watches));
  const execute = await keeperExecution({ config, store, prefix, jup, rpc, wallet, venueUrl: o.venueUrl, metrics, events: events.publisher, logger });
  const keeper = keeperJobs(config, { jup, rpc, wallet: wallet.address, store, queues, logger });

  const place = { venueUrl: o.venueUrl, rpcUrl: o.rpcUrl, wallet: wallet.address };
  await recordKeeperStart(redis, prefix, keeperStartMeta(config, place, instances, Date.now()));
  // Says this process runs (status: alive or stopped, and since when), and notes the wallet's value at start once
  // the feeds have read this wallet and the market after the start.
  const beganAt = Date.now();
  const heartbeat = new KeeperHeartbeat(redis, prefix, {
    role: o.role,
    wallet: wallet.address,
    onError: (err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not write the keeper heartbeat'),
    startValue: () => valueAtStart(snapshots, wallet.address, beganAt),
  });
  await heartbeat.start();
  opened.push(() => heartbeat.close());

  const shards = strategyShards(config, instances, o.strategyThreads, { store, queues, events: events.publisher, logger });
  const workerId = o.role === 'scheduler' ? undefined : `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  let workers: KeeperWorkers | undefined;
  if (workerId !== undefined) {
    workers = new KeeperWorkers(
      {
        feed: feedJobs({ feeds, watched, wallet: wallet.address, wakeReactive: (at) => queues.wakeShards(shards.reactive, at), losses: { snapshots: snapshotSource(snapshots), limits: config.risk, counters: risk, logger: logger.child({ component: 'risk' }) } }),
        evaluate: (shard, trigger) => shards.run(shard, trigger),
        execute,
        reconcile: () => reconcile(intents, queues.execute, logger.child({ component: 'reconciler' }), config.execution.reconcileEvery),
        keeperTask: (task) => keeper.run(task),
        halt: (reason) => risk.setHalted(reason),
      },
      {
        connection: store.bullConnection,
        prefix,
        executeConcurrency: config.execution.concurrency,
        jobLockMs: config.execution.jobLock,
        ping: () => redis.ping(),
        logger: logger.child({ component: 'workers' }),
        heartbeat: { everyMs: WORKER_HEARTBEAT_MS, write: (beat) => store.heartbeats.beat(workerId, beat), remove: () => store.heartbeats.remove(workerId) },
        onJob: metrics && ((queue, ms, ok) => metrics.observeJob(queue, ms, ok)),
      },
    );
    workers.start();
    const started = workers;
    opened.push(() => started.close(2_000));
  }
  if (o.role !== 'worker') await applySchedules(queues, schedulePlan(config, watched, shards.plan), logger.child({ component: 'scheduler' }));
  let started = true;
  // The dashboard listens before the banner, which names its URL (a busy default port moves it); trading has already
  // started and does not wait for its modules (hono, Bull Board, the status reader: some 400 ms to load).
  const dashboard = o.dashboard && metrics
    ? await (await import('./dashboard/server.js')).startDashboard({
        settings: o.dashboard,
        redis,
        redisUrl: o.redisUrl,
        prefix,
        queues,
        snapshots,
        heartbeats: store.heartbeats,
        metrics,
        ownWorkerId: workerId,
        rateLimitPerMinute: () => jup.transport.budget.windowFor()?.limit,
        started: () => started,
        logger: logger.child({ component: 'dashboard' }),
      })
    : undefined;
  if (dashboard) {
    opened.push(() => dashboard.close());
    // status and the kill-switch commands find the dashboard of the keeper they name through its heartbeat.
    await heartbeat.setDashboard(dashboard.url);
  }
  logKeeperStarted(logger, { config, role: o.role, place, instances, dashboard });

  return {
    wallet: wallet.address,
    dashboardUrl: dashboard?.url,
    close: async () => {
      started = false;
      await dashboard?.close();
      // Reverse order of start: workers (finishing in-flight executions), then queues, then Redis.
      await workers?.close();
      await events.close();
      await queues.close();
      await heartbeat.close().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not remove the keeper heartbeat'));
      await store.close();
      logger.info('keeper stopped');
    },
  };
}

/** How often worker processes write their heartbeat, ms (the dashboard's /healthz judges from it). */
const WORKER_HEARTBEAT_MS = 5_000;
