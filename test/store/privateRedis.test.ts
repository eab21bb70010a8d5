import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { KeeperError } from '../../src/lib/errors.js';
import { redisAnswers, startPrivateRedis } from '../../src/store/privateRedis.js';

describe('the private redis-server of a paper run', () => {
  const savedPath = process.env.PATH;
  afterEach(() => {
    process.env.PATH = savedPath;
  });

  it('starts on a free loopback port with AOF and noeviction, and is gone with its data after stop', async () => {
    const p = await startPrivateRedis();
    const r = new Redis(p.url);
    const [, aof] = (await r.config('GET', 'appendonly')) as [string, string];
    const [, policy] = (await r.config('GET', 'maxmemory-policy')) as [string, string];
    const [, dir] = (await r.config('GET', 'dir')) as [string, string];
    await r.quit();
    expect(aof).toBe('yes');
    expect(policy).toBe('noeviction');
    expect(p.url).not.toBe('redis://127.0.0.1:6379');
    await p.stop();
    expect(await redisAnswers(p.url, 300)).toBe(false);
    expect(existsSync(dir)).toBe(false);
  });

  it('says how to get Redis when no redis-server is on PATH', async () => {
    process.env.PATH = '/nonexistent';
    const err = await startPrivateRedis().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeeperError);
    expect((err as KeeperError).code).toBe('REDIS_MISSING');
    expect((err as KeeperError).message).toMatch(/apt-get install redis-server/);
    expect((err as KeeperError).message).toMatch(/REDIS_URL/);
  });
});
