import { afterAll, describe, expect, it } from 'vitest';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';
import { spawnKeeper, useKeeperEnv, writeConfig, type KeeperProcess } from '../helpers/keeper.js';
import { dashboardConfig, dashboardWallet } from './helpers.js';

interface Health {
  healthy: boolean;
  problem: string | null;
  workers: Array<{ id: string; fresh: boolean }>;
}

describe('/healthz of a scheduler, judging a worker process by its heartbeat', () => {
  const world = useKeeperEnv('dashboard-health-processes');
  const procs: KeeperProcess[] = [];
  afterAll(async () => {
    for (const p of procs) {
      p.kill('SIGCONT');
      await stopKeeper(p).catch(() => undefined);
    }
  });

  it('turns 503 while the worker process is frozen (SIGSTOP) and 200 again once it runs', async () => {
    const prefix = 'dash-health';
    const w = await dashboardWallet(world.sim, world.dir);
    // Heartbeats count as dead after 10 s (the least allowed): the workers beat every 5 s.
    const config = writeConfig(world.dir, dashboardConfig({ venueUrl: world.sim.url, prefix }).replace('dashboard:\n  chartEvery: 1s', 'dashboard:\n  chartEvery: 1s\n  heartbeatStale: 10s'), `${prefix}.yaml`);
    const common = ['run', '--config', config, '--wallet', w.path, '--redis-url', world.redis.url, '--dashboard-port', '0'];
    const scheduler = spawnKeeper([...common, '--role', 'scheduler']);
    procs.push(scheduler);
    const worker = spawnKeeper([...common, '--role', 'worker']);
    procs.push(worker);
    const url = String((await scheduler.waitForLog((l) => l.component === 'dashboard' && typeof l.url === 'string', 90_000)).url);
    const health = async () => {
      const res = await fetch(new URL('/healthz', url));
      return { status: res.status, body: (await res.json()) as Health };
    };

    const up = await waitUntil('the worker process beating', async () => {
      const h = await health();
      return h.status === 200 && h;
    }, 90_000);
    expect(up.body.workers).toHaveLength(1);

    worker.proc.kill('SIGSTOP');
    const down = await waitUntil('/healthz 503 once the beat is stale', async () => {
      const h = await health();
      return h.status === 503 && h;
    }, 60_000);
    expect(down.body).toMatchObject({ healthy: false, workers: [{ fresh: false }] });
    expect(down.body.problem).toMatch(/no worker process beat within 10 s/);

    worker.proc.kill('SIGCONT');
    await waitUntil('/healthz 200 again', async () => (await health()).status === 200, 60_000);

    expect(await stopKeeper(worker)).toBe(0);
    // A worker that stopped cleanly removed its beat: nothing beats now.
    const after = await health();
    expect(after.status).toBe(503);
    expect(after.body.problem).toBe('no worker process is beating');
    expect(await stopKeeper(scheduler)).toBe(0);
  }, 240_000);
});
