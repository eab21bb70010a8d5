import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_POINTS, ValueSeries } from '../../src/dashboard/series.js';
import { createRedis } from '../../src/store/redis.js';
import { startTestRedis, type TestRedis } from '../helpers/keeper.js';

describe("the chart's series of wallet values", () => {
  let server: TestRedis;
  let redis: Redis;
  beforeAll(async () => {
    server = await startTestRedis();
    redis = createRedis(server.url, { name: 'series-test' });
  });
  afterAll(async () => {
    redis.disconnect();
    await server.stop();
  });

  it('keeps one point per wallet reading, oldest first, the latest MAX_POINTS', async () => {
    const series = new ValueSeries(redis, 'series-a');
    await series.add({ at: 2_000, valueUsd: 11, pnlUsd: 1, wallet: 'W' });
    await series.add({ at: 1_000, valueUsd: 10, pnlUsd: 0, wallet: 'W' });
    await series.add({ at: 2_000, valueUsd: 99, pnlUsd: 9, wallet: 'W' });
    expect(await series.read()).toEqual([
      { at: 1_000, valueUsd: 10, pnlUsd: 0, wallet: 'W' },
      { at: 2_000, valueUsd: 11, pnlUsd: 1, wallet: 'W' },
    ]);
    expect(await series.lastAt()).toBe(2_000);
    for (let i = 0; i < MAX_POINTS + 5; i += 1) await series.add({ at: 10_000 + i, valueUsd: i, pnlUsd: 0, wallet: 'W' });
    const all = await series.read();
    expect(all).toHaveLength(MAX_POINTS);
    expect(all[0]!.at).toBe(10_005);
  });

  it("shows only the current wallet's points: a new paper session starts a new line", async () => {
    const series = new ValueSeries(redis, 'series-b');
    await series.add({ at: 1_000, valueUsd: 10, pnlUsd: 0, wallet: 'OLD' });
    await series.add({ at: 2_000, valueUsd: 500, pnlUsd: 0, wallet: 'NEW' });
    await redis.zadd('series-b:dashboard:value', 3_000, 'not json');
    expect((await series.read(0, 'NEW')).map((p) => p.valueUsd)).toEqual([500]);
    expect((await series.read(1_500)).map((p) => p.valueUsd)).toEqual([500]);
    expect(await series.read()).toHaveLength(2);
  });
});
