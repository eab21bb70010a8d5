import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PnlStore } from '../../src/store/pnl.js';
import { KeeperHeartbeat } from '../../src/store/presence.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { waitUntil } from '../helpers/e2e.js';
import { runKeeperCli, startTestRedis, type TestRedis } from '../helpers/keeper.js';
import { SOL, USDC, WALLET } from './fixtures.js';

const ALIVE = 'hb-alive';
const CRASHED = 'hb-crashed';

/** A keeper's meta, strategies and snapshots as a running keeper leaves them, with its next evaluation due in a minute. */
async function writeKeeper(redis: Redis, prefix: string, now: number): Promise<void> {
  await redis.hset(`${prefix}:meta`, {
    venue: 'simulator',
    wallet: WALLET,
    config: 'config/paper.yaml',
    startedAt: String(now - 120_000),
    startValueUsd: '400.000000',
    strategies: JSON.stringify([{ id: 'dca', strategy: 'dca-swap', version: '1.0.0', schedule: { every: 15_000 } }]),
  });
  // BullMQ's job scheduler of the shard of that cadence, scored by its next run.
  await redis.zadd(`${prefix}:evaluate:repeat`, now + 60_000, 'evaluate-e15000.0of1');
  const snaps = new SnapshotStore(redis, prefix);
  await snaps.write('market', { at: now, prices: { [SOL]: { usd: 150, decimals: 9, change24h: null }, [USDC]: { usd: 1, decimals: 6, change24h: null } }, tokens: {} });
  await snaps.write('wallet', { at: now, address: WALLET, lamports: 2_000_000_000n, holdings: [{ mint: USDC, amount: 112_345_000n, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  // The strategy bought 1 SOL for $100: worth $150 now, $50 unrealised.
  await new PnlStore(redis, prefix).recordFill('dca', { inputMint: USDC, inAmount: 100_000_000n, inUsd: 100, outputMint: SOL, outAmount: 1_000_000_000n, outUsd: 100 });
}

// Each test runs the CLI a few times: on a loaded machine a run can take many seconds.
describe('status: alive or stopped, by the keeper heartbeat', { timeout: 120_000 }, () => {
  let redis: TestRedis;
  let heartbeat: KeeperHeartbeat;
  const status = (...args: string[]) => runKeeperCli(['status', '--redis-url', redis.url, ...args]);

  beforeAll(async () => {
    redis = await startTestRedis();
    await writeKeeper(redis.client(), ALIVE, Date.now());
    heartbeat = new KeeperHeartbeat(redis.client(), ALIVE, { role: 'all', wallet: WALLET });
    await heartbeat.start();
  });
  afterAll(async () => {
    await heartbeat.close().catch(() => undefined);
    await redis.stop();
  });

  it('says a beating keeper is RUNNING, since when, with the next run of each strategy, the value at start and now, and P&L with 2 decimals', async () => {
    const doc = JSON.parse((await status('--json', '--prefix', ALIVE)).stdout);
    expect(doc.heartbeat).toMatchObject({ alive: true, stoppedAt: null, processes: [{ pid: process.pid, role: 'all', wallet: WALLET }] });
    expect(doc.heartbeat.since).toBe(doc.heartbeat.processes[0].startedAt);
    expect(doc.strategies[0].nextRunAt).toBeGreaterThan(Date.now());
    expect(doc.walletValue).toMatchObject({ startUsd: 400, nowUsd: 412.345, unpriced: [] });
    expect(doc.walletValue.changeUsd).toBeCloseTo(12.345, 6);
    expect(doc.unrealizedPnl.totalUsd).toBeCloseTo(50, 6);
    // What status --json printed before stays (other code reads it).
    expect(doc.keeper).toEqual({ startedAt: expect.any(Number), config: 'config/paper.yaml' });
    expect(doc.pnl.total).toEqual({ realizedUsd: 0, volumeUsd: 100, fills: 1 });

    const out = (await status('--prefix', ALIVE)).stdout;
    expect(out).toMatch(/^keeper\s+RUNNING since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+[sm] ago\), heartbeat \d+s ago: pid \d+ on \S+$/m);
    expect(out).toMatch(/^wallet value\s+\$400\.00 at start, \$412\.35 now \(\+\$12\.35\) as of \d+[sm] ago$/m);
    expect(out).toMatch(/^P&L\s+realised \$0\.00 this session \(\$0\.00 over every session\), unrealised \+\$50\.00 /m);
    expect(out).toMatch(/^\s+dca\s+dca-swap@1\.0\.0\s+every 15s\s+never\s+(in 1m|in \d+s|due now)\s/m);
    expect(out).toMatch(/^\s+total\s+\$0\.00\s+\+\$50\.00\s+\$100\.00\s+1$/m);
  });

  it('finds the keeper alive on the Redis without --prefix, and names the others when several are', async () => {
    // runKeeperCli runs in the project directory: ./config/paper.yaml names jk-paper, which is not alive here.
    const found = await status('--json');
    expect(JSON.parse(found.stdout)).toMatchObject({ prefix: ALIVE, located: { how: 'heartbeat', othersAlive: [] } });
    expect((await status()).stdout).toMatch(new RegExp(`^where\\s+prefix ${ALIVE} on \\S+ \\(config/paper\\.yaml\\), the keeper alive on this Redis$`, 'm'));
    const trades = await runKeeperCli(['trades', '--redis-url', redis.url]);
    expect(trades.stdout).toBe(`trades of prefix ${ALIVE}, every trade (no session recorded), the keeper running now: none settled yet\n`);

    const other = new KeeperHeartbeat(redis.client(), 'hb-other', { role: 'worker', wallet: null });
    await other.start();
    try {
      const two = await status();
      expect(two.code).toBe(1);
      expect(two.stderr).toContain(`2 keepers are running on ${redis.url} (prefixes ${ALIVE}, hb-other): name one with --prefix`);
      const named = JSON.parse((await status('--json', '--prefix', ALIVE)).stdout);
      expect(named.heartbeat.alive).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('says STOPPED and since when once the keeper stopped cleanly; no next run is shown', async () => {
    await heartbeat.close();
    const doc = JSON.parse((await status('--json', '--prefix', ALIVE)).stdout);
    expect(doc.heartbeat).toMatchObject({ alive: false, processes: [] });
    expect(doc.heartbeat.stoppedAt).toBe(doc.heartbeat.since);
    expect(doc.strategies[0].nextRunAt).toBeNull();
    const out = (await status('--prefix', ALIVE)).stdout;
    expect(out).toMatch(/^keeper\s+STOPPED since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+[sm] ago, stopped cleanly\); it had run \d+m from /m);
    expect(out).toMatch(/^\s+dca\s+\S+\s+every 15s\s+never\s+stopped\s/m);
  });

  it('says STOPPED since the last beat when a keeper died without stopping (its heartbeat expired)', async () => {
    const r = redis.client();
    await writeKeeper(r, CRASHED, Date.now());
    // One beat with a short life, never renewed nor removed: a process killed -9 right after it.
    const crashed = new KeeperHeartbeat(r, CRASHED, { role: 'all', wallet: WALLET, ttlMs: 300, everyMs: 3_600_000 });
    await crashed.start();
    const doc = await waitUntil('the heartbeat to expire', async () => {
      const d = JSON.parse((await status('--json', '--prefix', CRASHED)).stdout);
      return d.heartbeat.alive ? undefined : d;
    }, 30_000, 200);
    expect(doc.heartbeat.stoppedAt).toBeNull();
    expect(doc.heartbeat.since).toBe(doc.heartbeat.lastBeatAt);
    expect((await status('--prefix', CRASHED)).stdout).toMatch(/^keeper\s+STOPPED since \S+ \S+ UTC \(\d+[sm] ago, no heartbeat since then: it died or hung\)/m);
  });
});
