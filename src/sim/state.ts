import { Venue, type VenueOptions } from './venue.js';
import { UltraDesk } from './products/ultra.js';
import { SwapDesk } from './products/swap.js';
import { EscrowBook } from './products/escrow.js';
import { SendDesk } from './products/send.js';
import { RecurringDesk } from './products/recurring.js';
import { RecurringKeeper } from './products/recurringKeeper.js';
import { TriggerDesk } from './products/trigger.js';
import { LendDesk } from './products/lend.js';
import { PredictionDesk } from './products/prediction.js';

/**
 * Everything the simulator holds that a reset throws away: the venue and each product's books. Route handlers read
 * it through the context at request time, so a reset swaps it whole.
 */
export interface SimState {
  venue: Venue;
  ultra: UltraDesk;
  swap: SwapDesk;
  /** Escrows of the products that hold the user's funds (trigger, recurring, lend, send, prediction). */
  escrows: EscrowBook;
  /** Send invites (craft-send, clawback, claims, expiry). */
  send: SendDesk;
  /** Recurring (DCA) orders; their keeper fills a slice each interval. */
  recurring: RecurringDesk;
  /** Trigger (limit) orders; the desk registers their keeper (fills as prices cross, expiries). */
  trigger: TriggerDesk;
  /** Lend Earn markets (jlTokens, vaults); its keeper pays interest into the vaults as time passes. */
  lend: LendDesk;
  /** Prediction markets of both providers, orders, positions and claims; the desk registers their keeper. */
  prediction: PredictionDesk;
}

/** Builds a fresh simulator state. */
export function createSimState(options: VenueOptions): SimState {
  const venue = new Venue(options);
  const escrows = new EscrowBook(venue);
  const recurring = new RecurringDesk(venue, escrows);
  venue.registerKeeper(new RecurringKeeper(venue, escrows, recurring.book));
  return { venue, ultra: new UltraDesk(venue), swap: new SwapDesk(venue), escrows, send: new SendDesk(venue, escrows), recurring, trigger: new TriggerDesk(venue, escrows), lend: lendDesk(venue, escrows), prediction: new PredictionDesk(venue, escrows) };
}

/** The Earn desk, registered as a keeper of the venue (interest paid into the vaults as the clock moves). */
function lendDesk(venue: Venue, escrows: EscrowBook): LendDesk {
  const lend = new LendDesk(venue, escrows);
  venue.registerKeeper(lend);
  return lend;
}
