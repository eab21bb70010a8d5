import { AbortedError, isTransient } from './errors.js';
import { sleep } from './time.js';

/** How a retry loop backs off. */
export interface RetryPolicy {
  /** Extra attempts after the first; 0 disables retries. */
  retries: number;
  /** Delay before the first retry, in ms; doubled each time. */
  baseDelayMs: number;
  /** Upper bound of one delay, in ms. */
  maxDelayMs: number;
}

/** The default policy: 3 retries at about 250 ms, 500 ms, 1 s (with jitter), never above 10 s. */
export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ retries: 3, baseDelayMs: 250, maxDelayMs: 10_000 });

/** Options of one retried call. */
export interface RetryOptions {
  policy?: RetryPolicy;
  signal?: AbortSignal;
  /** Which errors may be retried; defaults to errors whose action is `retry` or `wait`. */
  isRetryable?: (err: unknown) => boolean;
  /** A delay the error itself demands (for example from a 429's headers), in ms; overrides backoff when larger. */
  delayHint?: (err: unknown) => number | undefined;
  /** Called before each wait, for logging. */
  onRetry?: (err: unknown, attempt: number, delayMs: number) => void;
  /** Source of jitter in [0, 1); injectable for deterministic tests. */
  random?: () => number;
}

/**
 * The one retry loop of jup-keeper: exponential backoff with full jitter on transient failures only, honouring
 * any delay the error names, and stopping at once when `signal` aborts. Never wrap a call that moves money in it:
 * the intent ledger decides whether a swap is sent again.
 */
export async function withRetry<T>(fn: (attempt: number) => Promise<T>, options: RetryOptions = {}): Promise<T> {
  const policy = options.policy ?? DEFAULT_RETRY;
  const isRetryable = options.isRetryable ?? isTransient;
  const random = options.random ?? Math.random;
  for (let attempt = 0; ; attempt += 1) {
    if (options.signal?.aborted) throw new AbortedError(options.signal.reason);
    try {
      return await fn(attempt);
    } catch (err) {
      if (attempt >= policy.retries || !isRetryable(err) || options.signal?.aborted) throw err;
      const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
      const jittered = backoff / 2 + random() * (backoff / 2);
      const hint = options.delayHint?.(err);
      const delay = hint !== undefined ? Math.max(hint, jittered) : jittered;
      options.onRetry?.(err, attempt + 1, delay);
      await sleep(delay, options.signal);
    }
  }
}
