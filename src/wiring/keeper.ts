import type { KeeperConfig } from '../config/load.js';
import { VenueReader } from '../execution/venueReader.js';
import type { JupiterClient } from '../jupiter/client.js';
import { KeeperJobs, keeperSettings } from '../keeper/index.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperQueues } from '../scheduler/queues.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { KeeperStorage } from './storage.js';

/**
 * The keeper jobs (claims, venue reconciliation, stale orders, sweep, cancel-resting) of the wallet `wallet`: the
 * venue read through the client and the chain, their ledger and state in Redis, the kill switch, the execute queue,
 * and the config's intent deadline and stale-order age.
 */
export function keeperJobs(config: KeeperConfig, p: { jup: JupiterClient; rpc: SolanaRpc; wallet: string; store: KeeperStorage; queues: KeeperQueues; logger: Logger }): KeeperJobs {
  const { store, queues } = p;
  return new KeeperJobs({
    venue: new VenueReader(p.jup, p.rpc, p.wallet),
    ledger: store.keeper,
    state: store.keeper,
    killSwitch: { read: () => store.killSwitch.read(), finishCancelResting: (requestedAt, at) => store.killSwitch.finishCancelResting(requestedAt, at) },
    enqueue: (intentId) => queues.enqueueIntent(intentId),
    settings: keeperSettings({ deadlineMs: config.execution.deadline, staleOrderAgeMs: config.keeper.staleOrderAge }),
    logger: p.logger.child({ component: 'keeper' }),
    now: Date.now,
  });
}
