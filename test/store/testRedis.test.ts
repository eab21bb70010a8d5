import { afterAll, describe, expect, it } from 'vitest';
import { freePort, startTestRedis, type TestRedis } from '../helpers/keeper.js';

// The e2e tests' own redis-server (test/helpers/keeper.ts): a test that believes it runs on its own server while it
// talks to another one, or that "restarts" a server that never went down, proves nothing.
describe('a test redis-server', () => {
  const started: TestRedis[] = [];
  afterAll(async () => {
    await Promise.all(started.map((r) => r.stop()));
  });

  it('that loses the race for its port starts on another one, and is its own process', async () => {
    const other = await startTestRedis();
    started.push(other);
    const ports = [other.port];
    const mine = await startTestRedis({ pickPort: async () => ports.shift() ?? freePort() });
    started.push(mine);
    expect(mine.port).not.toBe(other.port);
    const client = mine.client();
    const info = await client.info('server');
    expect(Number(/process_id:(\d+)/.exec(info)?.[1])).toBe(mine.pid());
    expect(mine.pid()).not.toBe(other.pid());
  });

  it('is down after kill (nothing answers) and comes back as a new process with its data', async () => {
    const redis = await startTestRedis({ aof: true });
    started.push(redis);
    const client = redis.client();
    await client.set('kept', 'yes');
    const before = redis.pid();
    await redis.kill();
    expect(redis.pid()).toBeUndefined();
    expect(await redis.answers()).toBe(false);
    await redis.restart();
    expect(redis.pid()).not.toBe(before);
    expect(await redis.answers()).toBe(true);
    expect(await client.get('kept')).toBe('yes');
  });
});
