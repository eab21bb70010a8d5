import { isLiveOrder, type KeeperIntentRecord, type VenueFill, type VenueOrder, type VenueOrderRecord, type VenueProduct } from '../engine/keeperPorts.js';
import type { IntentKind } from '../sdk/intents.js';
import type { KeeperDeps, KeeperJobResult } from './deps.js';
import { fillRecord } from './venueFills.js';

/** Intents that open an order resting on the venue, and the product of each. */
const OPENS_ORDER: Partial<Record<IntentKind, VenueProduct>> = {
  'trigger.create': 'trigger',
  'recurring.create': 'recurring',
  'prediction.buy': 'prediction',
  'prediction.sell': 'prediction',
  'prediction.closePosition': 'prediction',
};

/**
 * Reconciles the ledger with the venue: every landed intent that opened an order (limit, recurring, prediction) is
 * tracked until the venue says its order ended, and each run writes onto the intent's record what the venue says
 * now (its order and position accounts, open / partially-filled / filled / cancelled / expired), so that an order
 * filled or cancelled behind the bot's back shows in the ledger (and in `jup-keeper intents`) within one run. New
 * landings are found by rescanning the ledger back to a lookback before the last scan; the venue is read only for
 * the products with something tracked, and its history only for orders the open listing no longer shows.
 * Every fill of an order (a limit order's partial fills, each recurring cycle, each prediction fill) is announced once:
 * a 'filled' log line with its amounts, price and fee, the console's fill line; the record keeps the signatures of
 * those announced.
 */
export async function reconcileVenue(d: KeeperDeps): Promise<KeeperJobResult> {
  const log = d.logger.child({ job: 'venue-reconcile' });
  const now = d.now();
  const cursor = await d.state.cursor();
  const kinds = Object.keys(OPENS_ORDER) as IntentKind[];
  const [tracked, fresh] = await Promise.all([d.state.tracked(), d.ledger.landedSince(cursor === null ? 0 : cursor - d.settings.lookbackMs, kinds)]);
  const trackedSet = new Set(tracked);
  const records = await d.ledger.read([...new Set([...tracked, ...fresh])]);
  await d.state.setCursor(now);

  // A tracked intent whose record is gone (removed by hand) is tracked no more.
  const read = new Set(records.map((r) => r.id));
  for (const id of tracked) if (!read.has(id)) await d.state.ended(id, now);

  const active: KeeperIntentRecord[] = [];
  for (const r of records) {
    if (!OPENS_ORDER[r.kind] || r.state !== 'landed') continue;
    const status = r.venueOrder?.status ?? null;
    if (status !== null && !isLiveOrder(status)) {
      // Ended already (a run stopped between writing the status and untracking it): finish that.
      if (trackedSet.has(r.id)) await d.state.ended(r.id, r.venueOrder?.changedAt ?? now);
      continue;
    }
    active.push(r);
  }
  await d.state.track(active.filter((r) => !trackedSet.has(r.id)).map((r) => r.id));
  if (active.length === 0) return { summary: 'no venue orders to reconcile', counts: { tracked: 0, changed: 0, ended: 0, unseen: 0, fills: 0 } };

  const found = await findOnVenue(d, active);
  const predictionFills = await readPredictionFills(d, active, found);
  const counts = { tracked: active.length, changed: 0, ended: 0, unseen: 0, fills: 0 };
  for (const r of active) {
    const product = OPENS_ORDER[r.kind]!;
    const prev = r.venueOrder;
    const o = found.get(r.id);
    const order = o?.order ?? orderOf(r);
    const position = o?.position ?? positionOf(r);
    if (!o) {
      counts.unseen += 1;
      log.debug({ intent: r.id, product, order }, 'its order is not on the venue (yet); checking again next run');
      if (!prev || prev.order !== order) await d.ledger.setVenueOrder(r.id, { product, order, position, status: prev?.status ?? null, checkedAt: now, changedAt: prev?.changedAt ?? null, ...(prev?.fills ? { fills: prev.fills } : {}) });
      continue;
    }
    const changed = prev?.status !== o.status;
    const announced = new Set(prev?.fills ?? []);
    const fresh = (o.fills ?? predictionFills.get(o.order) ?? []).filter((f) => !announced.has(f.signature));
    const fills = [...announced, ...fresh.map((f) => f.signature)];
    const rec: VenueOrderRecord = { product, order, position, status: o.status, checkedAt: now, changedAt: changed ? now : (prev?.changedAt ?? now), ...(fills.length > 0 ? { fills } : {}) };
    await d.ledger.setVenueOrder(r.id, rec);
    // Recorded first, then said: a run that stops in between does not say a fill twice.
    for (const f of fresh) {
      counts.fills += 1;
      log.info(fillRecord(r, order ?? o.order, f), 'filled');
    }
    if (changed) {
      counts.changed += 1;
      const fields = { intent: r.id, instance: r.instance, product, order, from: prev?.status ?? null, to: o.status };
      if (isLiveOrder(o.status)) log.info(fields, `venue order ${o.status}`);
      else log.info(fields, `venue order ended: ${o.status}; ledger updated`);
    }
    if (!isLiveOrder(o.status)) {
      counts.ended += 1;
      await d.state.ended(r.id, now);
    }
  }
  const summary = `${active.length} venue order(s) tracked: ${counts.changed} changed, ${counts.fills} fill(s), ${counts.ended} ended${counts.unseen > 0 ? `, ${counts.unseen} not seen yet` : ''}`;
  return { summary, counts };
}

/** The venue's view of each active record's order: open listings first, then the history of those not listed. */
async function findOnVenue(d: KeeperDeps, active: readonly KeeperIntentRecord[]): Promise<Map<string, VenueOrder>> {
  const products = [...new Set(active.map((r) => OPENS_ORDER[r.kind]!))];
  const open = await d.venue.openOrders(products);
  const found = new Map<string, VenueOrder>();
  const match = (list: readonly VenueOrder[], rs: readonly KeeperIntentRecord[]): KeeperIntentRecord[] => {
    const byOrder = new Map(list.map((o) => [o.order, o]));
    const byOpenTx = new Map(list.flatMap((o) => (o.openTx ? [[o.openTx, o] as const] : [])));
    const missing: KeeperIntentRecord[] = [];
    for (const r of rs) {
      const order = orderOf(r);
      const o = order ? byOrder.get(order) : r.signatures.map((s) => byOpenTx.get(s)).find((x) => x !== undefined);
      if (o && o.product === OPENS_ORDER[r.kind]) found.set(r.id, o);
      else missing.push(r);
    }
    return missing;
  };
  const missing = match(open, active);
  for (const product of ['trigger', 'recurring'] as const) {
    const rs = missing.filter((r) => OPENS_ORDER[r.kind] === product);
    if (rs.length === 0) continue;
    const orders = new Set(rs.map(orderOf).filter((o): o is string => o !== null));
    const sigs = new Set(rs.flatMap((r) => r.signatures));
    const ended = await d.venue.endedOrders(product, (o) => orders.has(o.order) || (o.openTx !== null && sigs.has(o.openTx)), rs.length);
    match(ended, rs);
  }
  for (const r of missing) {
    const order = orderOf(r);
    if (OPENS_ORDER[r.kind] !== 'prediction' || order === null) continue;
    const o = await d.venue.predictionOrder(order);
    if (o) found.set(r.id, { ...o, position: o.position ?? positionOf(r) });
  }
  return found;
}

/**
 * The fills of the prediction orders found filled in part or in whole, from the wallet's history (one read for them
 * all, back to the oldest of those intents); the open listing of prediction orders carries no fills.
 */
async function readPredictionFills(d: KeeperDeps, active: readonly KeeperIntentRecord[], found: ReadonlyMap<string, VenueOrder>): Promise<Map<string, VenueFill[]>> {
  const orders = new Set<string>();
  let since = Infinity;
  for (const r of active) {
    const o = found.get(r.id);
    if (!o || o.product !== 'prediction' || o.status === 'open') continue;
    orders.add(o.order);
    since = Math.min(since, r.createdAt);
  }
  return orders.size === 0 ? new Map() : d.venue.predictionFills(orders, since - HISTORY_SLACK_MS);
}

/** How far before an intent's creation its order's history is read (clocks of the keeper and the venue differ). */
const HISTORY_SLACK_MS = 10 * 60_000;

/** The order account of a record: as reconciled, else as the build reported it. */
function orderOf(r: KeeperIntentRecord): string | null {
  if (r.venueOrder?.order) return r.venueOrder.order;
  const q = r.quote?.order;
  return typeof q === 'string' && q !== '' ? q : null;
}

/** The position account of a prediction record: as reconciled, as the build reported it, or the sold one. */
function positionOf(r: KeeperIntentRecord): string | null {
  if (r.venueOrder?.position) return r.venueOrder.position;
  const q = r.quote?.position;
  if (typeof q === 'string' && q !== '') return q;
  return r.intent.kind === 'prediction.sell' || r.intent.kind === 'prediction.closePosition' ? r.intent.positionPubkey : null;
}
