import { Venue, type VenueOptions } from './venue.js';
import { UltraDesk } from './products/ultra.js';
import { SwapDesk } from './products/swap.js';
import { EscrowBook } from './products/escrow.js';
import { SendDesk } from './products/send.js';

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
}

/** Builds a fresh simulator state. */
export function createSimState(options: VenueOptions): SimState {
  const venue = new Venue(options);
  const escrows = new EscrowBook(venue);
  return { venue, ultra: new UltraDesk(venue), swap: new SwapDesk(venue), escrows, send: new SendDesk(venue, escrows) };
}
