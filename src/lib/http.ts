import http from 'node:http';
import https from 'node:https';

/** What one HTTP exchange came back with: the status, the headers and the whole body as text. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  headers: Headers;
  text: string;
}

/** One request of `httpRequest`. */
export interface HttpRequest {
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Aborts the request (and its body's reading): the promise rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
}

/** Kept-alive connections, one pool per scheme, shared by every client of the process. */
const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

/**
 * One request over node:http(s) with kept-alive connections, the body read whole. It does what the engine's API and
 * RPC clients need of fetch, at a fraction of the CPU (fetch's stream machinery costs about 0.5 ms a request here,
 * this about 0.08 ms): no redirect is ever followed (a 3xx comes back as it is), no body is decompressed (none is
 * asked for compressed), and nothing is cached. Rejects on a network failure or an abort; any status resolves.
 */
export function httpRequest(url: string, r: HttpRequest): Promise<HttpAnswer> {
  const secure = url.startsWith('https:');
  const client = secure ? https : http;
  const headers: Record<string, string | number> = { ...r.headers };
  if (r.body !== undefined) headers['content-length'] = Buffer.byteLength(r.body);
  return new Promise((resolve, reject) => {
    if (r.signal?.aborted) return reject(abortReason(r.signal));
    const req = client.request(url, { method: r.method, headers, agent: secure ? agents.https : agents.http, signal: r.signal }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: headersOf(res.headers), text: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', (err) => reject(r.signal?.aborted ? abortReason(r.signal) : err));
    req.end(r.body);
  });
}

/** node:http's header object as a WHATWG Headers (repeated headers joined as fetch joins them). */
function headersOf(raw: http.IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    out.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return out;
}

/** Why a signal aborted, as an Error (a reason given as anything else is wrapped). */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(`aborted: ${String(reason)}`, { cause: reason });
}
