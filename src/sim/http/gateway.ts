import { randomUUID } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import type { HttpBindings } from '@hono/node-server';

/** Rate tiers of the simulated gateway (jupiter-api.md §9); `off` disables rate limiting. */
export const SIM_TIERS = ['keyless', 'free', 'developer', 'launch', 'pro', 'off'] as const;
/** A simulated gateway tier. */
export type SimTier = (typeof SIM_TIERS)[number];

const RPM: Record<Exclude<SimTier, 'off'>, number> = { keyless: 30, free: 60, developer: 600, launch: 3_000, pro: 9_000 };
const WINDOW_MS = 60_000;

/** Settings of the gateway. */
export interface GatewayOptions {
  /** Accepted API keys; when non-empty an unknown key gets 401. */
  apiKeys: readonly string[];
  tier: SimTier;
  now?: () => number;
}

/** A 60-second sliding window per caller, as the real gateway enforces. */
export class SlidingWindow {
  private readonly hits = new Map<string, number[]>();

  /** Records a hit if allowed. Returns the state after the decision. */
  hit(caller: string, limit: number, now: number): { allowed: boolean; current: number; remaining: number; resetSeconds: number } {
    const list = (this.hits.get(caller) ?? []).filter((t) => t > now - WINDOW_MS);
    const allowed = list.length < limit;
    if (allowed) list.push(now);
    this.hits.set(caller, list);
    const oldest = list[0] ?? now;
    return {
      allowed,
      current: list.length,
      remaining: limit - list.length,
      resetSeconds: Math.ceil((oldest + WINDOW_MS) / 1000),
    };
  }
}

/**
 * The API gateway in front of the simulated Jupiter paths: a request id on every response, the API key check
 * (401 for an unknown key), and the tier's rate limit with `x-ratelimit-*` headers on 200 and 429.
 */
export function gateway(options: GatewayOptions): MiddlewareHandler<{ Bindings: HttpBindings }> {
  const window = new SlidingWindow();
  const keys = new Set(options.apiKeys);
  const now = options.now ?? Date.now;
  return async (c, next) => {
    c.header('x-api-gateway-request-id', randomUUID());
    const key = c.req.header('x-api-key');
    if (key !== undefined && keys.size > 0 && !keys.has(key)) {
      return c.json({ code: 401, message: 'Unauthorized' }, 401);
    }
    if (options.tier === 'off') return next();
    const tier: Exclude<SimTier, 'off'> = key === undefined && keys.size > 0 ? 'keyless' : options.tier;
    const caller = key === undefined ? `ip:${c.env.incoming.socket.remoteAddress ?? 'unknown'}` : `key:${key}`;
    const state = window.hit(caller, RPM[tier], now());
    const headers = {
      'x-ratelimit-remaining': String(state.remaining),
      'x-ratelimit-current': String(state.current),
      'x-ratelimit-reset': String(state.resetSeconds),
    };
    if (!state.allowed) {
      for (const [k, v] of Object.entries(headers)) c.header(k, v);
      return c.json({ code: 429, message: '[API Gateway] Too many requests' }, 429);
    }
    await next();
    if (c.res.status === 200) for (const [k, v] of Object.entries(headers)) c.res.headers.set(k, v);
  };
}
