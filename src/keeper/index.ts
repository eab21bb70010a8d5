// The keeper jobs: claims, venue reconciliation, stale-order closing, escrow sweep, the kill switch's cancels.
export { KeeperJobError, KeeperJobs } from './jobs.js';
export { keeperSettings, type KeeperDeps, type KeeperJobResult, type KeeperSettings } from './deps.js';
export { GUARD_REFUSED, keeperIntentId, LYING_VENUE_REFUSALS, MAX_GENERATIONS, recordKeeperIntent, type RecordedIntent } from './intents.js';
export { claimWinnings } from './claims.js';
export { reconcileVenue } from './venueReconcile.js';
export { closeStaleOrders } from './staleOrders.js';
export { sweepEscrows } from './sweep.js';
export { cancelResting } from './cancelResting.js';
