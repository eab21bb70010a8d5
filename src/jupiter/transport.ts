import type { z } from 'zod';
import { AbortedError } from '../lib/errors.js';
import { silentLogger, type Logger } from '../lib/logger.js';
import { DEFAULT_RETRY, withRetry, type RetryPolicy } from '../lib/retry.js';
import { stringifyJson } from '../lib/amounts.js';
import { httpRequest, type HttpAnswer } from '../lib/http.js';
import { systemClock, type Clock } from '../lib/time.js';
import {
  BadRequestError,
  JupiterError,
  ForbiddenError,
  NetworkError,
  NotFoundError,
  RateLimitError,
  SchemaError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  type SchemaIssue,
} from './errors.js';
import { RateBudget, budgetId, parseRateHeaders, waitAfterExhaustion, type BucketStore, type RateTier } from './rateBudget.js';

/** The keyed base URL of the Jupiter API. */
export const JUPITER_BASE_URL = 'https://api.jup.ag';
/** The public keyless base URL (legacy; same paths, lower limits). */
export const JUPITER_LITE_BASE_URL = 'https://lite-api.jup.ag';

/** Settings of a Jupiter client. */
export interface JupiterClientConfig {
  /** Origin of the API, e.g. `https://api.jup.ag` or a simulator's `http://127.0.0.1:8899`. */
  baseUrl: string;
  /** Sent as `x-api-key`, only to `keyedBaseUrl`'s origin; never logged, never placed in an error. */
  apiKey?: string | undefined;
  /**
   * The only origin the API key is sent to (default: `baseUrl`, the caller's explicit choice). The keeper passes
   * its configured `api.keyedBaseUrl`, so a venue at any other address (a simulator, a mistyped URL) gets no key.
   */
  keyedBaseUrl?: string | undefined;
  /** Rate tier; defaults to `free` with a key and `keyless` without. `ultra` learns its swap limit from the headers. */
  tier?: RateTier | undefined;
  /** Requests per minute for the `custom` tier. */
  customRequestsPerMinute?: number | undefined;
  /** Per-request timeout in ms (default 15 s). */
  timeoutMs?: number | undefined;
  /** Backoff of transient failures; execute endpoints are never retried. */
  retry?: RetryPolicy | undefined;
  /**
   * Where the rate bucket lives (process memory by default; Redis for a fleet of workers and keepers). The bucket
   * is named by a hash of the API key (keyless: of the origin), so every client of one key shares it.
   */
  bucketStore?: BucketStore | undefined;
  logger?: Logger | undefined;
  /** Told of every response (its endpoint, HTTP status and time in ms): the dashboard's request and 429 metrics. Must not throw. */
  onResponse?: ((r: { endpoint: string; status: number; ms: number }) => void) | undefined;
  /** Replaces the transport's own HTTP (node:http with kept-alive connections), e.g. a test's fetch. */
  fetch?: typeof fetch | undefined;
  clock?: Clock | undefined;
}

/** Query values; undefined and null are left out. */
export type QueryValue = string | number | boolean | bigint | undefined | null;

/** Per-call options every endpoint function accepts. */
export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/** One request, as an endpoint file describes it. */
export interface RequestSpec<S extends z.ZodType> {
  /** Logical endpoint name used in errors and logs, e.g. `ultra.order`. */
  endpoint: string;
  method: 'GET' | 'POST' | 'DELETE';
  /** Path below the base URL, e.g. `/ultra/v1/order`. */
  path: string;
  query?: Record<string, QueryValue> | undefined;
  body?: unknown;
  schema: S;
  /** False for endpoints that move money (execute): a transient failure is returned to the caller, not repeated. */
  retry?: boolean | undefined;
  /** Turns an error status into an endpoint-specific error; return undefined to use the generic one. */
  mapError?: ((status: number, body: unknown) => JupiterError | undefined) | undefined;
  signal?: AbortSignal | undefined;
}

/**
 * The HTTP layer of the Jupiter client: base URL, auth, rate budget, timeout, the one retry policy, and
 * parse-never-cast of every response. Endpoint files call `request`; nothing else talks HTTP to Jupiter.
 */
export class JupiterTransport {
  readonly baseUrl: string;
  readonly tier: RateTier;
  readonly budget: RateBudget;
  /** Whether requests carry an API key (the key itself is private): a key is set and `baseUrl` is the keyed origin. */
  readonly keyed: boolean;
  readonly #apiKey: string | undefined;
  readonly #keyedOrigin: string;
  private readonly timeoutMs: number;
  private readonly retryPolicy: RetryPolicy;
  private readonly logger: Logger;
  private readonly fetchFn: typeof fetch | undefined;
  private readonly clock: Clock;
  private readonly onResponse: JupiterClientConfig['onResponse'];

  constructor(config: JupiterClientConfig) {
    let url: URL;
    try {
      url = new URL(config.baseUrl);
    } catch {
      throw new RangeError(`baseUrl is not a valid URL: ${JSON.stringify(config.baseUrl)}`);
    }
    if (url.username || url.password) throw new RangeError('baseUrl must not carry credentials; use apiKey');
    this.baseUrl = url.toString().replace(/\/+$/, '');
    this.#keyedOrigin = originOf(config.keyedBaseUrl ?? this.baseUrl, 'keyedBaseUrl');
    // A key the base URL will never receive is not kept: it cannot leak through this transport at all.
    this.#apiKey = config.apiKey && url.origin === this.#keyedOrigin ? config.apiKey : undefined;
    this.keyed = this.#apiKey !== undefined;
    this.tier = config.tier ?? (this.keyed ? 'free' : 'keyless');
    this.clock = config.clock ?? systemClock;
    this.budget = new RateBudget({
      keyId: budgetId(this.#apiKey, url.origin),
      tier: this.tier,
      customRequestsPerMinute: config.customRequestsPerMinute,
      store: config.bucketStore,
      clock: this.clock,
    });
    this.timeoutMs = config.timeoutMs ?? 15_000;
    this.retryPolicy = config.retry ?? DEFAULT_RETRY;
    this.logger = config.logger ?? silentLogger;
    this.fetchFn = config.fetch;
    this.onResponse = config.onResponse;
  }

  /** Sends one request (with retries when allowed) and returns the parsed, schema-checked body. */
  async request<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    const attempt = (): Promise<z.output<S>> => this.attempt(spec);
    if (spec.retry === false) return attempt();
    return withRetry(attempt, {
      policy: this.retryPolicy,
      signal: spec.signal,
      delayHint: (err) => (err instanceof RateLimitError ? err.retryAfterMs : undefined),
      onRetry: (err, n, delayMs) =>
        this.logger.warn(
          { endpoint: spec.endpoint, attempt: n, delayMs: Math.round(delayMs), code: (err as JupiterError).code },
          'jupiter request failed, retrying',
        ),
    });
  }

  private async attempt<S extends z.ZodType>(spec: RequestSpec<S>): Promise<z.output<S>> {
    await this.budget.acquire(1, spec.signal, spec.path);
    const url = this.url(spec.path, spec.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== undefined && new URL(url).origin === this.#keyedOrigin) headers['x-api-key'] = this.#apiKey;
    let body: string | undefined;
    if (spec.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = stringifyJson(spec.body);
    }
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = spec.signal ? AbortSignal.any([spec.signal, timeout]) : timeout;
    const started = performance.now();
    let response: Pick<HttpAnswer, 'status' | 'headers' | 'text'>;
    try {
      // Never follow a redirect: it would repeat the request, x-api-key included, to wherever it points (node:http
      // never does; a given fetch is told not to).
      if (this.fetchFn) {
        const r = await this.fetchFn(url, { method: spec.method, headers, body, signal, redirect: 'manual' });
        response = { status: r.status, headers: r.headers, text: await r.text() };
      } else {
        response = await httpRequest(url, { method: spec.method, headers, body, signal });
      }
    } catch (err) {
      if (spec.signal?.aborted) throw new AbortedError(spec.signal.reason);
      if (timeout.aborted) throw new TimeoutError(spec.endpoint, this.timeoutMs, new URL(url).origin);
      throw new NetworkError(spec.endpoint, err, new URL(url).origin);
    }
    const ms = Math.round(performance.now() - started);
    this.onResponse?.({ endpoint: spec.endpoint, status: response.status, ms });
    const now = this.clock();
    const rate = parseRateHeaders(response.headers, now);
    const exhaustedWait = await this.budget.observe(rate, response.status, spec.path);
    this.logger.debug({ endpoint: spec.endpoint, method: spec.method, path: spec.path, status: response.status, ms }, 'jupiter request');

    if (response.status >= 300 && response.status < 400) throw new RedirectError(spec.endpoint, response.status, response.headers.get('location'), url);
    const text = response.text;
    const parsed = parseJson(text);
    if (response.status < 200 || response.status >= 300) {
      // A service that echoes the request (or a proxy that does) must not carry the key into an error or a log.
      const errBody = scrub(parsed.ok ? parsed.value : text, this.#apiKey);
      const mapped = spec.mapError?.(response.status, errBody);
      if (mapped) throw mapped;
      throw statusError(spec.endpoint, response.status, errBody, exhaustedWait || waitAfterExhaustion(rate, this.budget.specFor(spec.path), now));
    }
    if (!parsed.ok) {
      throw new SchemaError(spec.endpoint, [{ path: '(root)', message: `body is not JSON (${parsed.reason})` }]);
    }
    const result = spec.schema.safeParse(parsed.value);
    if (!result.success) throw new SchemaError(spec.endpoint, zodIssues(result.error));
    return result.data;
  }

  private url(path: string, query: Record<string, QueryValue> | undefined): string {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(query ?? {})) {
      if (v === undefined || v === null) continue;
      search.set(k, String(v));
    }
    const qs = search.toString();
    return `${this.baseUrl}${path}${qs ? `?${qs}` : ''}`;
  }
}

/**
 * The service answered with a redirect, which is not followed: the request carried the API key, and a redirect to
 * another origin would hand it over. A Jupiter origin does not redirect API calls, so the base URL is wrong (or a
 * proxy in front of it is): a human must look.
 */
export class RedirectError extends JupiterError {
  readonly status: number;
  constructor(endpoint: string, status: number, location: string | null, requestUrl: string) {
    const target = redirectTarget(location, requestUrl);
    super(endpoint, 'JUP_REDIRECT', 'halt', `HTTP ${status} redirect to ${target} not followed (the API key is never sent on to another address): check the base URL`, { details: { status, location: target } });
    this.status = status;
  }
}

/** Where a redirect points, as its origin only (providers put tokens in paths and queries). */
function redirectTarget(location: string | null, base: string): string {
  if (!location) return '(no Location header)';
  try {
    const u = new URL(location, base);
    return u.origin;
  } catch {
    return '(an unparseable Location header)';
  }
}

function originOf(url: string, name: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new RangeError(`${name} is not a valid URL: ${JSON.stringify(url)}`);
  }
}

function statusError(endpoint: string, status: number, body: unknown, waitMs: number): JupiterError {
  if (status === 401) return new UnauthorizedError(endpoint, body);
  if (status === 403) return new ForbiddenError(endpoint, body);
  if (status === 404) return new NotFoundError(endpoint, body);
  if (status === 429) return new RateLimitError(endpoint, body, waitMs);
  if (status >= 500) return new ServerError(endpoint, status, body);
  return new BadRequestError(endpoint, body, status);
}

type JsonResult = { ok: true; value: unknown } | { ok: false; reason: string };

function parseJson(text: string): JsonResult {
  if (text.trim() === '') return { ok: false, reason: 'empty body' };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, reason: err instanceof Error ? err.message : 'unparseable' };
  }
}

/** Replaces every occurrence of a secret inside strings of a JSON value. */
export function scrub(value: unknown, secret: string | undefined): unknown {
  if (!secret) return value;
  if (typeof value === 'string') return value.split(secret).join('[redacted]');
  if (Array.isArray(value)) return value.map((v: unknown) => scrub(v, secret));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [scrub(k, secret), scrub(v, secret)]));
  }
  return value;
}

/** Converts zod issues into path/message pairs naming each broken field. */
export function zodIssues(error: z.ZodError): SchemaIssue[] {
  return error.issues.map((issue) => ({
    path: issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)',
    message: issue.message,
  }));
}
