import type { MiddlewareHandler } from 'hono';

/** One HTTP request as it reached the simulator, before any route or fault saw it. */
export interface RecordedRequest {
  /** Real unix ms when it arrived. */
  at: number;
  method: string;
  /** Path with its query string, exactly as sent, e.g. `/ultra/v1/order?inputMint=...`. */
  path: string;
  /** Every header, names lower-cased. */
  headers: Record<string, string>;
  /** The raw body text ('' when none). */
  body: string;
  /** The status answered (undefined when the connection was cut before an answer). */
  status?: number;
}

/**
 * Keeps every raw request the simulator receives (`SimulatorOptions.recordRequests`), in memory, for tests that
 * check what a client sends: that no secret leaves it, how fast it retries. Covers the Jupiter paths, /rpc and
 * /__sim alike. Unbounded: for test runs only.
 */
export class RequestRecorder {
  private readonly list: RecordedRequest[] = [];

  /** Hono middleware that records the request, then lets it through. Mount it first. */
  middleware(): MiddlewareHandler {
    return async (c, next) => {
      const url = new URL(c.req.url);
      const headers: Record<string, string> = {};
      c.req.raw.headers.forEach((value, name) => {
        headers[name] = value;
      });
      // c.req.text() caches the body, so the handlers (which read it the same way) still get it.
      const body = c.req.method === 'GET' || c.req.method === 'HEAD' ? '' : await c.req.text();
      const entry: RecordedRequest = { at: Date.now(), method: c.req.method, path: `${url.pathname}${url.search}`, headers, body };
      this.list.push(entry);
      await next();
      entry.status = c.res.status;
    };
  }

  /** A copy of the requests recorded so far, oldest first. */
  requests(): RecordedRequest[] {
    return this.list.map((r) => ({ ...r, headers: { ...r.headers } }));
  }

  clear(): void {
    this.list.length = 0;
  }
}
