import { randomUUID } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';

/**
 * Tiers of the simulated gateway: the fixed-rate plans of jupiter-api.md §9 (keyless to pro), `ultra` (the swap
 * interface's dynamic limit that grows with executed volume, service-spec "Limits"), and `off` (no limit, no gating).
 */
export const SIM_TIERS = ['keyless', 'free', 'developer', 'launch', 'pro', 'ultra', 'off'] as const;
/** A simulated gateway tier. */
export type SimTier = (typeof SIM_TIERS)[number];

type FixedTier = Exclude<SimTier, 'ultra' | 'off'>;
const RPM: Record<FixedTier, number> = { keyless: 30, free: 60, developer: 600, launch: 3_000, pro: 9_000 };
const WINDOW_MS = 60_000;
/** The ultra tier's swap interface: a 10-second sliding window of 50 requests plus the volume quota. */
const ULTRA_WINDOW_MS = 10_000;
const ULTRA_BASE_REQUESTS = 50;
/** The volume quota is recomputed every 10 minutes over the rolling day before (DOCS `ultra/rate-limit.mdx`). */
const ULTRA_RECOMPUTE_MS = 600_000;
const DAY_MS = 86_400_000;
/** The documented points of the added quota, by 24 h executed volume in USD (DOCS `ultra/rate-limit.mdx`). */
const ULTRA_ADDED_QUOTA: ReadonlyArray<readonly [number, number]> = [[0, 0], [10_000, 1], [100_000, 11], [1_000_000, 115]];
/** Tiers that may read the curated content endpoints ("for the pro tier only", service-spec Authentication 2). */
const CONTENT_TIERS: ReadonlySet<SimTier> = new Set(['pro', 'off']);
/** The curated content endpoints of content.yaml, under /tokens/v2. */
const CONTENT_PATH = /^\/tokens\/v2\/(v1\/)?content(\/|$)/;
/** The swap interface the ultra tier's dynamic limit applies to. */
const SWAP_INTERFACE_PATH = /^\/ultra\//;

/** Settings of the gateway. */
export interface GatewayOptions {
  /** Accepted API keys, each `KEY` or `KEY:TIER`; when non-empty an unknown key gets 401. */
  apiKeys: readonly string[];
  /** Tier of keys given without one, and of every caller when no keys are configured. */
  tier: SimTier;
  /** Real time, for the request windows. */
  now?: () => number;
  /** Simulated time, for the ultra tier's rolling executed volume (defaults to `now`). */
  simNow?: () => number;
  /** Counts what the gateway answered, for GET /__sim/gateway. */
  counters?: GatewayCounters;
}

/** What the gateway answered on one window: requests let through and requests refused with 429. */
export interface LaneCount {
  allowed: number;
  tooMany: number;
}

/**
 * What the gateway's rate limit did, by tier and window (`ultra/swap` is the ultra tier's swap interface, any
 * other `<tier>/all` the tier's 60-second window). Keys are never named. Faults injected through /__sim/faults are
 * not the gateway's answers and are not counted.
 */
export class GatewayCounters {
  private readonly lanes = new Map<string, LaneCount>();

  count(lane: string, allowed: boolean): void {
    const c = this.lanes.get(lane) ?? { allowed: 0, tooMany: 0 };
    if (allowed) c.allowed += 1;
    else c.tooMany += 1;
    this.lanes.set(lane, c);
  }

  /** Totals and per-window counts since the simulator started (or since `clear`). */
  snapshot(): { allowed: number; tooMany: number; lanes: Record<string, LaneCount> } {
    const lanes = Object.fromEntries([...this.lanes].map(([k, v]) => [k, { ...v }]));
    const sum = (f: keyof LaneCount) => [...this.lanes.values()].reduce((n, c) => n + c[f], 0);
    return { allowed: sum('allowed'), tooMany: sum('tooMany'), lanes };
  }

  clear(): void {
    this.lanes.clear();
  }
}

/** An API key as `jup-keeper sim --api-key` takes it: `KEY` or `KEY:TIER`. Throws RangeError naming a bad tier. */
export function parseApiKeySpec(spec: string): { key: string; tier: SimTier | undefined } {
  const at = spec.lastIndexOf(':');
  if (at <= 0) return { key: spec, tier: undefined };
  const tier = spec.slice(at + 1);
  if (!(SIM_TIERS as readonly string[]).includes(tier)) throw new RangeError(`unknown tier "${tier}" in API key spec; tiers: ${SIM_TIERS.join(', ')}`);
  return { key: spec.slice(0, at), tier: tier as SimTier };
}

/** Requests per 10 s the ultra tier adds for a rolling day's executed volume: the documented table, interpolated. */
export function ultraAddedQuota(volumeUsd: number): number {
  if (!(volumeUsd > 0)) return 0;
  const points = ULTRA_ADDED_QUOTA;
  for (let i = 1; i < points.length; i += 1) {
    const [v1, q1] = points[i]!;
    const [v0, q0] = points[i - 1]!;
    // Past the last point the last segment's slope continues.
    if (volumeUsd <= v1 || i === points.length - 1) return Math.floor(q0 + ((volumeUsd - v0) * (q1 - q0)) / (v1 - v0));
  }
  return 0;
}

/** A sliding window per caller, as the real gateway enforces. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();

  /** Records a hit if allowed. Returns the state after the decision. */
  hit(caller: string, limit: number, now: number, windowMs = WINDOW_MS): { allowed: boolean; current: number; remaining: number; resetSeconds: number } {
    const list = (this.hits.get(caller) ?? []).filter((t) => t > now - windowMs);
    const allowed = list.length < limit;
    if (allowed) list.push(now);
    this.hits.set(caller, list);
    const oldest = list[0] ?? now;
    return { allowed, current: list.length, remaining: limit - list.length, resetSeconds: Math.ceil((oldest + windowMs) / 1000) };
  }
}

/** USD volume of each key's landed Ultra executes, by simulated time. */
class VolumeBook {
  private readonly byKey = new Map<string, Array<{ atMs: number; usd: number }>>();

  add(key: string, atMs: number, usd: number): void {
    const list = (this.byKey.get(key) ?? []).filter((e) => e.atMs > atMs - DAY_MS - ULTRA_RECOMPUTE_MS);
    list.push({ atMs, usd });
    this.byKey.set(key, list);
  }

  /** The volume as of the last 10-minute recomputation: the day before it. */
  quotaVolume(key: string, nowMs: number): number {
    const epoch = Math.floor(nowMs / ULTRA_RECOMPUTE_MS) * ULTRA_RECOMPUTE_MS;
    return (this.byKey.get(key) ?? []).reduce((sum, e) => (e.atMs <= epoch && e.atMs > epoch - DAY_MS ? sum + e.usd : sum), 0);
  }
}

const executed = new WeakMap<Request, number>();

/** Called by the execute route when a swap landed: its USD value counts toward the caller key's volume quota. */
export function recordExecutedVolume(c: Context, usd: number): void {
  if (usd > 0) executed.set(c.req.raw, usd);
}

/**
 * The API gateway in front of the simulated Jupiter paths: a request id on every response, the API key check
 * (401 for an unknown key), access by tier (403 for the content endpoints below pro), and the tier's rate limit
 * with `x-ratelimit-*` headers on 200 and 429 (the ultra tier's swap interface also says its current limit).
 */
export function gateway(options: GatewayOptions): MiddlewareHandler<{ Bindings: HttpBindings }> {
  const window = new SlidingWindow();
  const volumes = new VolumeBook();
  const keys = new Map(options.apiKeys.map((spec) => {
    const { key, tier } = parseApiKeySpec(spec);
    return [key, tier ?? options.tier] as const;
  }));
  const now = options.now ?? Date.now;
  const simNow = options.simNow ?? now;
  return async (c, next) => {
    c.header('x-api-gateway-request-id', randomUUID());
    const key = c.req.header('x-api-key');
    if (key !== undefined && keys.size > 0 && !keys.has(key)) {
      return c.json({ code: 401, message: 'Unauthorized' }, 401);
    }
    const tier: SimTier = key === undefined ? (keys.size > 0 ? 'keyless' : options.tier) : (keys.get(key) ?? options.tier);
    if (!CONTENT_TIERS.has(tier) && CONTENT_PATH.test(c.req.path)) {
      return c.json({ code: 403, message: 'API key does not have access to this endpoint' }, 403);
    }
    if (tier === 'off') return next();
    const caller = key === undefined ? `ip:${c.env.incoming.socket.remoteAddress ?? 'unknown'}` : `key:${key}`;
    const dynamic = tier === 'ultra' && SWAP_INTERFACE_PATH.test(c.req.path);
    const limit = dynamic ? ULTRA_BASE_REQUESTS + ultraAddedQuota(volumes.quotaVolume(caller, simNow())) : RPM[tier === 'ultra' ? 'free' : tier];
    const state = dynamic ? window.hit(`${caller}:ultra`, limit, now(), ULTRA_WINDOW_MS) : window.hit(caller, limit, now());
    options.counters?.count(`${tier}/${dynamic ? 'swap' : 'all'}`, state.allowed);
    const headers: Record<string, string> = {
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-current': String(state.current),
      'x-ratelimit-reset': String(state.resetSeconds),
      ...(dynamic ? { 'x-ratelimit-limit': String(limit) } : {}),
    };
    if (!state.allowed) {
      for (const [k, v] of Object.entries(headers)) c.header(k, v);
      return c.json({ code: 429, message: '[API Gateway] Too many requests' }, 429);
    }
    await next();
    const usd = executed.get(c.req.raw);
    if (usd !== undefined) volumes.add(caller, simNow(), usd);
    if (c.res.status === 200) for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}
