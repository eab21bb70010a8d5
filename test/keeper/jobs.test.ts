// The keeper jobs' runner: a task never overlaps itself (two workers running it at once: one is skipped), every
// run is recorded for status, and a venue that refuses the product (a prediction API answering 403, as a region
// block does) fails the run without calling for a human: the error is retried, never a reason to halt trading.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VenueReader } from '../../src/execution/venueReader.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { KeeperJobError, KeeperJobs, keeperSettings, type KeeperDeps } from '../../src/keeper/index.js';
import { silentLogger } from '../../src/lib/logger.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { IntentStore } from '../../src/store/intents.js';
import { KeeperStore, readKeeperStatus } from '../../src/store/keeperStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { clearNamespace } from '../../src/store/redis.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixtureServer.js';

const OWNER = 'B6i3jk5NkXtiifCxtckWSkG3LPJG3varfjDBEyjVjrof';
const page = (data: unknown[]) => ({ data, pagination: { start: 0, end: data.length, total: data.length, hasNext: false } });

describe('running keeper jobs', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  const prefix = `keeper-jobs-${randomUUID().slice(0, 6)}`;
  const store = new IntentStore(redis, prefix);
  let server: FixtureServer;
  let deps: KeeperDeps;
  beforeAll(async () => {
    server = await startFixtureServer();
    const jup = createJupiterClient({ baseUrl: server.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const keeperStore = new KeeperStore(redis, prefix, store);
    const switchStore = new KillSwitchStore(redis, prefix);
    deps = {
      venue: new VenueReader(jup, new SolanaRpc(`${server.url}/rpc`), OWNER),
      ledger: keeperStore,
      state: keeperStore,
      killSwitch: { read: () => switchStore.read(), finishCancelResting: (r, at) => switchStore.finishCancelResting(r, at) },
      enqueue: () => Promise.resolve(),
      settings: keeperSettings({ deadlineMs: 60_000, staleOrderAgeMs: 60_000 }),
      logger: silentLogger,
      now: Date.now,
    };
  });
  afterAll(async () => {
    await server.close();
    await clearNamespace(redis, prefix);
    redis.disconnect();
  });

  it('runs a task once at a time: a second run while the first holds the lock is skipped', async () => {
    // The venue takes its time answering, so the first run still holds the lock when the second starts.
    server.on('GET', '/prediction/v1/positions', { body: page([]), delayMs: 300 });
    const jobs = new KeeperJobs(deps);
    const [a, b] = await Promise.all([jobs.run('claims'), new KeeperJobs(deps).run('claims')]);
    expect([a.outcome, b.outcome].sort()).toEqual(['ok', 'skipped']);
    expect(server.requestsTo('/prediction/v1/positions')).toHaveLength(1);
    // Once it ended, the next run goes ahead; status reads the last run.
    expect((await jobs.run('claims')).outcome).toBe('ok');
    const status = await readKeeperStatus(redis, prefix, store);
    expect(status.runs.claims).toMatchObject({ outcome: 'ok', summary: 'no claimable position among 0', error: null });
  });

  it('fails a run the venue refuses with 403 as a retryable keeper error, recorded for status, not one that halts', async () => {
    server.on('GET', '/prediction/v1/positions', { status: 403, body: { type: 'permission_error', message: 'Prediction markets are not available in your region', request_id: 'r' } });
    const err = await new KeeperJobs(deps).run('claims').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeeperJobError);
    expect(err).toMatchObject({ code: 'KEEPER_JOB_FAILED', action: 'retry', details: { task: 'claims', code: 'JUP_HTTP_403' } });
    const status = await readKeeperStatus(redis, prefix, store);
    expect(status.runs.claims).toMatchObject({ outcome: 'error', error: expect.stringContaining('403') });
    // The lock was released: the next run is not skipped.
    server.on('GET', '/prediction/v1/positions', { body: page([]) });
    expect((await new KeeperJobs(deps).run('claims')).outcome).toBe('ok');
  });
});
