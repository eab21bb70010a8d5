import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { startTestSim } from './sim.js';

/** What a feed test reads and writes: its own simulator, the machine's Redis, and a key prefix of its own. */
export interface FeedWorld {
  readonly sim: RunningSimulator;
  readonly redis: Redis;
  readonly prefix: string;
}

/**
 * Starts a simulator and a Redis connection for the file (before its tests), under a fresh `<label>-…` prefix, and
 * removes that prefix's keys, the connection and the simulator after them. Read the fields inside tests or hooks.
 */
export function useFeedWorld(label: string): FeedWorld {
  const prefix = `${label}-${randomUUID().slice(0, 8)}`;
  let sim: RunningSimulator | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: 3 });
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await sim?.close();
  });
  const ready = <T>(v: T | undefined): T => {
    if (v === undefined) throw new Error('the feed world is not started yet (read it inside a test or hook)');
    return v;
  };
  return {
    get sim() {
      return ready(sim);
    },
    get redis() {
      return ready(redis);
    },
    prefix,
  };
}
