import { KEEPER_INSTANCE } from '../engine/keeperPorts.js';
import { killSwitchVerdictFor } from '../engine/killSwitch.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';
import { keeperIntent, MAX_GENERATIONS, recordKeeperIntent, reportLyingVenue } from './intents.js';

/**
 * Closes prediction orders left resting past `keeper.staleOrderAge`: for each of the wallet's open prediction
 * orders older than that, a `prediction.closeOrder` intent (id derived from the order) is recorded and handed to
 * the executor, which refunds what the order's escrow still holds. A close that ended without effect is followed by
 * a fresh one at the next run (see recordKeeperIntent), and a venue whose closes keep being refused by the pre-sign
 * guard is reported. Nothing is recorded while the kill switch would refuse the close.
 */
export async function closeStaleOrders(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'stale-orders' });
  const now = d.now();
  const [orders, killSwitch] = await Promise.all([d.venue.openOrders(['prediction']), d.killSwitch.read()]);
  const stale = orders.filter((o) => o.createdAt !== null && now - o.createdAt >= d.settings.staleOrderAgeMs);
  const counts = { open: orders.length, stale: stale.length, recorded: 0, inFlight: 0, refused: 0, exhausted: 0, venueLying: 0 };
  for (const o of stale) {
    const ageS = Math.round((now - o.createdAt!) / 1000);
    const made = keeperIntent({ kind: 'prediction.closeOrder', orderPubkey: o.order, reason: `unfilled for ${ageS} s, past keeper.staleOrderAge` });
    if (!made.ok) {
      log.warn({ order: o.order, problem: made.reason }, 'the venue listed an order the keeper cannot close');
      continue;
    }
    const verdict = killSwitchVerdictFor(killSwitch, made.intent, KEEPER_INSTANCE);
    if (verdict) {
      counts.refused += 1;
      log.info({ order: o.order, reason: verdict.message }, 'not closing a stale order while the kill switch refuses it');
      continue;
    }
    const r = await recordKeeperIntent(d, o.order, made.intent);
    if (reportLyingVenue(log, 'prediction.closeOrder', { label: `stale order ${o.order}`, fields: { order: o.order } }, r)) counts.venueLying += 1;
    if (r.id === null) {
      counts.exhausted += 1;
      log.warn({ order: o.order }, `${MAX_GENERATIONS} closes of this stale order ended without effect (guard refusals aside); not trying again`);
    } else if (r.created) {
      counts.recorded += 1;
      log.info({ intent: r.id, order: o.order, status: o.status, ageS }, 'closing a prediction order left unfilled past keeper.staleOrderAge');
    } else counts.inFlight += 1;
  }
  const lying = counts.venueLying > 0 ? `the venue keeps lying about ${counts.venueLying} close(s) (guard refusals in a row); ` : '';
  const summary = stale.length === 0 ? `no stale order among ${orders.length} open prediction order(s)` : `${lying}${stale.length} stale: ${counts.recorded} close(s) recorded, ${counts.inFlight} in flight${counts.refused > 0 ? `, ${counts.refused} held by the kill switch` : ''}${counts.exhausted > 0 ? `, ${counts.exhausted} given up` : ''}`;
  return { summary, counts };
}
