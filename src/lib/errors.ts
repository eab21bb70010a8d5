/**
 * What the caller must do about an error. Every error class in jup-keeper carries one, so callers decide by
 * group, never by message text.
 * - `retry`: transient; the same call may succeed after a backoff.
 * - `wait`: the rate budget is spent; wait for the time the error names, then retry.
 * - `abandon`: this request or intent cannot succeed as asked; give up on it, keep the bot running.
 * - `halt`: the bot is misconfigured or unsafe (bad key, refused permission, corrupt state); stop and call a human.
 */
export type ErrorAction = 'retry' | 'wait' | 'abandon' | 'halt';

/** Base of every jup-keeper error: a stable `code`, the `action` the caller must take, and safe details. */
export class KeeperError extends Error {
  /** Stable machine-readable code, e.g. `JUP_HTTP_429`. Never changes meaning between releases. */
  readonly code: string;
  /** What the caller must do about it. */
  readonly action: ErrorAction;
  /** Structured, secret-free context for logs and status pages. */
  readonly details: Readonly<Record<string, unknown>>;

  constructor(
    code: string,
    action: ErrorAction,
    message: string,
    options: { details?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.action = action;
    this.details = Object.freeze({ ...(options.details ?? {}) });
  }

  /** A plain object for logs and JSON output; the stack is left out on purpose. */
  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, action: this.action, message: this.message, ...this.details };
  }
}

/** Thrown when an operation was aborted through its AbortSignal. */
export class AbortedError extends KeeperError {
  constructor(reason?: unknown) {
    super('ABORTED', 'abandon', 'the operation was aborted', { cause: reason });
  }
}

/** True for errors a retry loop may repeat: `retry` and `wait` actions. */
export function isTransient(err: unknown): boolean {
  return err instanceof KeeperError && (err.action === 'retry' || err.action === 'wait');
}
