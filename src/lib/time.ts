import { AbortedError } from './errors.js';

/** Resolves after `ms` milliseconds, or rejects with AbortedError when `signal` aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.reject(new AbortedError(signal.reason));
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(new AbortedError(signal?.reason));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Source of the current time in unix milliseconds; injectable so tests and the simulator can move time. */
export type Clock = () => number;

/** The wall clock. */
export const systemClock: Clock = () => Date.now();

/**
 * Waits for a promise at most `ms`: resolves `true` when it settled in time, `false` on timeout. The timer is
 * cleared either way, so nothing is left holding the process open.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([promise.then(() => true), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
