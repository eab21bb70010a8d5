import { VENUE_PRODUCTS, type VenueOrder } from '../engine/keeperPorts.js';
import { cancelRestingKey, type CancelRestingRequest } from '../engine/killSwitch.js';
import type { IntentInput } from '../sdk/intents.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';
import { keeperIntent, MAX_GENERATIONS, recordKeeperIntent, reportLyingVenue } from './intents.js';

/**
 * Carries out the kill switch's cancel-resting request (`kill-switch on --cancel-resting`): while it stands, every
 * open trigger, recurring and prediction order of the wallet gets its cancel intent (trigger.cancel,
 * recurring.cancel, prediction.closeOrder) through the ledger and the executor. The cancels carry the request's key,
 * which lets them, and only them, through the switch that asked for them. Once the venue lists no resting order,
 * the request is marked done. Every run reads the switch first, so a request made on one machine is taken up by
 * whichever worker runs this job next. A cancel that ended without effect is followed by a fresh one at the next run
 * (see recordKeeperIntent), and a venue whose cancels keep being refused by the pre-sign guard is reported.
 */
export async function cancelResting(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'cancel-resting' });
  const request = (await d.killSwitch.read())?.cancelResting;
  if (!request) return { summary: 'no cancel-resting request', counts: { open: 0, recorded: 0 } };
  if (request.doneAt !== null) return { summary: `the cancel-resting request of ${new Date(request.requestedAt).toISOString()} is done`, counts: { open: 0, recorded: 0 } };
  const open = await d.venue.openOrders(VENUE_PRODUCTS);
  const counts = { open: open.length, recorded: 0, inFlight: 0, exhausted: 0, venueLying: 0 };
  if (open.length === 0) {
    await d.killSwitch.finishCancelResting(request.requestedAt, d.now());
    log.info({ requestedAt: request.requestedAt }, 'cancel-resting: the wallet has no open trigger, recurring or prediction order left');
    return { summary: 'no resting order left; request done', counts };
  }
  for (const o of open) {
    const made = keeperIntent(cancelOf(o, request));
    if (!made.ok) {
      log.warn({ order: o.order, product: o.product, problem: made.reason }, 'cancel-resting: the venue listed an order the keeper cannot cancel');
      continue;
    }
    const r = await recordKeeperIntent(d, `${o.order}\u0000${request.requestedAt}`, made.intent);
    if (reportLyingVenue(log, made.intent.kind, { label: `${o.product} order ${o.order}`, fields: { order: o.order, product: o.product } }, r)) counts.venueLying += 1;
    if (r.id === null) {
      counts.exhausted += 1;
      log.warn({ order: o.order, product: o.product }, `cancel-resting: ${MAX_GENERATIONS} cancels of this order ended without effect (guard refusals aside); not trying again`);
    } else if (r.created) {
      counts.recorded += 1;
      log.info({ intent: r.id, order: o.order, product: o.product }, 'cancel-resting: cancelling a resting order');
    } else counts.inFlight += 1;
  }
  const lying = counts.venueLying > 0 ? `the venue keeps lying about ${counts.venueLying} cancel(s) (guard refusals in a row); ` : '';
  return { summary: `${lying}${open.length} resting order(s): ${counts.recorded} cancel(s) recorded, ${counts.inFlight} in flight${counts.exhausted > 0 ? `, ${counts.exhausted} given up` : ''}`, counts };
}

/** The cancel of a resting order, keyed with the request it serves. */
function cancelOf(o: VenueOrder, request: CancelRestingRequest): IntentInput {
  const common = { key: cancelRestingKey(request), reason: 'kill switch: cancel resting orders' };
  switch (o.product) {
    case 'trigger':
      return { kind: 'trigger.cancel', order: o.order, ...common };
    case 'recurring':
      return { kind: 'recurring.cancel', order: o.order, ...common };
    case 'prediction':
      return { kind: 'prediction.closeOrder', orderPubkey: o.order, ...common };
  }
}
