import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { silentLogger } from '../../src/lib/logger.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { applySchedules, type SchedulePlan } from '../../src/scheduler/schedules.js';
import { clearNamespace } from '../../src/store/redis.js';

describe('the job schedulers of a config', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-schedules-${process.pid}`;
  const redis = new Redis(url);
  const bull = new Redis(url, { maxRetriesPerRequest: null });
  const queues = new KeeperQueues(bull, prefix);
  const plan = (strategies: SchedulePlan['strategies']): SchedulePlan => ({
    feeds: { market: 10_000, wallet: 15_000, prediction: null },
    strategies,
    reconcileEveryMs: 15_000,
    keeper: { claims: 60_000, 'venue-reconcile': 30_000, 'stale-orders': 60_000, sweep: 600_000, 'cancel-resting': 5_000 },
  });
  const keys = async () => (await queues.evaluate.getJobSchedulers()).map((s) => s.key).sort();
  afterAll(async () => {
    await queues.close();
    await clearNamespace(redis, prefix);
    redis.disconnect();
    bull.disconnect();
  });

  it('drop the scheduler of a strategy removed from the config and leave its queued executions alone', async () => {
    await applySchedules(queues, plan([{ id: 'dca', cadence: { every: 2_000 } }, { id: 'gone', cadence: { cron: '*/5 * * * *', tz: 'UTC' } }]), silentLogger);
    expect(await keys()).toEqual(['strategy-dca', 'strategy-gone']);
    // An intent of `gone` was decided and queued before the config changed.
    await queues.enqueueIntent('gone.swap.0123456789abcdef0123');

    const lines: Array<{ msg: string; scheduler?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; scheduler?: string }) });
    await applySchedules(queues, plan([{ id: 'dca', cadence: { every: 2_000 } }]), logger);
    expect(await keys()).toEqual(['strategy-dca']);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'removed the scheduler of a strategy no longer configured', scheduler: 'strategy-gone' }));
    expect(await (await queues.execute.getJob('gone.swap.0123456789abcdef0123'))?.getState()).toBe('waiting');
    // Applying the same plan again (a second keeper starting) changes nothing.
    await applySchedules(queues, plan([{ id: 'dca', cadence: { every: 2_000 } }]), silentLogger);
    expect(await keys()).toEqual(['strategy-dca']);
  });
});
