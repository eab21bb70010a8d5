import { KeeperError } from '../../lib/errors.js';
import type { KeeperEvent } from '../../lib/events.js';

/** Where notifications go: one message per call, of one event or of a coalesced burst. */
export interface Sink {
  /** A name for logs: never the URL (webhook URLs and bot tokens are secrets). */
  readonly name: string;
  send(events: readonly KeeperEvent[], signal: AbortSignal): Promise<void>;
}

/**
 * A send that failed. Its message names the sink and the status or network error code, never the URL: Telegram's
 * URL holds the bot token and a Discord or webhook URL its secret. `retry`: network errors, timeouts, 5xx;
 * `wait`: 429 (with the delay the receiver asked for); `abandon`: any other answer.
 */
export class NotifyError extends KeeperError {
  constructor(sink: string, what: string, action: 'retry' | 'wait' | 'abandon', readonly retryAfterMs?: number) {
    super(`NOTIFY_${action.toUpperCase()}`, action, `${sink} notification failed: ${what}`, { details: { sink } });
  }
}

/** POSTs JSON to `url` within `timeoutMs` (and `signal`); throws NotifyError, which never carries the URL. */
export async function postJson(sink: string, url: string, body: unknown, timeoutMs: number, signal: AbortSignal): Promise<void> {
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
      redirect: 'error',
    });
  } catch (err) {
    if (signal.aborted) throw new NotifyError(sink, 'stopped', 'abandon');
    throw new NotifyError(sink, networkReason(err, timeoutMs), 'retry');
  }
  // The body is read (to free the connection) but never put in the error: a receiver may echo the URL or token.
  await res.arrayBuffer().catch(() => undefined);
  if (res.ok) return;
  if (res.status === 429) throw new NotifyError(sink, 'HTTP 429 (rate limited)', 'wait', retryAfterMs(res.headers.get('retry-after')));
  if (res.status >= 500 || res.status === 408) throw new NotifyError(sink, `HTTP ${res.status}`, 'retry');
  throw new NotifyError(sink, `HTTP ${res.status}`, 'abandon');
}

function networkReason(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `no answer within ${timeoutMs} ms`;
  const cause = err instanceof Error ? (err.cause as { code?: unknown } | undefined) : undefined;
  return typeof cause?.code === 'string' ? `network error ${cause.code}` : 'network error';
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.min(600_000, Math.max(0, seconds * 1000));
  const at = Date.parse(header);
  return Number.isFinite(at) ? Math.min(600_000, Math.max(0, at - Date.now())) : undefined;
}
