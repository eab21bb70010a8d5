import type { KeeperLedgerPort, KeeperStatePort, VenuePort } from '../engine/keeperPorts.js';
import type { KeeperSwitchPort } from '../engine/killSwitch.js';
import type { Enqueue } from '../engine/ports.js';
import type { Logger } from '../lib/logger.js';

/** Settings of the keeper jobs (the config's `keeper` and `execution` sections). */
export interface KeeperSettings {
  /** How long a keeper intent may keep trying, ms (`execution.deadline`). */
  deadlineMs: number;
  /** A prediction order open longer than this is closed, ms (`keeper.staleOrderAge`). */
  staleOrderAgeMs: number;
  /**
   * How far behind its last scan the venue reconciliation looks again for order-opening intents that landed since,
   * ms: at least the intent deadline, so an intent created before the last scan and landed after it is not missed.
   */
  lookbackMs: number;
  /** Orders that ended this recently have their escrows checked by the sweep, ms. */
  sweepLookbackMs: number;
}

/** What every keeper job reaches the world through; main.ts wires the concrete parts. */
export interface KeeperDeps {
  venue: VenuePort;
  ledger: KeeperLedgerPort;
  state: KeeperStatePort;
  killSwitch: KeeperSwitchPort;
  /** Hands an intent to the execute queue (idempotent: the intent id is the job id). */
  enqueue: Enqueue;
  settings: KeeperSettings;
  logger: Logger;
  now: () => number;
}

/** What one run of a keeper job reports: a line for status and the log, and its numbers. */
export interface KeeperJobResult {
  summary: string;
  counts: Record<string, number>;
}

/** A week: orders that ended within it have their escrows swept. */
const SWEEP_LOOKBACK_MS = 7 * 86_400_000;
/** Beyond the intent deadline, how long a signed intent may still take to land (resubmits, confirmation). */
const LANDING_SLACK_MS = 10 * 60_000;

/** The keeper jobs' settings from the configured intent deadline and stale-order age (the rest derived). */
export function keeperSettings(o: { deadlineMs: number; staleOrderAgeMs: number }): KeeperSettings {
  return { deadlineMs: o.deadlineMs, staleOrderAgeMs: o.staleOrderAgeMs, lookbackMs: o.deadlineMs + LANDING_SLACK_MS, sweepLookbackMs: SWEEP_LOOKBACK_MS };
}
