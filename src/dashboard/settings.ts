import { isIP } from 'node:net';
import { KeeperError } from '../lib/errors.js';

/** Where the dashboard listens by default: loopback only. */
export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
/** The dashboard's default port. */
export const DEFAULT_DASHBOARD_PORT = 8787;
/** A token shorter than this is accepted with a warning. */
export const MIN_TOKEN_LENGTH = 16;

/** The dashboard's settings, resolved from the flags, the config and DASHBOARD_TOKEN. */
export interface DashboardSettings {
  host: string;
  /** 0: any free port (the URL is logged). */
  port: number;
  /** Whether the port was chosen (flag or config): a port in use is then an error, not a warning. */
  portExplicit: boolean;
  /** DASHBOARD_TOKEN; never logged, never placed in an error. */
  token: string | undefined;
  /** How often the wallet's value is recorded for the chart, ms. */
  chartEveryMs: number;
  /** A worker heartbeat older than this is dead (the keeper writes one every few seconds), ms. */
  heartbeatStaleMs: number;
}

/** The `dashboard:` section of a config, parsed. */
export interface DashboardConfig {
  enabled: boolean;
  host?: string | undefined;
  port?: number | undefined;
  chartEvery: number;
  heartbeatStale: number;
}

/**
 * Resolves the dashboard's settings: the flags over the config over the defaults (127.0.0.1:8787). Returns
 * undefined when the config disables it and no flag asks for it. Refuses (KeeperError DASHBOARD_TOKEN, action halt)
 * an address other than loopback without DASHBOARD_TOKEN: anyone who reaches it could stop trading.
 */
export function dashboardSettings(flags: { host?: string | undefined; port?: number | undefined }, config: DashboardConfig, token: string | undefined): DashboardSettings | undefined {
  const asked = flags.host !== undefined || flags.port !== undefined;
  if (!config.enabled && !asked) return undefined;
  const host = flags.host ?? config.host ?? DEFAULT_DASHBOARD_HOST;
  const port = flags.port ?? config.port ?? DEFAULT_DASHBOARD_PORT;
  const settings = { host, port, portExplicit: flags.port !== undefined || config.port !== undefined, token: token || undefined, chartEveryMs: config.chartEvery, heartbeatStaleMs: config.heartbeatStale };
  if (!isLoopback(host) && settings.token === undefined) {
    throw new KeeperError('DASHBOARD_TOKEN', 'halt', `the dashboard would listen on ${host}, which is not a loopback address: set DASHBOARD_TOKEN (a long random string; every page and API then needs it) or listen on 127.0.0.1 (--dashboard-host)`);
  }
  return settings;
}

/** Whether a host name or address only accepts connections from this machine. */
export function isLoopback(host: string): boolean {
  const h = host.trim().toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  if (isIP(h) === 4) return h.startsWith('127.');
  if (isIP(h) === 6) return h === '::1' || /^::ffff:127\./.test(h);
  return false;
}

/** The URL of a listening dashboard (an unspecified address is shown as loopback, which reaches it too). */
export function dashboardUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host;
  return `http://${isIP(shown) === 6 ? `[${shown}]` : shown}:${port}/`;
}
