import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request as the fixture server received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  rawBody: string;
  body: unknown;
  params: Record<string, string>;
}

/** What a fixture route answers. `raw` sends text as is (for malformed JSON); otherwise `body` is JSON-encoded. */
export interface FixtureReply {
  status?: number;
  body?: unknown;
  raw?: string;
  headers?: Record<string, string>;
  delayMs?: number;
}

type Handler = (req: RecordedRequest) => FixtureReply | Promise<FixtureReply>;

interface Route {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: Handler;
}

/**
 * A small HTTP server for client tests: routes answer canned replies and every request is recorded, so tests can
 * count requests and inspect headers over real HTTP. A test helper, not the simulator.
 */
export class FixtureServer {
  readonly requests: RecordedRequest[] = [];
  private readonly routes: Route[] = [];
  private server: Server | undefined;
  url = '';

  /** Registers (or replaces) a route. `path` may hold `:name` segments. A plain object reply is a 200 JSON body. */
  on(method: string, path: string, reply: Handler | FixtureReply): this {
    const names: string[] = [];
    const pattern = new RegExp(
      '^' +
        path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
          names.push(name);
          return '([^/]+)';
        }) +
        '$',
    );
    const handler: Handler = typeof reply === 'function' ? reply : () => reply;
    const idx = this.routes.findIndex((r) => r.method === method && r.pattern.source === pattern.source);
    const route = { method, pattern, names, handler };
    if (idx >= 0) this.routes[idx] = route;
    else this.routes.push(route);
    return this;
  }

  /** Requests to a path (and method). */
  requestsTo(path: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === path && (method === undefined || r.method === method));
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      void this.handle(req, res);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    const { port } = this.server.address() as AddressInfo;
    this.url = `http://127.0.0.1:${port}`;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const rawBody = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fixture');
    let body: unknown = undefined;
    if (rawBody) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = rawBody;
      }
    }
    const recorded: RecordedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      headers: req.headers,
      rawBody,
      body,
      params: {},
    };
    this.requests.push(recorded);
    const route = this.routes.find((r) => r.method === recorded.method && r.pattern.test(recorded.path));
    let reply: FixtureReply;
    if (!route) reply = { status: 404, body: { error: `no fixture for ${recorded.method} ${recorded.path}` } };
    else {
      const m = route.pattern.exec(recorded.path)!;
      route.names.forEach((n, i) => (recorded.params[n] = decodeURIComponent(m[i + 1] ?? '')));
      try {
        reply = await route.handler(recorded);
      } catch (err) {
        reply = { status: 500, body: { error: String(err) } };
      }
    }
    if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
    const text = reply.raw ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...(reply.headers ?? {}) });
    res.end(text);
  }
}

/** Starts a fixture server; pair with `await server.close()` in afterAll/afterEach. */
export async function startFixtureServer(): Promise<FixtureServer> {
  return new FixtureServer().start();
}
