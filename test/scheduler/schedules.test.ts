import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { silentLogger } from '../../src/lib/logger.js';
import { KeeperQueues } from '../../src/scheduler/queues.js';
import { planShards } from '../../src/engine/shards.js';
import { applySchedules, type Cadence, type SchedulePlan } from '../../src/scheduler/schedules.js';
import { clearNamespace } from '../../src/store/redis.js';

describe('the job schedulers of a config', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-schedules-${process.pid}`;
  const redis = new Redis(url);
  const bull = new Redis(url, { maxRetriesPerRequest: null });
  const queues = new KeeperQueues(bull, prefix);
  const plan = (strategies: Array<{ id: string; cadence: Cadence }>): SchedulePlan => ({
    feeds: { market: 10_000, wallet: 15_000, prediction: null },
    shards: planShards(strategies),
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

  it('one scheduler per shard of a cadence, whatever the number of instances; a shard gone from the config loses its scheduler, and its queued executions stay', async () => {
    const many = Array.from({ length: 1_200 }, (_, i) => ({ id: `dca-${i}`, cadence: { every: 2_000 } }));
    await applySchedules(queues, plan([...many, { id: 'gone', cadence: { cron: '*/5 * * * *', tz: 'UTC' } }]), silentLogger);
    // 1,200 instances every 2 s in shards of at most 500: three schedulers; the cron instance has its own.
    const every = ['evaluate-e2000.0of3', 'evaluate-e2000.1of3', 'evaluate-e2000.2of3'];
    const cron = (await keys()).filter((k) => !every.includes(k));
    expect((await keys()).filter((k) => every.includes(k))).toEqual(every);
    expect(cron).toHaveLength(1);
    expect(cron[0]).toMatch(/^evaluate-c[0-9a-z]+\.0of1$/);
    // An intent of `gone` was decided and queued before the config changed.
    await queues.enqueueIntent('gone.swap.0123456789abcdef0123');

    const lines: Array<{ msg: string; scheduler?: string }> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as { msg: string; scheduler?: string }) });
    await applySchedules(queues, plan(many), logger);
    expect(await keys()).toEqual(every);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'removed the scheduler of a shard no longer configured', scheduler: cron[0] }));
    expect(await (await queues.execute.getJob('gone.swap.0123456789abcdef0123'))?.getState()).toBe('waiting');
    // Applying the same plan again (a second keeper starting) changes nothing.
    await applySchedules(queues, plan(many), silentLogger);
    expect(await keys()).toEqual(every);
  });

  it('places every instance in exactly one shard, the same way in every process', () => {
    const ids = Array.from({ length: 5_000 }, (_, i) => ({ id: `inst-${i}`, cadence: { every: 5_000 } }));
    const a = planShards(ids, 500);
    const b = planShards([...ids].reverse(), 500);
    expect(a.map((s) => s.key)).toEqual(b.map((s) => s.key));
    expect(a.map((s) => [...s.instances].sort())).toEqual(b.map((s) => [...s.instances].sort()));
    expect(a.flatMap((s) => s.instances).sort()).toEqual(ids.map((i) => i.id).sort());
    // Hashing spreads them: no shard is more than 30 % above the mean.
    expect(Math.max(...a.map((s) => s.instances.length))).toBeLessThan(650);
  });
});
