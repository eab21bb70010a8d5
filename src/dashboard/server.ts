import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { INTENT_STATES } from '../engine/states.js';
import { walletValueUsd } from '../engine/walletValue.js';
import { stringifyJson } from '../lib/amounts.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperQueues } from '../scheduler/queues.js';
import { RiskStore, snapshotSource } from '../store/engineStore.js';
import type { HeartbeatStore } from '../store/heartbeats.js';
import { IntentStore } from '../store/intents.js';
import { KillSwitchStore } from '../store/killSwitch.js';
import { PnlStore } from '../store/pnl.js';
import type { SnapshotStore } from '../store/snapshots.js';
import { readStatus } from '../store/status.js';
import { readTrades } from '../store/trades.js';
import { dashboardAuth } from './auth.js';
import { mountBullBoard } from './bullBoard.js';
import { judgeHealth } from './health.js';
import { listenDashboard } from './listen.js';
import { readLineage } from './lineage.js';
import { KeeperMetrics, METRICS_CONTENT_TYPE, QUEUE_STATES } from './metrics.js';
import { statusPage } from './page.js';
import { startSampler, ValueSeries } from './series.js';
import { dashboardUrl, type DashboardSettings } from './settings.js';

/** What the dashboard reads and acts on; main.ts wires it. */
export interface DashboardDeps {
  settings: DashboardSettings;
  /** The keeper's store connection (never a blocking one). */
  redis: Redis;
  /** For `/api/status` (shown without its credentials). */
  redisUrl: string;
  prefix: string;
  queues: KeeperQueues;
  snapshots: SnapshotStore;
  heartbeats: HeartbeatStore;
  metrics: KeeperMetrics;
  /** The heartbeat id of this process's workers, when it runs some. */
  ownWorkerId: string | undefined;
  /** The rate budget's requests per minute now (undefined without a client-side limit). */
  rateLimitPerMinute: () => number | undefined;
  /** Whether the keeper finished starting (and has not begun to stop). */
  started: () => boolean;
  logger: Logger;
}

/** A listening dashboard. */
export interface RunningDashboard {
  url: string;
  port: number;
  /** The port asked for, when it was in use and the dashboard took another. */
  busyPort: number | undefined;
  close(): Promise<void>;
}

const killSwitchBody = z.object({ engaged: z.boolean() });

/** The dashboard's routes (exported for tests that drive it without a socket). */
export function dashboardApp(d: DashboardDeps): Hono {
  const auth = dashboardAuth(d.settings.token);
  const series = new ValueSeries(d.redis, d.prefix);
  const app = new Hono();
  app.onError((err, c) => {
    d.logger.error({ err: err.message, path: c.req.path }, 'dashboard request failed');
    return c.json({ error: 'internal error (see the keeper log)' }, 500);
  });
  app.use('*', async (c, next) => {
    await next();
    c.header('x-content-type-options', 'nosniff');
    c.header('referrer-policy', 'no-referrer');
    if (!c.req.path.startsWith('/queues')) c.header('x-frame-options', 'DENY');
    if (c.req.path.startsWith('/api/') || c.req.path === '/metrics') c.header('cache-control', 'no-store');
  });
  app.use('*', auth.middleware);

  app.get('/healthz', async (c) => {
    const now = Date.now();
    const report = judgeHealth(await d.heartbeats.read(now - 24 * 3_600_000), now, d.settings.heartbeatStaleMs, d.ownWorkerId);
    return c.json(report, report.healthy ? 200 : 503);
  });
  app.get('/readyz', async (c) => {
    const redis = await Promise.race([d.redis.ping().then(() => true, () => false), new Promise<false>((r) => setTimeout(() => r(false), 1_000).unref())]);
    const problem = !redis ? 'Redis does not answer' : !d.started() ? 'the keeper is not started' : null;
    return c.json({ ready: problem === null, problem }, problem === null ? 200 : 503);
  });
  app.get('/metrics', async (c) => {
    await gatherMetrics(d, Date.now());
    return c.body(await d.metrics.registry.metrics(), 200, { 'content-type': METRICS_CONTENT_TYPE });
  });
  // Several pages open at once share one read (a deployment of thousands of strategies makes it a large one).
  const status = coalesce(async () => `${stringifyJson(await readStatus(d.redis, { redisUrl: d.redisUrl, prefix: d.prefix }, Date.now()), 2)}\n`);
  const lineage = coalesce(async () => stringifyJson(await readLineage(d.redis, d.prefix, d.queues.execute, await d.snapshots.read('market'))));
  app.get('/api/status', async (c) => c.body(await status(), 200, { 'content-type': 'application/json; charset=utf-8' }));
  app.get('/api/intents', async (c) => c.body(await lineage(), 200, { 'content-type': 'application/json; charset=utf-8' }));
  // The current wallet's points: a new paper session (a new wallet) starts a new line.
  app.get('/api/series', async (c) => c.json(await series.read(Date.now() - 7 * 86_400_000, (await d.redis.hget(`${d.prefix}:meta`, 'wallet')) ?? undefined)));
  app.use('/api/kill-switch', auth.csrfGuard);
  app.post('/api/kill-switch', async (c) => {
    const body = killSwitchBody.safeParse(await c.req.json().catch(() => undefined));
    if (!body.success) return c.json({ error: 'expected {"engaged": true|false}' }, 400);
    const store = new KillSwitchStore(d.redis, d.prefix);
    // The same store calls as `jup-keeper kill-switch on|off`: halt mode, named by who threw it. The console line and
    // the notification come from the event the store appends, as for a switch thrown anywhere else (src/notify).
    if (body.data.engaged) await store.engage('halt', 'dashboard', 'dashboard', Date.now());
    else await store.release(Date.now(), 'dashboard');
    const s = await store.read();
    status.forget();
    return c.json({ prefix: d.prefix, engaged: s !== null, mode: s?.mode ?? null, reason: s?.reason ?? null, at: s && s.at > 0 ? s.at : null, by: s?.by ?? null });
  });
  app.get('/', (c) => {
    const nonce = randomBytes(16).toString('base64');
    c.header('content-security-policy', `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`);
    c.header('cache-control', 'no-store');
    return c.html(statusPage({ csrf: auth.csrf, nonce, prefix: d.prefix }));
  });
  mountBullBoard(app, d.queues, d.prefix);
  return app;
}

/**
 * Starts the dashboard: Bull Board (read-only) at /queues, the status page at /, /api/status, /metrics, /healthz and
 * /readyz, and the sampler that records the wallet's value for the chart. A default port in use (another keeper on
 * this machine holds it) is left for the next free one; a chosen port (flag or config) in use is an error (see
 * listenDashboard). Logs the URL; the keeper's banner and heartbeat carry it.
 */
export async function startDashboard(d: DashboardDeps): Promise<RunningDashboard> {
  const app = dashboardApp(d);
  const { host } = d.settings;
  const { server, port, busyPort } = await listenDashboard(app, host, d.settings.port, d.settings.portExplicit);
  server.on('error', (err) => d.logger.error({ err: err.message }, 'dashboard server error'));
  const sampler = startSampler({ redis: d.redis, prefix: d.prefix, snapshots: d.snapshots, series: new ValueSeries(d.redis, d.prefix), logger: d.logger }, d.settings.chartEveryMs);
  const url = dashboardUrl(host, port);
  d.logger.info({ url, auth: d.settings.token ? 'token' : 'loopback', ...(busyPort !== undefined ? { busyPort } : {}) }, busyPort !== undefined ? `dashboard at ${url} (${host}:${busyPort} is in use, another keeper?)` : `dashboard at ${url}`);
  return {
    url,
    port,
    busyPort,
    close: async () => {
      await sampler.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

/** Wraps a read so that callers arriving while it runs, or within `freshMs` of its end, share its result. */
function coalesce<T>(read: () => Promise<T>, freshMs = 1_000): (() => Promise<T>) & { forget(): void } {
  let last: { at: number; value: Promise<T> } | undefined;
  const get = () => {
    if (last && Date.now() - last.at < freshMs) return last.value;
    const value = read();
    last = { at: Number.POSITIVE_INFINITY, value };
    value.then(
      () => {
        if (last?.value === value) last = { at: Date.now(), value };
      },
      () => {
        if (last?.value === value) last = undefined;
      },
    );
    return value;
  };
  return Object.assign(get, { forget: () => (last = undefined) });
}

/** Sets the scrape-time gauges from Redis and BullMQ. */
async function gatherMetrics(d: DashboardDeps, now: number): Promise<void> {
  const m = d.metrics;
  const source = snapshotSource(d.snapshots);
  const pnl = new PnlStore(d.redis, d.prefix);
  const [counts, byState, refusals, ids, market, wallet, prediction, killSwitch, beats] = await Promise.all([
    Promise.all(d.queues.all().map(async (q) => [q.name, await q.getJobCounts(...QUEUE_STATES)] as const)),
    new IntentStore(d.redis, d.prefix).countByState(),
    new RiskStore(d.redis, d.prefix).refusalsToday(now),
    pnl.instances(),
    source.market(),
    source.wallet(),
    source.prediction(),
    new KillSwitchStore(d.redis, d.prefix).read(),
    d.heartbeats.read(),
  ]);
  m.queueJobs.reset();
  for (const [queue, c] of counts) for (const state of QUEUE_STATES) m.queueJobs.set({ queue, state }, c[state] ?? 0);
  m.intents.reset();
  for (const state of INTENT_STATES) m.intents.set({ state }, byState[state]);
  m.refusalsToday.reset();
  for (const [rule, n] of Object.entries(refusals)) m.refusalsToday.set({ rule }, n);
  const books = await Promise.all(ids.map(async (id) => [id, await pnl.summary(id)] as const));
  const trades = new Map<string, { labels: { strategy: string; kind: string }; n: number }>();
  for (const t of await readTrades(d.redis, d.prefix)) {
    const key = `${t.strategy}\u0000${t.kind}`;
    const row = trades.get(key) ?? { labels: { strategy: t.strategy, kind: t.kind }, n: 0 };
    row.n += 1;
    trades.set(key, row);
  }
  KeeperMetrics.setTotals(m.trades, [...trades.values()]);
  m.realizedPnl.reset();
  for (const [id, b] of books) m.realizedPnl.set({ strategy: id }, b.realizedUsd);
  m.walletValue.reset();
  if (market && wallet) m.walletValue.set(walletValueUsd(market, wallet, prediction).usd);
  m.killSwitch.set(killSwitch ? 1 : 0);
  m.heartbeatAge.reset();
  for (const [id, b] of beats) m.heartbeatAge.set({ worker: id }, Math.max(0, now - b.at) / 1000);
  m.setRateBudget(d.rateLimitPerMinute(), now);
}
