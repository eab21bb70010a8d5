// Issue 23, items 7 and 10, at the dashboard's own level: a busy default port moves the dashboard to a free one
// (a chosen port in use stays an error), and Bull Board's pages are served with nothing to load from elsewhere.
// Real parts: sockets on loopback, the test's own Redis, the keeper's queues.
import { createServer, type Server } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeeperMetrics } from '../../src/dashboard/metrics.js';
import { dashboardApp, startDashboard, type DashboardDeps } from '../../src/dashboard/server.js';
import { KeeperError } from '../../src/lib/errors.js';
import { silentLogger } from '../../src/lib/logger.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { HeartbeatStore } from '../../src/store/heartbeats.js';
import { createRedis } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { startTestRedis, type TestRedis } from '../helpers/keeper.js';

/** Holds a loopback port as another keeper's dashboard would. */
async function holdPort(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { port, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('the dashboard listening', () => {
  let redisServer: TestRedis;
  let redis: Redis;
  let bull: Redis;
  const open: Array<() => Promise<unknown>> = [];
  beforeAll(async () => {
    redisServer = await startTestRedis();
    redis = createRedis(redisServer.url, { name: 'listen-test' });
    bull = createRedis(redisServer.url, { name: 'listen-test-bull', blocking: true });
  });
  afterAll(async () => {
    for (const close of open.reverse()) await close().catch(() => undefined);
    redis.disconnect();
    bull.disconnect();
    await redisServer.stop();
  });

  const deps = (prefix: string, port: number, explicit: boolean): DashboardDeps => {
    const queues = new KeeperQueues(bull, prefix);
    open.push(() => queues.close());
    return {
      // `explicit`: the port was chosen (flag or config); otherwise it is the default.
      settings: { host: '127.0.0.1', port, portExplicit: explicit, token: undefined, chartEveryMs: 60_000, heartbeatStaleMs: 30_000 },
      redis,
      redisUrl: redisServer.url,
      prefix,
      queues,
      snapshots: new SnapshotStore(redis, prefix),
      heartbeats: new HeartbeatStore(redis, prefix),
      metrics: new KeeperMetrics(),
      ownWorkerId: undefined,
      rateLimitPerMinute: () => undefined,
      started: () => true,
      logger: silentLogger,
    };
  };

  describe('when the default port is in use (another keeper holds it)', () => {
    it('listens on another free port and says which port was busy', async () => {
      const other = await holdPort();
      open.push(() => other.close());
      const dashboard = await startDashboard(deps('listen-default', other.port, false));
      open.push(() => dashboard.close());
      expect(dashboard.port).not.toBe(other.port);
      expect(dashboard.busyPort).toBe(other.port);
      expect(dashboard.url).toBe(`http://127.0.0.1:${dashboard.port}/`);
      // Its own page, with its own prefix, at the URL it gives.
      const page = await fetch(dashboard.url);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<title>jup-keeper listen-default</title>');
    });
  });

  describe('when a chosen port is in use', () => {
    it('refuses to start, naming the address', async () => {
      const other = await holdPort();
      open.push(() => other.close());
      const err: unknown = await startDashboard(deps('listen-chosen', other.port, true)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(KeeperError);
      expect((err as KeeperError).code).toBe('DASHBOARD_LISTEN');
      expect((err as Error).message).toContain(`127.0.0.1:${other.port}`);
    });
  });

  describe('Bull Board', () => {
    it('is served without links to other sites, under a policy that loads nothing from elsewhere', async () => {
      const app = dashboardApp(deps('listen-bull', 0, true));
      for (const path of ['/queues', '/queues/queue/execute']) {
        const res = await app.request(`http://127.0.0.1${path}`, { headers: { host: '127.0.0.1:8787' } });
        expect(res.status, path).toBe(200);
        const html = await res.text();
        // Bull Board's own page, its scripts and stylesheet from here...
        expect(html, path).toMatch(/<script defer src="static\/js\/main\.[0-9a-f]+\.js"><\/script>/);
        expect(html, path).toMatch(/<link href="static\/css\/main\.[0-9a-f]+\.css" rel="stylesheet">/);
        // ...and no reference to another site (its template asks fonts.googleapis.com for IBM Plex).
        expect(html, path).not.toMatch(/https?:\/\/|googleapis|gstatic/);
        const csp = res.headers.get('content-security-policy') ?? '';
        expect(csp, path).toContain("default-src 'self'");
        expect(csp, path).toContain("font-src 'self' data:");
        expect(csp, path).not.toMatch(/https?:|\*/);
      }
      // Its static files are untouched.
      const logo = await app.request('http://127.0.0.1/queues/static/images/logo.svg', { headers: { host: '127.0.0.1:8787' } });
      expect(logo.status).toBe(200);
      expect(logo.headers.get('content-type')).toContain('image/svg+xml');
    });
  });
});
