import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KeeperConfig } from './config/load.js';
import { shardRunner } from './engine/shardRunner.js';
import { afterExecution, type ExecutionPorts } from './engine/landings.js';
import { watchLossesOnSnapshots } from './engine/risk.js';
import { watchedSets } from './engine/watchedMints.js';
import { buildTransaction } from './execution/build.js';
import { Executor } from './execution/executor.js';
import { Feeds } from './execution/feeds.js';
import { VenueReader } from './execution/venueReader.js';
import { KeeperJobs, keeperSettings } from './keeper/index.js';
import { guardPolicyFor } from './execution/guardPolicy.js';
import { declaredCoSigners } from './execution/venueSigners.js';
import { createJupiterClient } from './jupiter/client.js';
import { JUPITER_BASE_URL } from './jupiter/transport.js';
import { KeeperError } from './lib/errors.js';
import type { IsolatedDecider } from './engine/evaluate.js';
import type { Logger } from './lib/logger.js';
import { publicUrl } from './lib/urls.js';
import { stringifyJson } from './lib/amounts.js';
import { formatDuration } from './config/duration.js';
import { startEvents } from './notify/index.js';
import { KeeperQueues } from './scheduler/queues.js';
import { reconcile } from './scheduler/reconcile.js';
import { applySchedules } from './scheduler/schedules.js';
import { KeeperWorkers } from './scheduler/workers.js';
import { guardTransaction } from './solana/guard.js';
import { SolanaRpc } from './solana/rpc.js';
import type { HotWallet } from './solana/wallet.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from './store/engineStore.js';
import { IntentStore } from './store/intents.js';
import { KeeperStore } from './store/keeperStore.js';
import { KillSwitchStore } from './store/killSwitch.js';
import { PnlStore } from './store/pnl.js';
import { bucketNamespaceFor, RedisBucketStore } from './store/rateBucket.js';
import { assertDatabase, checkRedis, clearNamespace, createRedis } from './store/redis.js';
import { HeartbeatStore } from './store/heartbeats.js';
import type { DashboardSettings } from './dashboard/settings.js';
import type { KeeperMetrics } from './dashboard/metrics.js';
import { SnapshotStore } from './store/snapshots.js';
import { rollOverPaperSession } from './store/paperSession.js';
import { KeeperHeartbeat, recordKeeperStart } from './store/presence.js';
import { noteTradeFee } from './store/trades.js';
import { valueAtStart } from './engine/walletValue.js';

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
 * the executor, the queues and the workers, for the roles asked. The only place concrete parts meet.
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

/** Something to close if the start fails half-way. */
type Closer = () => unknown;

async function wireKeeper(o: KeeperOptions, opened: Closer[]): Promise<RunningKeeper> {
  const { config, logger, prefix } = o;
  const live = config.venue.kind === 'live';
  // Commands issued together (the executors', the feeds', one evaluation's) leave in one write: a socket write is
  // the store's largest CPU cost per intent (bench/: 10 % of the keeper's time in writeUtf8String before).
  const redis = createRedis(o.redisUrl, { name: `${prefix}:store`, enableAutoPipelining: true });
  opened.push(() => redis.disconnect());
  redis.on('error', (err) => logger.error({ err: err.message }, 'redis connection error'));
  await assertDatabase(redis, o.redisUrl);
  const health = await checkRedis(redis, { live, logger });
  if (o.freshSession) {
    const removed = await clearNamespace(redis, prefix);
    if (removed > 0) logger.info({ prefix, removed }, 'fresh paper session: cleared the records of the previous one');
  } else if (o.newPaperSession) {
    const r = await rollOverPaperSession(redis, prefix, Date.now());
    if (r.keptIntents > 0) logger.info({ prefix, ...r }, 'new paper session: the earlier sessions\' intents and realised P&L are kept (run with --fresh to clear them); their unfinished intents expired');
  }
  // Loaded only when a dashboard is served: its metrics are fed by hooks of the parts wired below.
  const metrics: KeeperMetrics | undefined = o.dashboard ? new (await import('./dashboard/metrics.js')).KeeperMetrics() : undefined;
  const bullConnection = createRedis(o.redisUrl, { name: `${prefix}:bullmq`, blocking: true });
  opened.push(() => bullConnection.disconnect());
  bullConnection.on('error', (err) => logger.error({ err: err.message }, 'redis (queues) connection error'));

  const jup = createJupiterClient({
    baseUrl: o.venueUrl,
    apiKey: config.env.JUPITER_API_KEY,
    // The key goes to this origin only: a paper keeper on the simulator sends none unless the config names it.
    keyedBaseUrl: config.api.keyedBaseUrl ?? config.env.JUPITER_BASE_URL ?? JUPITER_BASE_URL,
    tier: config.api.tier ?? (live ? undefined : 'off'),
    customRequestsPerMinute: config.api.requestsPerMinute,
    timeoutMs: config.api.timeoutMs,
    onResponse: metrics && ((r) => metrics.observeResponse(r.status)),
    // One bucket per API key on this Redis, shared with every keeper whatever its prefix (not namespaced by it).
    bucketStore: new RedisBucketStore(redis, bucketNamespaceFor(prefix)),
    logger: logger.child({ component: 'jupiter' }),
  });
  const rpc = new SolanaRpc(o.rpcUrl);
  const intents = new IntentStore(redis, prefix, { durability: { mode: health.durability, replicas: health.replicas } });
  opened.push(() => intents.close());
  await intents.indexActiveInstances();
  const snapshots = new SnapshotStore(redis, prefix, { priceHistory: { keepMs: config.feeds.priceHistory, resolutionMs: config.feeds.priceHistoryResolution } });
  const states = new StrategyStateStore(redis, prefix);
  const risk = new RiskStore(redis, prefix);
  const pnl = new PnlStore(redis, prefix);
  // The event stream (fills, claims, refusals, kill-switch trips, errors) and, outside worker-only processes, the
  // notifications it feeds; see src/notify.
  const events = await startEvents({
    redis,
    prefix,
    summaryEveryMs: config.logging.summaryEvery,
    notify: config.notify,
    sendNotifications: o.role !== 'worker',
    env: config.env,
    pnlUsd: async () => (await Promise.all((await pnl.instances()).map((i) => pnl.summary(i)))).reduce((sum, s) => sum + s.realizedUsd, 0),
    logger,
  });
  opened.push(() => events.close());
  const queues = new KeeperQueues(bullConnection, prefix, logger.child({ component: 'queues' }));
  opened.push(() => queues.close());
  const feeds = new Feeds({ jup, rpc, snapshots, logger: logger.child({ component: 'feeds' }), sent: () => intents.sentSignatures() });
  const instances = config.strategies.filter((s) => s.enabled);
  const watched = watchedSets(instances.map((s) => s.watches));
  const isolated = (s: (typeof instances)[number]): IsolatedDecider | undefined => {
    if (s.source === undefined) return undefined;
    const thread = o.strategyThreads?.get(s.source);
    if (!thread) throw new KeeperError('CONFIG_INVALID', 'halt', `strategy ${s.id}: its module ${s.source} was not loaded`);
    return thread;
  };
  const coSigners = await declaredCoSigners(config.venue, o.venueUrl);

  const executor = new Executor({
    store: intents,
    jup,
    rpc,
    wallet: o.wallet,
    killSwitch: () => risk.killSwitch(),
    logger: logger.child({ component: 'executor' }),
    maxAttempts: config.execution.maxAttempts,
    onMove: metrics && ((rec, _from, to, at, patch) => metrics.observeMove(rec, to, at, patch.error)),
    notice: (text) => process.stdout.write(text),
    build: async (intent, intentId, signal) => {
      const market = await snapshots.read('market');
      return buildTransaction(intent, {
        jup,
        rpc,
        wallet: o.wallet,
        intentId,
        maxSlippageBps: config.risk.maxSlippageBps,
        usdPrice: (mint) => market?.prices[mint],
        ultra: { excludeRouters: config.api.ultra.excludeRouters, maxQuoteAgeMs: config.api.ultra.maxQuoteAge },
        signal,
      });
    },
    guard: async (intent, built) => {
      const policy = await guardPolicyFor(intent, built, { wallet: o.wallet.publicKey, risk: config.risk, coSigners, extraPrograms: config.venue.allowPrograms, maxQuoteAgeMs: config.api.ultra.maxQuoteAge, market: await snapshots.read('market'), maxPriceAgeMs: config.feeds.maxPriceAge, now: Date.now() });
      return guardTransaction(built.tx, policy, rpc);
    },
  });

  const keeperStore = new KeeperStore(redis, prefix, intents);
  const switchStore = new KillSwitchStore(redis, prefix);
  const keeperJobs = new KeeperJobs({
    venue: new VenueReader(jup, rpc, o.wallet.address),
    ledger: keeperStore,
    state: keeperStore,
    killSwitch: { read: () => switchStore.read(), finishCancelResting: (requestedAt, at) => switchStore.finishCancelResting(requestedAt, at) },
    enqueue: (intentId) => queues.enqueueIntent(intentId),
    settings: keeperSettings({ deadlineMs: config.execution.deadline, staleOrderAgeMs: config.keeper.staleOrderAge }),
    logger: logger.child({ component: 'keeper' }),
    now: Date.now,
  });

  await recordKeeperStart(redis, prefix, {
    venue: config.venue.kind,
    venueUrl: publicUrl(o.venueUrl),
    rpcUrl: publicUrl(o.rpcUrl),
    wallet: o.wallet.address,
    config: config.file,
    startedAt: Date.now(),
    strategies: instances.map((s) => ({ id: s.id, strategy: s.strategy, version: s.definition.version, schedule: s.schedule })),
  });
  // Says this process runs (status: alive or stopped, and since when), and notes the wallet's value at start once
  // the feeds have read this wallet and the market after the start.
  const beganAt = Date.now();
  const heartbeat = new KeeperHeartbeat(redis, prefix, {
    role: o.role,
    wallet: o.wallet.address,
    onError: (err) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not write the keeper heartbeat'),
    startValue: () => valueAtStart(snapshots, o.wallet.address, beganAt),
  });
  await heartbeat.start();
  opened.push(() => heartbeat.close());

  const shards = shardRunner(
    instances.map((s) => ({ id: s.id, definition: s.definition, params: s.params, dailyBudgetUsd: s.dailyBudgetUsd, reactive: s.reactive, isolated: isolated(s), cadence: 'every' in s.schedule ? { every: s.schedule.every } : { cron: s.schedule.cron, tz: s.schedule.tz } })),
    config.execution.shardSize,
    {
      snapshots: snapshotSource(snapshots),
      ledger: intentLedger(intents),
      states,
      counters: risk,
      enqueue: (intentId) => queues.enqueueIntent(intentId),
      enqueueMany: (intentIds) => queues.enqueueIntents(intentIds),
      backlog: () => intents.countInState('planned'),
      maxBacklog: config.execution.maxBacklog,
      limits: config.risk,
      maxIntentsPerEvaluation: config.risk.maxIntentsPerEvaluation,
      deadlineMs: config.execution.deadline,
      maxPriceAgeMs: config.feeds.maxPriceAge,
      maxWalletAgeMs: config.feeds.maxWalletAge,
      events: events.publisher,
      logger: logger.child({ component: 'evaluate' }),
    },
  );

  const landingPorts: ExecutionPorts = {
    intent: (i) => intents.get(i),
    refused: (i) => intents.get(i),
    market: () => snapshots.read('market'),
    feeOf: (sig) => rpc.transactionFee(sig, o.wallet.address),
    recordFee: (i, fee, at) => risk.recordFee(i, fee, at).then(() => noteTradeFee(redis, prefix, i, fee)),
    recordFill: (inst, fill) => pnl.recordFill(inst, fill),
    events: events.publisher,
    logger: logger.child({ component: 'landings' }),
  };
  const heartbeats = new HeartbeatStore(redis, prefix);
  const workerId = o.role === 'scheduler' ? undefined : `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  let workers: KeeperWorkers | undefined;
  if (o.role !== 'scheduler') {
    workers = new KeeperWorkers(
      {
        feed: async (feed) => {
          if (feed === 'market') {
            const snapshot = await feeds.refreshMarket([...watched.mints]);
            return queues.wakeShards(shards.reactive, snapshot.at);
          }
          if (feed === 'wallet') {
            await feeds.refreshWallet(o.wallet.address);
            return watchLossesOnSnapshots(snapshotSource(snapshots), config.risk, risk, logger.child({ component: 'risk' }), Date.now());
          }
          return feeds.refreshPrediction([...watched.categories], [...watched.markets]);
        },
        evaluate: (shard, trigger) => shards.run(shard, trigger),
        execute: async (id, signal) => {
          const result = await executor.execute(id, signal);
          await afterExecution(id, result, landingPorts, Date.now());
          return result;
        },
        reconcile: () => reconcile(intents, queues.execute, logger.child({ component: 'reconciler' }), config.execution.reconcileEvery),
        keeperTask: (task) => keeperJobs.run(task),
        halt: (reason) => risk.setHalted(reason),
      },
      {
        connection: bullConnection,
        prefix,
        executeConcurrency: config.execution.concurrency,
        jobLockMs: config.execution.jobLock,
        ping: () => redis.ping(),
        logger: logger.child({ component: 'workers' }),
        heartbeat: { everyMs: WORKER_HEARTBEAT_MS, write: (beat) => heartbeats.beat(workerId!, beat), remove: () => heartbeats.remove(workerId!) },
        onJob: metrics && ((queue, ms, ok) => metrics.observeJob(queue, ms, ok)),
      },
    );
    workers.start();
    const started = workers;
    opened.push(() => started.close(2_000));
  }
  if (o.role !== 'worker') {
    await applySchedules(
      queues,
      {
        feeds: { market: config.feeds.prices, wallet: config.feeds.wallet, prediction: watched.categories.size + watched.markets.size > 0 ? config.feeds.prediction : null },
        shards: shards.plan,
        reconcileEveryMs: config.execution.reconcileEvery,
        keeper: { claims: config.keeper.claimEvery, 'venue-reconcile': config.keeper.reconcileVenueEvery, 'stale-orders': config.keeper.staleOrderEvery, sweep: config.keeper.sweepEvery, 'cancel-resting': config.keeper.cancelRestingEvery },
      },
      logger.child({ component: 'scheduler' }),
    );
  }
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
        heartbeats,
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
  logger.info({ role: o.role, wallet: o.wallet.address, venue: config.venue.kind, venueUrl: publicUrl(o.venueUrl), dashboard: dashboard?.url ?? null, ...(dashboard?.busyPort !== undefined ? { dashboardBusyPort: dashboard.busyPort } : {}), strategies: instances.map((s) => s.id), instances: instances.map((s) => ({ id: s.id, strategy: s.strategy, schedule: 'every' in s.schedule ? `every ${formatDuration(s.schedule.every)}` : `cron ${s.schedule.cron}${s.schedule.tz ? ` (${s.schedule.tz})` : ''}` })), limits: JSON.parse(stringifyJson(config.risk)) as unknown }, 'keeper started');

  return {
    wallet: o.wallet.address,
    dashboardUrl: dashboard?.url,
    close: async () => {
      started = false;
      await dashboard?.close();
      // Reverse order of start: workers (finishing in-flight executions), then queues, then Redis.
      await workers?.close();
      await events.close();
      await queues.close();
      await heartbeat.close().catch((err: unknown) => logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not remove the keeper heartbeat'));
      await bullConnection.quit().catch(() => undefined);
      await intents.close();
      await redis.quit().catch(() => undefined);
      logger.info('keeper stopped');
    },
  };
}

/** How often worker processes write their heartbeat, ms (the dashboard's /healthz judges from it). */
const WORKER_HEARTBEAT_MS = 5_000;
