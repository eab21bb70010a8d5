import type { ConfiguredStrategy, KeeperConfig } from '../config/load.js';
import { formatDuration } from '../config/duration.js';
import { stringifyJson } from '../lib/amounts.js';
import type { Logger } from '../lib/logger.js';
import { publicUrl } from '../lib/urls.js';
import type { KeeperStartMeta } from '../store/presence.js';

/** Where a keeper runs: the venue's and the RPC's URLs (with their credentials: shown only through publicUrl) and its wallet. */
export interface KeeperPlace {
  venueUrl: string;
  rpcUrl: string;
  wallet: string;
}

/** What a start records in the deployment's meta hash (recordKeeperStart): `status` and the dashboard read it. */
export function keeperStartMeta(config: KeeperConfig, place: KeeperPlace, instances: readonly ConfiguredStrategy[], startedAt: number): KeeperStartMeta {
  return {
    venue: config.venue.kind,
    venueUrl: publicUrl(place.venueUrl),
    rpcUrl: publicUrl(place.rpcUrl),
    wallet: place.wallet,
    config: config.file,
    startedAt,
    strategies: instances.map((s) => ({ id: s.id, strategy: s.strategy, version: s.definition.version, schedule: s.schedule })),
  };
}

/**
 * Logs the banner, `keeper started` (src/lib/consoleFormat.ts draws it on a terminal): the role, wallet, venue, the
 * dashboard's URL (and the busy port it moved from) or null, each instance with its schedule, and the risk limits.
 */
export function logKeeperStarted(logger: Logger, o: { config: KeeperConfig; role: string; place: KeeperPlace; instances: readonly ConfiguredStrategy[]; dashboard: { url: string; busyPort: number | undefined } | undefined }): void {
  const { config, place, instances, dashboard } = o;
  logger.info({ role: o.role, wallet: place.wallet, venue: config.venue.kind, venueUrl: publicUrl(place.venueUrl), dashboard: dashboard?.url ?? null, ...(dashboard?.busyPort !== undefined ? { dashboardBusyPort: dashboard.busyPort } : {}), strategies: instances.map((s) => s.id), instances: instances.map((s) => ({ id: s.id, strategy: s.strategy, schedule: 'every' in s.schedule ? `every ${formatDuration(s.schedule.every)}` : `cron ${s.schedule.cron}${s.schedule.tz ? ` (${s.schedule.tz})` : ''}` })), limits: JSON.parse(stringifyJson(config.risk)) as unknown }, 'keeper started');
}
