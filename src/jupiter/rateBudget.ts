import { createHash } from 'node:crypto';
import { sleep, systemClock, type Clock } from '../lib/time.js';

/** Rate-limit tiers of the Jupiter Developer Platform (jupiter-api.md §9), plus `custom` and `off`. */
export type RateTier = 'keyless' | 'free' | 'developer' | 'launch' | 'pro' | 'custom' | 'off';

/** Requests per minute of each fixed tier; the gateway enforces a 60-second sliding window. */
export const TIER_REQUESTS_PER_MINUTE: Readonly<Record<'keyless' | 'free' | 'developer' | 'launch' | 'pro', number>> = {
  keyless: 30,
  free: 60,
  developer: 600,
  launch: 3_000,
  pro: 9_000,
};

/** The shape of a bucket: at most `capacity` requests at once, refilled at `refillPerSecond`. */
export interface BucketSpec {
  capacity: number;
  refillPerSecond: number;
}

/**
 * The bucket for a tier. Capacity is one second of traffic and the refill is `(rpm - capacity) / 60` per second,
 * so that no 60-second window ever holds more than `rpm` requests: the gateway's sliding window is never exceeded.
 * Returns undefined for `off` (no client-side limit, for a local simulator started without one).
 */
export function bucketForTier(tier: RateTier, customRequestsPerMinute?: number): BucketSpec | undefined {
  if (tier === 'off') return undefined;
  const rpm = tier === 'custom' ? customRequestsPerMinute : TIER_REQUESTS_PER_MINUTE[tier];
  if (rpm === undefined || !Number.isFinite(rpm) || rpm <= 0) {
    throw new RangeError(`a custom rate tier needs a positive requests-per-minute figure, got ${String(rpm)}`);
  }
  const capacity = Math.max(1, Math.floor(rpm / 60));
  const refillPerSecond = Math.max(rpm - capacity, rpm / 60) / 60;
  return { capacity, refillPerSecond };
}

/**
 * Where bucket state lives. The in-memory store serves one process; a Redis store with the same three atomic
 * operations (a Lua script each) lets every worker share one bucket per API key.
 */
export interface BucketStore {
  /** Takes `cost` tokens if there are enough and returns 0; otherwise takes nothing and returns the ms to wait. */
  take(key: string, cost: number, spec: BucketSpec, nowMs: number): Promise<number>;
  /** Lowers the bucket to what the server says remains (never raises it). */
  syncRemaining(key: string, remaining: number, spec: BucketSpec, nowMs: number): Promise<void>;
  /** Refuses every take until `untilMs` (after a 429, or when the server says nothing remains). */
  blockUntil(key: string, untilMs: number): Promise<void>;
}

interface BucketState {
  tokens: number;
  updatedMs: number;
  blockedUntilMs: number;
}

/** A BucketStore in process memory. */
export class MemoryBucketStore implements BucketStore {
  private readonly buckets = new Map<string, BucketState>();

  private state(key: string, spec: BucketSpec, nowMs: number): BucketState {
    let s = this.buckets.get(key);
    if (!s) {
      s = { tokens: spec.capacity, updatedMs: nowMs, blockedUntilMs: 0 };
      this.buckets.set(key, s);
    }
    const elapsed = Math.max(0, nowMs - s.updatedMs);
    s.tokens = Math.min(spec.capacity, s.tokens + (elapsed / 1000) * spec.refillPerSecond);
    s.updatedMs = nowMs;
    return s;
  }

  take(key: string, cost: number, spec: BucketSpec, nowMs: number): Promise<number> {
    const s = this.state(key, spec, nowMs);
    if (s.blockedUntilMs > nowMs) return Promise.resolve(s.blockedUntilMs - nowMs);
    if (s.tokens >= cost) {
      s.tokens -= cost;
      return Promise.resolve(0);
    }
    return Promise.resolve(Math.ceil(((cost - s.tokens) / spec.refillPerSecond) * 1000));
  }

  syncRemaining(key: string, remaining: number, spec: BucketSpec, nowMs: number): Promise<void> {
    const s = this.state(key, spec, nowMs);
    s.tokens = Math.min(s.tokens, Math.max(0, remaining));
    return Promise.resolve();
  }

  blockUntil(key: string, untilMs: number): Promise<void> {
    const s = this.buckets.get(key);
    if (s) s.blockedUntilMs = Math.max(s.blockedUntilMs, untilMs);
    else this.buckets.set(key, { tokens: 0, updatedMs: untilMs, blockedUntilMs: untilMs });
    return Promise.resolve();
  }
}

/** Rate-limit headers of one response, already parsed. */
export interface RateHeaders {
  remaining?: number;
  /** Unix ms when one slot frees up (from `x-ratelimit-reset`, which is in seconds). */
  resetAtMs?: number;
  /** From `Retry-After`, in ms. */
  retryAfterMs?: number;
}

/** Reads `x-ratelimit-remaining`, `x-ratelimit-reset` (unix seconds) and `Retry-After` (seconds or a date). */
export function parseRateHeaders(headers: Headers, nowMs: number): RateHeaders {
  const out: RateHeaders = {};
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  if (headers.has('x-ratelimit-remaining') && Number.isFinite(remaining)) out.remaining = remaining;
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (headers.has('x-ratelimit-reset') && Number.isFinite(reset) && reset > 0) out.resetAtMs = reset * 1000;
  const retryAfter = headers.get('retry-after');
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) out.retryAfterMs = Math.max(0, seconds * 1000);
    else {
      const date = Date.parse(retryAfter);
      if (Number.isFinite(date)) out.retryAfterMs = Math.max(0, date - nowMs);
    }
  }
  return out;
}

/** A stable, non-reversible identity for an API key, safe for bucket keys and logs. */
export function apiKeyId(apiKey: string | undefined): string {
  if (!apiKey) return 'keyless';
  return `key-${createHash('sha256').update(apiKey).digest('hex').slice(0, 16)}`;
}

/** One rate budget: a bucket per API key and tier, consulted before every request and fed by every response. */
export class RateBudget {
  readonly key: string;
  readonly spec: BucketSpec | undefined;
  private readonly store: BucketStore;
  private readonly clock: Clock;

  constructor(options: { keyId: string; tier: RateTier; customRequestsPerMinute?: number; store?: BucketStore; clock?: Clock }) {
    this.spec = bucketForTier(options.tier, options.customRequestsPerMinute);
    this.key = `${options.keyId}:${options.tier}`;
    this.store = options.store ?? sharedMemoryStore;
    this.clock = options.clock ?? systemClock;
  }

  /**
   * Waits until `cost` requests may be sent without breaking the tier's limit. Without a tier limit (`off`) it
   * still honours a wait the server imposed (a 429), so one caller's 429 holds back the others too.
   */
  async acquire(cost = 1, signal?: AbortSignal): Promise<void> {
    const spec = this.spec ?? UNLIMITED;
    for (;;) {
      const wait = await this.store.take(this.key, cost, spec, this.clock());
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }

  /** Feeds a response's headers into the bucket. Returns the ms to wait when the server says nothing remains. */
  async observe(headers: RateHeaders, status: number): Promise<number> {
    const now = this.clock();
    const spec = this.spec;
    // Without a tier limit the server's `remaining` is not tracked; only its explicit waits are.
    if (spec && headers.remaining !== undefined) await this.store.syncRemaining(this.key, headers.remaining, spec, now);
    const exhausted = status === 429 || (headers.remaining !== undefined && headers.remaining <= 0);
    if (!exhausted) return 0;
    const waitMs = waitAfterExhaustion(headers, spec, now);
    await this.store.blockUntil(this.key, now + waitMs);
    return waitMs;
  }
}

/** How long to wait once the budget is exhausted: what the headers say, else one refill interval (at least 1 s). */
export function waitAfterExhaustion(headers: RateHeaders, spec: BucketSpec | undefined, nowMs: number): number {
  const candidates: number[] = [];
  if (headers.retryAfterMs !== undefined) candidates.push(headers.retryAfterMs);
  if (headers.resetAtMs !== undefined) candidates.push(headers.resetAtMs - nowMs);
  const fromHeaders = candidates.length > 0 ? Math.max(...candidates) : undefined;
  const fallback = spec ? Math.max(1000, 1000 / spec.refillPerSecond) : 1000;
  return Math.max(0, fromHeaders ?? fallback);
}

const sharedMemoryStore = new MemoryBucketStore();

/** The bucket of the `off` tier: never empty, but blockable by a server-imposed wait. */
const UNLIMITED: BucketSpec = { capacity: 1e12, refillPerSecond: 1e12 };
