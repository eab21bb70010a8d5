import type { Reply } from './common.js';
import { predictionError, type PredictionDesk } from './prediction.js';
import type { SimEvent } from './predictionMarkets.js';
import { marketResultAddress } from './predictionSeeds.js';
import type { EventsQuery, OwnerListQuery } from '../http/requests/prediction.js';
import { eventView, historyView, isLive, marketView, orderbookView, orderStatusView, orderView, positionView, type MarketResultPubkey } from './predictionViews.js';

/** Rows of a list page when the query gives no `end`. */
const PAGE = 20;
/** Events the `new` filter lists: created in the last 24 hours (DOCS prediction spec). */
const NEW_WINDOW_MS = 86_400_000;
/** Events the `trending` filter lists: the most traded in the last day. */
const TRENDING = 20;

/**
 * The read-only routes of the prediction API over a desk: events and their filters, search, markets, order book,
 * and the owner's orders, order status, positions and history, each in the service's shape and `{data, pagination}`
 * wrapper.
 */
export class PredictionQueries {
  constructor(private readonly desk: PredictionDesk) {}

  /** GET /events: a provider's active events, filtered, sorted and paged. */
  events(q: EventsQuery): Reply {
    this.desk.refresh();
    const now = this.now();
    const book = this.desk.markets;
    let events = this.active(q.provider);
    if (q.category && q.category !== 'all') events = events.filter((e) => e.story.category === q.category);
    const subs = list(q.subcategory);
    if (subs) events = events.filter((e) => subs.includes(e.story.subcategory));
    const tags = list(q.tags);
    if (tags) events = events.filter((e) => e.story.tags.some((t) => tags.includes(t.toLowerCase())));
    const volume24 = (e: SimEvent) => e.markets.reduce((s, m) => s + book.volume(m, 86_400_000), 0n);
    switch (q.filter) {
      case 'new':
        events = events.filter((e) => now - e.story.openMs <= NEW_WINDOW_MS).sort((a, b) => b.story.openMs - a.story.openMs);
        break;
      case 'live':
        events = events.filter((e) => isLive(e.story, now));
        break;
      case 'upcoming':
        events = events.filter((e) => e.story.beginMs !== null && e.story.beginMs > now);
        break;
      case 'trending':
        events = events.sort((a, b) => cmp(volume24(b), volume24(a))).slice(0, TRENDING);
        break;
    }
    if (q.sortBy === 'volume') {
      const total = (e: SimEvent) => e.markets.reduce((s, m) => s + book.volume(m), 0n);
      const dir = q.sortDirection === 'asc' ? 1 : -1;
      events = events.sort((a, b) => dir * cmp(total(a), total(b)));
    } else if (q.sortBy === 'beginAt') {
      const dir = q.sortDirection === 'desc' ? -1 : 1;
      events = events.sort((a, b) => dir * ((a.story.beginMs ?? a.story.openMs) - (b.story.beginMs ?? b.story.openMs)));
    }
    return this.page(events, q.start, q.end, (e) => eventView(book, e, now, q.includeMarkets ?? false, this.resultPubkey));
  }

  /** GET /events/search: active events whose title holds every word of the query. */
  search(query: string, limit: number | undefined, provider: EventsQuery['provider']): Reply {
    this.desk.refresh();
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const hits = this.active(provider).filter((e) => words.every((w) => `${e.story.title} ${e.story.series}`.toLowerCase().includes(w)));
    return this.page(hits, 0, limit ?? 10, (e) => eventView(this.desk.markets, e, this.now(), true, this.resultPubkey));
  }

  /** GET /events/{eventId}, with its markets unless `includeMarkets=false`. */
  event(eventId: string, includeMarkets = true): Reply {
    this.desk.refresh();
    const e = this.desk.markets.event(eventId);
    return e ? { status: 200, body: eventView(this.desk.markets, e, this.now(), includeMarkets, this.resultPubkey) } : predictionError(404, `Event not found: ${eventId}`, 'event_not_found', 'eventId');
  }

  /** GET /events/{eventId}/markets. */
  eventMarkets(eventId: string, start?: number, end?: number): Reply {
    this.desk.refresh();
    const e = this.desk.markets.event(eventId);
    if (!e) return predictionError(404, `Event not found: ${eventId}`, 'event_not_found', 'eventId');
    return this.page(e.markets, start, end, (m) => marketView(this.desk.markets, m, this.resultPubkey));
  }

  /** GET /markets/{marketId} (and /events/{eventId}/markets/{marketId}, which must agree on the event). */
  market(marketId: string, eventId?: string): Reply {
    this.desk.refresh();
    const m = this.desk.markets.market(marketId);
    if (!m || (eventId !== undefined && m.eventId !== eventId)) return predictionError(404, `Market not found: ${marketId}`, 'market_not_found', 'marketId');
    return { status: 200, body: marketView(this.desk.markets, m, this.resultPubkey) };
  }

  /** GET /orderbook/{marketId}. */
  orderbook(marketId: string): Reply {
    this.desk.refresh();
    const m = this.desk.markets.market(marketId);
    return m ? { status: 200, body: orderbookView(this.desk.markets, m) } : predictionError(404, `Market not found: ${marketId}`, 'market_not_found', 'marketId');
  }

  /** GET /orders: the owner's open orders. */
  orders(q: OwnerListQuery): Reply {
    if (!q.ownerPubkey) return predictionError(400, 'ownerPubkey is required', 'parameter_missing', 'ownerPubkey');
    this.desk.refresh();
    const mine = [...this.desk.orders.values()].filter((o) => o.phase === 'open' && o.owner.toBase58() === q.ownerPubkey).sort((a, b) => b.createdAtMs - a.createdAtMs);
    return this.page(mine, q.start, q.end, (o) => orderView(this.desk.markets, o, (m) => this.desk.marketAddress(m), this.now()));
  }

  /** GET /orders/{orderPubkey}: an open order; 400 once it has filled or closed (its account is gone). */
  order(orderPubkey: string): Reply {
    this.desk.refresh();
    const o = this.desk.orders.get(orderPubkey);
    if (!o || o.phase === 'pending') return predictionError(404, 'Order not found', 'order_not_found', 'orderPubkey');
    if (o.phase !== 'open') return predictionError(400, 'Order account not found: the order has filled or closed', 'order_closed', 'orderPubkey');
    return { status: 200, body: orderView(this.desk.markets, o, (m) => this.desk.marketAddress(m), this.now()) };
  }

  /** GET /orders/status/{orderPubkey}: its history; "no order history found" before its transaction lands. */
  orderStatus(orderPubkey: string): Reply {
    this.desk.refresh();
    const o = this.desk.orders.get(orderPubkey);
    if (!o || o.events.length === 0) return predictionError(404, 'no order history found', 'order_not_found', 'orderPubkey');
    return { status: 200, body: orderStatusView(o) };
  }

  /** GET /positions: the owner's open positions, optionally of one market and side. */
  positions(q: OwnerListQuery): Reply {
    if (!q.ownerPubkey) return predictionError(400, 'ownerPubkey is required', 'parameter_missing', 'ownerPubkey');
    this.desk.refresh();
    const mine = this.desk
      .openPositions(q.ownerPubkey)
      .filter((p) => (q.marketId === undefined || p.market.marketId === q.marketId) && (q.isYes === undefined || p.isYes === q.isYes) && (q.marketPubkey === undefined || this.desk.marketAddress(p.market) === q.marketPubkey))
      .sort((a, b) => b.openedAtMs - a.openedAtMs);
    return this.page(mine, q.start, q.end, (p) => positionView(this.desk.markets, p, (m) => this.desk.marketAddress(m), this.now()));
  }

  /** GET /positions/{positionPubkey}: any position the owner ever opened, closed ones too. */
  position(positionPubkey: string): Reply {
    this.desk.refresh();
    const p = this.desk.positions.get(positionPubkey);
    if (!p || !p.opened) return predictionError(404, 'Position not found', 'position_not_found', 'positionPubkey');
    return { status: 200, body: positionView(this.desk.markets, p, (m) => this.desk.marketAddress(m), this.now()) };
  }

  /** GET /history: the owner's (or a position's, or one row by id) history, newest first. */
  history(q: OwnerListQuery): Reply {
    if (!q.ownerPubkey && !q.positionPubkey && q.id === undefined) return predictionError(400, 'give ownerPubkey, positionPubkey or id', 'parameter_missing', 'ownerPubkey');
    this.desk.refresh();
    const rows = this.desk.history
      .filter((r) => (q.ownerPubkey === undefined || r.position.owner.toBase58() === q.ownerPubkey) && (q.positionPubkey === undefined || r.position.address === q.positionPubkey) && (q.id === undefined || r.id === q.id))
      .reverse();
    const keeper = this.desk.venue.keeper.publicKey.toBase58();
    return this.page(rows, q.start, q.end, (r) => historyView(this.desk.markets, r, keeper, this.now()));
  }

  /** A settled market's result account (the keeper writes it when it settles the market), once it is on chain. */
  private readonly resultPubkey: MarketResultPubkey = (m) => {
    if (m.status !== 'closed') return null;
    const { address } = marketResultAddress(m.marketId);
    return this.desk.venue.chain.account(address) ? address.toBase58() : null;
  };

  private active(provider: EventsQuery['provider']): SimEvent[] {
    // Jupiter Forecast (`bisonfi`) is not simulated: it lists nothing.
    if (provider === 'bisonfi') return [];
    return this.desk.markets.eventsOf(provider ?? 'polymarket').filter((e) => e.markets.some((m) => this.desk.markets.tradable(m)));
  }

  private page<T>(rows: T[], start = 0, end: number | undefined, view: (row: T) => unknown): Reply {
    if (end !== undefined && end < start) return predictionError(400, `end (${end}) must not be before start (${start})`, 'parameter_invalid', 'end');
    const stop = Math.min(rows.length, end ?? start + PAGE);
    return { status: 200, body: { data: rows.slice(start, stop).map(view), pagination: { start, end: Math.max(start, stop), total: rows.length, hasNext: stop < rows.length } } };
  }

  private now(): number {
    return this.desk.venue.clock.now();
  }
}

function list(v: string | undefined): string[] | undefined {
  const items = v?.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  return items && items.length > 0 ? items : undefined;
}

function cmp(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
