import { createHash } from 'node:crypto';
import { sleep, systemClock, type Clock } from '../lib/time.js';

/**
 * Rate-limit tiers: the fixed plans of today's Developer Platform (jupiter-api.md §9: keyless, free, developer,
 * launch, pro), the specification's `ultra` (the swap interface's dynamic limit, service-spec "Limits"), plus
 * `custom` (a plan given in requests per minute, e.g. the specification's Pro plans of up to 30,000) and `off`.
 */
export type RateTier = 'keyless' | 'free' | 'developer' | 'launch' | 'pro' | 'ultra' | 'custom' | 'off';

/** Every tier, in the order a user reads them. */
export const RATE_TIERS: readonly RateTier[] = ['keyless', 'free', 'developer', 'launch', 'pro', 'ultra', 'custom', 'off'];

/** Requests per minute of each fixed tier; the gateway enforces a 60-second sliding window. */
export const TIER_REQUESTS_PER_MINUTE: Readonly<Record<'keyless' | 'free' | 'developer' | 'launch' | 'pro', number>> = {
  keyless: 30,
  free: 60,
  developer: 600,
  launch: 3_000,
  pro: 9_000,
};

/**
 * The ultra tier's swap interface (every /ultra/ path): a sliding 10-second window of 50 requests, plus a quota that
 * grows with the key's executed volume and that only the venue knows; its responses say the current limit.
 */
export const ULTRA_SWAP_BASE: WindowLimit = { limit: 50, windowMs: 10_000 };
/** Paths the ultra tier's dynamic limit applies to. */
export const ULTRA_SWAP_PATH = /^\/ultra\//;
/**
 * The ultra tier's other paths: the free plan's 60 a minute (the simulator's rule; the legacy docs give Ultra keys
 * no figure of their own outside the swap interface).
 */
const ULTRA_OTHER_REQUESTS_PER_MINUTE = 60;

/**
 * How late a request may reach the venue after its token was taken (event-loop delays, connection set-up): the
 * venue counts arrivals, so the bucket keeps any window this much longer than the venue's under its limit.
 */
export const ARRIVAL_SLACK_MS = 1_000;

/** A venue limit: at most `limit` requests in any sliding window of `windowMs`. */
export interface WindowLimit {
  limit: number;
  windowMs: number;
}

/** The shape of a bucket: at most `capacity` requests at once, refilled at `refillPerSecond`. */
export interface BucketSpec {
  capacity: number;
  refillPerSecond: number;
}

/**
 * The bucket that keeps a sliding-window limit. Capacity is one second's share of the window (at least 1) and the
 * refill spreads the rest over the window plus ARRIVAL_SLACK_MS: any span of window + slack then holds at most
 * `capacity + refill x (window + slack) = limit` grants, so no window at the venue holds more, even when requests
 * arrive up to the slack late.
 */
export function bucketForWindow(w: WindowLimit, slackMs = ARRIVAL_SLACK_MS): BucketSpec {
  if (!Number.isFinite(w.limit) || w.limit < 1 || !Number.isFinite(w.windowMs) || w.windowMs <= 0) {
    throw new RangeError(`a rate window needs a positive limit and length, got ${String(w.limit)} per ${String(w.windowMs)} ms`);
  }
  const limit = Math.floor(w.limit);
  const capacity = Math.max(1, Math.floor((limit * 1000) / w.windowMs));
  // With a limit of 1 the capacity is the whole window's: half a token over the span keeps a second grant out.
  const refillPerSecond = Math.max(limit - capacity, 0.5) / ((w.windowMs + slackMs) / 1000);
  return { capacity, refillPerSecond };
}

/**
 * The bucket for a fixed tier's requests per minute (the ultra tier's paths outside the swap interface included).
 * Returns undefined for `off` (no client-side limit, for a local simulator started without one).
 */
export function bucketForTier(tier: RateTier, customRequestsPerMinute?: number): BucketSpec | undefined {
  const w = tierWindow(tier, customRequestsPerMinute);
  return w ? bucketForWindow(w) : undefined;
}

/** The 60-second window of a tier (undefined for `off`). Throws RangeError for `custom` without a figure. */
export function tierWindow(tier: RateTier, customRequestsPerMinute?: number): WindowLimit | undefined {
  if (tier === 'off') return undefined;
  const rpm = tier === 'custom' ? customRequestsPerMinute : tier === 'ultra' ? ULTRA_OTHER_REQUESTS_PER_MINUTE : TIER_REQUESTS_PER_MINUTE[tier];
  if (rpm === undefined || !Number.isFinite(rpm) || rpm <= 0) {
    throw new RangeError(`a custom rate tier needs a positive requests-per-minute figure, got ${String(rpm)}`);
  }
  return { limit: rpm, windowMs: 60_000 };
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
  /** Requests counted in the venue's window now (`x-ratelimit-current`). */
  current?: number;
  /** The window's limit, when the venue says it (`x-ratelimit-limit`, sent by the ultra tier's swap interface). */
  limit?: number;
  /** Unix ms when one slot frees up (from `x-ratelimit-reset`, which is in seconds). */
  resetAtMs?: number;
  /** From `Retry-After`, in ms. */
  retryAfterMs?: number;
}

/** Reads `x-ratelimit-remaining`, `-current`, `-limit`, `-reset` (unix seconds) and `Retry-After` (seconds or a date). */
export function parseRateHeaders(headers: Headers, nowMs: number): RateHeaders {
  const out: RateHeaders = {};
  const num = (name: string): number | undefined => {
    const raw = headers.get(name);
    if (raw === null || raw.trim() === '') return undefined;
    const n = Number(raw);
    return Number.isFinite(n) ? n : undefined;
  };
  const remaining = num('x-ratelimit-remaining');
  if (remaining !== undefined) out.remaining = remaining;
  const current = num('x-ratelimit-current');
  if (current !== undefined) out.current = current;
  const limit = num('x-ratelimit-limit');
  if (limit !== undefined && limit > 0) out.limit = limit;
  const reset = num('x-ratelimit-reset');
  if (reset !== undefined && reset > 0) out.resetAtMs = reset * 1000;
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

/**
 * Whose budget a client spends: the API key's (a hash of it; the venue limits a key wherever it is used, and the
 * key only ever goes to one origin), or, keyless, the origin's (the venue limits keyless callers by address).
 */
export function budgetId(apiKey: string | undefined, origin: string): string {
  if (apiKey) return apiKeyId(apiKey);
  return `keyless-${createHash('sha256').update(origin).digest('hex').slice(0, 12)}`;
}

/** One bucket of a budget: the limit it keeps and whether the venue's headers may raise it. */
interface Lane {
  /** Part of the bucket's key. */
  name: 'all' | 'ultra-swap';
  /** The venue's window (undefined: no client-side limit, only the venue's own waits). */
  window: WindowLimit | undefined;
  /** The configured ceiling a learned limit may not pass (fixed tiers); undefined for the dynamic lane. */
  ceiling: number | undefined;
  spec: BucketSpec | undefined;
}

/**
 * One rate budget: a bucket per API key (two for the ultra tier: its swap interface and the rest), consulted before
 * every request and fed by every response. The bucket lives in the store, so every worker and every keeper using
 * the key on one Redis shares it whatever its prefix. The ultra tier's swap-interface limit is learned from the
 * venue's headers (it grows with executed volume); a fixed tier's limit is lowered, never raised, by what the
 * venue says its limit is.
 */
export class RateBudget {
  /** The budget's identity in the store (a hash of the key, never the key). */
  readonly key: string;
  readonly tier: RateTier;
  private readonly lanes: { all: Lane; swap: Lane | undefined };
  private readonly store: BucketStore;
  private readonly clock: Clock;

  constructor(options: { keyId: string; tier: RateTier; customRequestsPerMinute?: number | undefined; store?: BucketStore | undefined; clock?: Clock | undefined }) {
    this.tier = options.tier;
    this.key = options.keyId;
    const all = tierWindow(options.tier, options.customRequestsPerMinute);
    this.lanes = {
      all: { name: 'all', window: all, ceiling: all?.limit, spec: all ? bucketForWindow(all) : undefined },
      swap: options.tier === 'ultra' ? { name: 'ultra-swap', window: { ...ULTRA_SWAP_BASE }, ceiling: undefined, spec: bucketForWindow(ULTRA_SWAP_BASE) } : undefined,
    };
    this.store = options.store ?? sharedMemoryStore;
    this.clock = options.clock ?? systemClock;
  }

  /** The venue's window a request to `path` counts against now (undefined without a client-side limit). */
  windowFor(path = '/'): WindowLimit | undefined {
    const w = this.lane(path).window;
    return w ? { ...w } : undefined;
  }

  /** The bucket a request to `path` takes from (undefined without a client-side limit). */
  specFor(path = '/'): BucketSpec | undefined {
    return this.lane(path).spec;
  }

  /**
   * Waits until `cost` requests to `path` may be sent without breaking the venue's limit. Without a tier limit
   * (`off`) it still honours a wait the server imposed (a 429), so one caller's 429 holds back the others too.
   */
  async acquire(cost = 1, signal?: AbortSignal, path = '/'): Promise<void> {
    const lane = this.lane(path);
    for (;;) {
      const wait = await this.store.take(this.bucketKey(lane), cost, lane.spec ?? UNLIMITED, this.clock());
      if (wait <= 0) return;
      await sleep(wait, signal);
    }
  }

  /** Feeds a response's headers into the bucket of its path. Returns the ms to wait when the server says nothing remains. */
  async observe(headers: RateHeaders, status: number, path = '/'): Promise<number> {
    const now = this.clock();
    const lane = this.lane(path);
    if (status === 200 || status === 429) this.learn(lane, headers);
    const spec = lane.spec;
    // Without a tier limit the server's `remaining` is not tracked; only its explicit waits are.
    if (spec && headers.remaining !== undefined) await this.store.syncRemaining(this.bucketKey(lane), headers.remaining, spec, now);
    const exhausted = status === 429 || (headers.remaining !== undefined && headers.remaining <= 0);
    if (!exhausted) return 0;
    const waitMs = waitAfterExhaustion(headers, spec, now);
    await this.store.blockUntil(this.bucketKey(lane), now + waitMs);
    return waitMs;
  }

  /**
   * The limit the venue says applies: `x-ratelimit-limit`, or on the dynamic lane `current + remaining` (the
   * window's count plus what is left of it). The dynamic lane takes it as it comes (it grows and shrinks with the
   * key's volume); a fixed lane only comes down to it, never above the configured plan.
   */
  private learn(lane: Lane, h: RateHeaders): void {
    if (!lane.window) return;
    let said = h.limit;
    if (said === undefined && lane.ceiling === undefined && h.current !== undefined && h.remaining !== undefined && h.current + h.remaining >= ULTRA_SWAP_BASE.limit) {
      said = h.current + h.remaining;
    }
    if (said === undefined || !Number.isFinite(said) || said < 1) return;
    const limit = Math.floor(lane.ceiling === undefined ? said : Math.min(lane.ceiling, said));
    if (limit === lane.window.limit) return;
    lane.window = { ...lane.window, limit };
    lane.spec = bucketForWindow(lane.window);
  }

  private lane(path: string): Lane {
    return this.lanes.swap && ULTRA_SWAP_PATH.test(path) ? this.lanes.swap : this.lanes.all;
  }

  private bucketKey(lane: Lane): string {
    return `${this.key}:${lane.name}`;
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
