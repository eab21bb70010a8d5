import type { Redis } from 'ioredis';
import type { BucketSpec, BucketStore } from '../jupiter/rateBudget.js';
import { evalScript } from './scripts.js';

// One token bucket in a Redis hash {tokens, ts, blocked}. ARGV: cost, capacity, refill per ms, now (ms).
// Returns 0 when the tokens were taken, else the ms to wait.
const TAKE_LUA = `
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'blocked')
local cap = tonumber(ARGV[2]); local rate = tonumber(ARGV[3]); local now = tonumber(ARGV[4]); local cost = tonumber(ARGV[1])
local tokens = tonumber(b[1]) or cap
local ts = tonumber(b[2]) or now
local blocked = tonumber(b[3]) or 0
if now > ts then tokens = math.min(cap, tokens + (now - ts) * rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], 3600000)
if blocked > now then return math.ceil(blocked - now) end
if tokens >= cost then
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens - cost))
  return 0
end
return math.ceil((cost - tokens) / rate)
`;

const SYNC_LUA = `
local b = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local cap = tonumber(ARGV[2]); local rate = tonumber(ARGV[3]); local now = tonumber(ARGV[4])
local tokens = tonumber(b[1]) or cap
local ts = tonumber(b[2]) or now
if now > ts then tokens = math.min(cap, tokens + (now - ts) * rate) end
tokens = math.min(tokens, math.max(0, tonumber(ARGV[1])))
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], 3600000)
return 1
`;

const BLOCK_LUA = `
local cur = tonumber(redis.call('HGET', KEYS[1], 'blocked') or '0')
if tonumber(ARGV[1]) > cur then redis.call('HSET', KEYS[1], 'blocked', ARGV[1]) end
redis.call('PEXPIRE', KEYS[1], 3600000)
return 1
`;

/** Where every keeper's rate buckets live on a Redis server, whatever its prefix. */
export const RATE_BUCKET_NAMESPACE = 'jup-keeper';

/**
 * The namespace of the rate buckets of a keeper with this prefix. Unshared (plain) prefixes use the server-wide
 * namespace, so every keeper of one API key on the server shares its bucket. A prefix in a Redis Cluster hash tag
 * (`{jk}`) keeps its buckets in its tag's slot: a keeper talks only to the node that owns that slot, and a bucket
 * in another slot would answer MOVED. Keepers of one key on a cluster share its bucket when they share the tag.
 */
export function bucketNamespaceFor(prefix: string): string {
  const tag = /^\{[^}]+\}/.exec(prefix)?.[0];
  return tag ? `${tag}:${RATE_BUCKET_NAMESPACE}` : RATE_BUCKET_NAMESPACE;
}

/**
 * The rate budget's buckets in Redis: one per API key (named by a hash of it), shared by every worker of every
 * keeper on the server whatever its prefix, so that a fleet stays inside the key's plan together
 * (docs/architecture.md § Scaling out). Each bucket is one key, so the scripts run on any Redis Cluster slot.
 * `namespace` is for tests that need buckets of their own.
 */
export class RedisBucketStore implements BucketStore {
  constructor(
    private readonly redis: Redis,
    private readonly namespace: string = RATE_BUCKET_NAMESPACE,
  ) {}

  private key(key: string): string {
    return `${this.namespace}:ratebucket:${key}`;
  }

  async take(key: string, cost: number, spec: BucketSpec, nowMs: number): Promise<number> {
    const wait = await evalScript(this.redis, TAKE_LUA, 1, this.key(key), String(cost), String(spec.capacity), String(spec.refillPerSecond / 1000), String(Math.floor(nowMs)));
    return Number(wait);
  }

  async syncRemaining(key: string, remaining: number, spec: BucketSpec, nowMs: number): Promise<void> {
    await evalScript(this.redis, SYNC_LUA, 1, this.key(key), String(remaining), String(spec.capacity), String(spec.refillPerSecond / 1000), String(Math.floor(nowMs)));
  }

  async blockUntil(key: string, untilMs: number): Promise<void> {
    await evalScript(this.redis, BLOCK_LUA, 1, this.key(key), String(Math.ceil(untilMs)));
  }
}
