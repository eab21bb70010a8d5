import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import { KeeperError } from '../lib/errors.js';

/** Ports tried after the default one when it is in use (8788, 8789, ...), before any free port. */
export const FALLBACK_PORTS = 10;

/** A server listening, and where. */
export interface Listening {
  server: Server;
  port: number;
  /** The port asked for, when it was in use and another was taken instead. */
  busyPort: number | undefined;
}

/**
 * Listens for `app` on `host:port`. When the port is in use and was not chosen (`explicit` false: the default, which
 * another keeper on this machine may hold), the next FALLBACK_PORTS ports are tried, then any free one: the keeper
 * always has its dashboard, and says where. A chosen port in use is an error (KeeperError DASHBOARD_LISTEN, halt): a
 * health check or a proxy points at it, and a dashboard elsewhere would be missed.
 */
export async function listenDashboard(app: Hono, host: string, port: number, explicit: boolean): Promise<Listening> {
  const candidates = explicit || port === 0 ? [port] : [port, ...Array.from({ length: FALLBACK_PORTS }, (_, i) => port + 1 + i).filter((p) => p <= 65_535), 0];
  for (const candidate of candidates) {
    try {
      const server = await listenOn(app, host, candidate);
      const actual = (server.address() as AddressInfo).port;
      return { server, port: actual, busyPort: candidate === port ? undefined : port };
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'EADDRINUSE' && candidates.length > 1) continue;
      const why = code ?? (err instanceof Error ? err.message : String(err));
      const hint = code === 'EADDRINUSE' ? ' (another keeper?): choose another with --dashboard-port (0: any free one)' : '';
      throw new KeeperError('DASHBOARD_LISTEN', 'halt', `the dashboard cannot listen on ${host}:${port}: ${why}${hint}`);
    }
  }
  // Port 0 never answers EADDRINUSE: this is reached only if the system has no free port at all.
  throw new KeeperError('DASHBOARD_LISTEN', 'halt', `the dashboard cannot listen on ${host}: no free port`);
}

function listenOn(app: Hono, host: string, port: number): Promise<Server> {
  return new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port, hostname: host }, () => {
      s.off('error', reject);
      resolve(s);
    }) as Server;
    s.once('error', reject);
  });
}
