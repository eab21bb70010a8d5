import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardApp, type DashboardDeps } from '../../src/dashboard/server.js';
import { KeeperMetrics } from '../../src/dashboard/metrics.js';
import { dashboardSettings } from '../../src/dashboard/settings.js';
import { silentLogger } from '../../src/lib/logger.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { KeeperWorkers } from '../../src/scheduler/workers.js';
import { HeartbeatStore } from '../../src/store/heartbeats.js';
import { createRedis } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { waitUntil } from '../helpers/e2e.js';
import { startTestRedis, type TestRedis } from '../helpers/keeper.js';

/** A heartbeat older than this is dead, in these tests (the keeper's default is 30 s). */
const STALE_MS = 10_000;

describe('/healthz, from the workers heartbeats', () => {
  let server: TestRedis;
  let redis: Redis;
  let bull: Redis;
  const open: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    server = await startTestRedis();
    redis = createRedis(server.url, { name: 'health-test' });
    bull = createRedis(server.url, { name: 'health-test-bull', blocking: true });
  });
  afterAll(async () => {
    for (const close of open.reverse()) await close().catch(() => undefined);
    redis.disconnect();
    bull.disconnect();
    await server.stop();
  });

  /** The dashboard's routes over the test's Redis, for a process with workers (`ownWorkerId`) or without. */
  function app(prefix: string, ownWorkerId: string | undefined) {
    const settings = dashboardSettings({ port: 0 }, { enabled: true, chartEvery: 1_000, heartbeatStale: STALE_MS }, undefined)!;
    const queues = new KeeperQueues(bull, prefix);
    open.push(() => queues.close());
    const deps: DashboardDeps = {
      settings,
      redis,
      redisUrl: server.url,
      prefix,
      queues,
      snapshots: new SnapshotStore(redis, prefix),
      heartbeats: new HeartbeatStore(redis, prefix),
      metrics: new KeeperMetrics(),
      ownWorkerId,
      rateLimitPerMinute: () => undefined,
      started: () => true,
      logger: silentLogger,
    };
    const routes = dashboardApp(deps);
    return async (path: string) => {
      const res = await routes.request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1:8787' } });
      return { status: res.status, body: (await res.json()) as { healthy: boolean; problem: string | null; workers: Array<{ id: string }> } };
    };
  }

  function workers(prefix: string, id: string): KeeperWorkers {
    const heartbeats = new HeartbeatStore(redis, prefix);
    const idle = () => Promise.resolve(undefined);
    const w = new KeeperWorkers(
      { feed: idle, evaluate: idle, execute: idle, reconcile: idle, keeperTask: idle, halt: idle },
      { connection: bull, prefix, executeConcurrency: 1, jobLockMs: 5_000, ping: () => redis.ping(), logger: silentLogger, heartbeat: { everyMs: 200, write: (b) => heartbeats.beat(id, b), remove: () => heartbeats.remove(id) } },
    );
    open.push(() => w.close(1_000));
    return w;
  }

  it('is healthy while this process’s workers beat, and 503 once they stop', async () => {
    const prefix = 'health-own';
    const healthz = app(prefix, 'proc-a');
    expect((await healthz('/healthz')).status).toBe(503);
    const w = workers(prefix, 'proc-a');
    w.start();
    const healthy = await waitUntil('a healthy /healthz', async () => {
      const r = await healthz('/healthz');
      return r.status === 200 && r;
    }, 20_000);
    expect(healthy.body).toMatchObject({ healthy: true, problem: null, workers: [{ id: 'proc-a' }] });
    await w.close(1_000);
    const r = await healthz('/healthz');
    expect(r.status).toBe(503);
    expect(r.body.problem).toContain('not beating');
  }, 60_000);

  it('turns unhealthy when the workers of another process stop beating without a word (hung or killed)', async () => {
    const prefix = 'health-remote';
    // A scheduler's dashboard (no workers of its own) judges the worker processes it shares the prefix with.
    const healthz = app(prefix, undefined);
    const heartbeats = new HeartbeatStore(redis, prefix);
    const beat = (at: number, running = true) => heartbeats.beat('proc-b', { at, pid: 1, host: 'elsewhere', queues: { feeds: true, evaluate: true, execute: running, keeper: true }, lastJobAt: null });
    await beat(Date.now());
    expect((await healthz('/healthz')).status).toBe(200);
    // A worker of one queue that stopped (crashed) beats with it marked: unhealthy.
    await beat(Date.now(), false);
    const stopped = await healthz('/healthz');
    expect(stopped.status).toBe(503);
    // The last beat, then nothing: once it is older than the limit the process counts as dead.
    await beat(Date.now() - STALE_MS - 1_000);
    const dead = await healthz('/healthz');
    expect(dead.status).toBe(503);
    expect(dead.body.problem).toMatch(/no worker process beat within 10 s/);
    expect((await healthz('/readyz')).status).toBe(200);
  }, 30_000);
});
