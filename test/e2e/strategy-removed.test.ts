import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentId } from '../../src/engine/ids.js';
import type { Intent } from '../../src/sdk/intents.js';
import { assertExactlyOnce, startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { dcaSwapsConfig, writeConfig } from '../helpers/keeper.js';
import { SOL, USDC } from '../helpers/sim.js';

// An operator removes a strategy from the config and restarts the keeper while one of its swaps is still queued.
// Its schedule must go (its shard, the only one of its cadence, loses its scheduler: no new decisions), and what it
// already decided must still be carried out exactly once: the executor works from the ledger, not from the config.
describe('removing a strategy from the config', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('strategy-removed');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('drops its schedule and still settles its queued intent once', async ({ onTestFailed }) => {
    const c = await h.newCase('cfg');
    c.dumpOnFailure(onTestFailed);
    const dca = { id: 'dca', inputMint: 'SOL', outputMint: 'USDC', amount: 10_000_000n, maxRuns: 1 };
    const gone = { id: 'gone', inputMint: 'SOL', outputMint: 'USDC', amount: 20_000_000n, maxRuns: 1, everySeconds: 3 };
    const before = writeConfig(h.dir, dcaSwapsConfig({ venueUrl: h.sim.url, prefix: c.prefix, instances: [dca, gone] }), `${c.prefix}-before.yaml`);
    const after = writeConfig(h.dir, dcaSwapsConfig({ venueUrl: h.sim.url, prefix: c.prefix, instances: [dca] }), `${c.prefix}-after.yaml`);

    // The keeper with both strategies set up their schedules...
    const scheduler = c.spawn({ config: before, role: 'scheduler' });
    await scheduler.waitForLog((l) => l.msg === 'job schedulers upserted', 30_000);
    expect(await c.stop(scheduler)).toBe(0);
    // ...and `gone` had decided a swap that was recorded and queued, but not executed yet.
    const intent: Intent = { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: gone.amount, reason: 'dca run 1 of 1' };
    const id = intentId('gone', intent, 1);
    const now = Date.now();
    expect((await c.store.create({ id, instance: 'gone', strategy: 'dca-swap@1.0.0', intent, createdAt: now, deadline: now + 600_000 })).created).toBe(true);
    const execute = new Queue('execute', { connection: { host: '127.0.0.1', port: h.redis.port }, prefix: c.prefix });
    const evaluate = new Queue('evaluate', { connection: { host: '127.0.0.1', port: h.redis.port }, prefix: c.prefix });
    try {
      await execute.add('execute', { intentId: id }, { jobId: id });
      // One shard per cadence: dca every 2 s, gone every 3 s.
      expect((await evaluate.getJobSchedulers()).map((s) => s.key).sort()).toEqual(['evaluate-e2000.0of1', 'evaluate-e3000.0of1']);

      // Restarted without `gone`.
      const k = c.spawn({ config: after });
      await k.waitForLog((l) => l.msg === 'removed the scheduler of a shard no longer configured' && l.scheduler === 'evaluate-e3000.0of1', 30_000);
      await c.waitAllDone(dca.maxRuns, 45_000);
      expect((await evaluate.getJobSchedulers()).map((s) => s.key)).toEqual(['evaluate-e2000.0of1']);
      expect(await c.stop(k)).toBe(0);
    } finally {
      await Promise.all([execute.close(), evaluate.close()]);
    }

    const report = await assertExactlyOnce(c);
    const ofGone = report.intents.filter((r) => r.instance === 'gone');
    expect(ofGone.map((r) => [r.id, r.state])).toEqual([[id, 'landed']]);
    expect(report.settled.filter((t) => t.inputAmount === String(gone.amount))).toHaveLength(1);
    expect(report.intents.filter((r) => r.instance === 'dca')).toHaveLength(dca.maxRuns);
  }, 90_000);
});
