import type { MarketBook, SimEvent, SimMarket } from './predictionMarkets.js';
import { marketIdHash } from './predictionSeeds.js';
import { contractForms, MICRO, type HistoryRow, type SimPosition, type SimPredictionOrder } from './predictionBook.js';

/**
 * The prediction API's JSON shapes (DOCS openapi-spec/prediction, jupiter-api.md §8): micro-USD amounts as
 * strings in orders, positions and history, as numbers in market pricing; times in unix seconds, except the event
 * metadata's ISO close time and a market's ISO `resolveAt`.
 */

const seconds = (ms: number) => Math.floor(ms / 1000);
const iso = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const str = (v: bigint | null) => (v === null ? null : v.toString());

/** Where the sim's artwork would be (a reserved domain: nothing is served there). */
function imageUrl(slug: string): string {
  return `https://images.jup-keeper.invalid/prediction/${slug}.png`;
}

/** The event's metadata block (also embedded in orders, positions and history). */
export function eventMetadata(e: { eventId: string; story: SimEvent['story'] }, now: number): Record<string, unknown> {
  const s = e.story;
  return { eventId: e.eventId, title: s.title, subtitle: s.subtitle, slug: s.slug, series: s.series, closeTime: iso(s.closeMs), imageUrl: imageUrl(s.slug), isLive: isLive(s, now) };
}

/** Whether a story has begun and not closed (a live game). */
export function isLive(s: SimEvent['story'], now: number): boolean {
  return s.beginMs !== null && s.beginMs <= now && now < s.closeMs;
}

/** The address of a settled market's result account on chain, or null while it has none. */
export type MarketResultPubkey = (m: SimMarket) => string | null;

/** One event, with its markets when asked. */
export function eventView(book: MarketBook, e: SimEvent, now: number, includeMarkets: boolean, resultPubkey: MarketResultPubkey): Record<string, unknown> {
  const s = e.story;
  const volume = e.markets.reduce((t, m) => t + book.volume(m), 0n);
  const volume24 = e.markets.reduce((t, m) => t + book.volume(m, 86_400_000), 0n);
  return {
    eventId: e.eventId,
    isActive: e.markets.some((m) => book.tradable(m)),
    isLive: isLive(s, now),
    category: s.category,
    subcategory: s.subcategory,
    tags: s.tags,
    metadata: eventMetadata(e, now),
    ...(includeMarkets ? { markets: e.markets.map((m) => marketView(book, m, resultPubkey)) } : {}),
    volumeUsd: volume.toString(),
    volume24hr: volume24.toString(),
    liveScore: null,
    closeCondition: `Closes at ${iso(s.closeMs)}, or once the outcome is known.`,
    beginAt: s.beginMs === null ? null : String(seconds(s.beginMs)),
    rulesPdf: '',
  };
}

/** One market, flat (the 2026 shape). */
export function marketView(book: MarketBook, m: SimMarket, resultPubkey: MarketResultPubkey): Record<string, unknown> {
  const q = book.quote(m);
  const num = (v: bigint | null) => (v === null ? null : Number(v));
  const resolvedAt = m.latent.resolvedAtMs;
  const team = m.story.category === 'sports' || m.story.category === 'esports';
  return {
    marketId: m.marketId,
    eventId: m.eventId,
    provider: m.provider,
    title: m.question.title,
    status: m.status,
    result: m.status === 'closed' ? m.latent.result : null,
    openTime: seconds(m.story.openMs),
    closeTime: seconds(m.story.closeMs),
    resolveAt: resolvedAt === null ? null : iso(resolvedAt),
    marketResultPubkey: resultPubkey(m),
    imageUrl: imageUrl(m.story.slug),
    rulesPrimary: m.question.upDown
      ? `Resolves YES (Up) if ${m.question.upDown.symbol} trades above its price at ${iso(m.story.beginMs ?? m.story.openMs)} (the price to beat${m.question.strike ? `, $${m.question.strike.usd}` : ', set then'}) at ${iso(m.story.closeMs)} on the venue's price feed; otherwise NO (Down).`
      : m.question.strike
      ? `Resolves YES if ${m.question.strike.symbol} trades above $${m.question.strike.usd} at ${iso(m.story.closeMs)} on the venue's price feed.`
      : `Resolves YES if "${m.question.title}" is the outcome of "${m.story.title}".`,
    rulesSecondary: '',
    outcomes: ['Yes', 'No'],
    marketOptions: [],
    clobTokenIds: [],
    isTeamMarket: team && m.question.title !== '' && !m.question.title.startsWith('Over'),
    team: null,
    sportsLine: null,
    sportsMarketType: team ? (m.question.title.startsWith('Over') ? 'totals' : 'moneyline') : null,
    pricing: { buyYesPriceUsd: num(q.buyYes), buyNoPriceUsd: num(q.buyNo), sellYesPriceUsd: num(q.sellYes), sellNoPriceUsd: num(q.sellNo), volume: Number(book.volume(m) / MICRO) },
  };
}

/** The short market block of orders, positions and history. */
export function marketMetadata(book: MarketBook, m: SimMarket): Record<string, unknown> {
  return {
    marketId: m.marketId,
    eventId: m.eventId,
    title: m.question.title,
    status: m.status,
    result: m.status === 'closed' ? m.latent.result : null,
    closeTime: seconds(m.story.closeMs),
    openTime: seconds(m.story.openMs),
    isTradable: book.tradable(m),
    isTeamMarket: false,
  };
}

/**
 * GET /orderbook/{marketId}: bids of each side, ascending by price, in cents and in dollars (the YES asks are the
 * NO bids seen from the other side). Sizes are contracts and may be fractional (a fill takes 0.01-contract steps).
 */
export function orderbookView(book: MarketBook, m: SimMarket): Record<string, unknown> {
  const side = (isYes: boolean) => book.levels(m, isYes, false).map((l) => ({ cents: Number(l.price / 10_000n), size: Number(l.contracts) / Number(MICRO) })).reverse();
  const yes = side(true);
  const no = side(false);
  const dollars = (ls: Array<{ cents: number; size: number }>) => ls.map((l) => [(l.cents / 100).toFixed(4), l.size]);
  return { yes: yes.map((l) => [l.cents, l.size]), no: no.map((l) => [l.cents, l.size]), yes_dollars: dollars(yes), no_dollars: dollars(no) };
}

/** The market's account address as orders and positions name it. */
export type MarketAddress = (m: SimMarket) => string;

/** An order in the shape of GET /orders (Order). */
export function orderView(book: MarketBook, o: SimPredictionOrder, marketAddress: MarketAddress, now: number): Record<string, unknown> {
  const m = o.position.market;
  const avg = o.filledContracts > 0n ? (o.costUsd * MICRO) / o.filledContracts : 0n;
  return {
    pubkey: o.address,
    owner: o.owner.toBase58(),
    ownerPubkey: o.owner.toBase58(),
    market: marketAddress(m),
    marketId: m.marketId,
    marketIdHash: marketIdHash(m.marketId),
    eventId: m.eventId,
    position: o.position.address,
    status: o.phase === 'open' || o.phase === 'pending' ? 'pending' : o.phase === 'filled' ? 'filled' : 'failed',
    isYes: o.position.isYes,
    isBuy: o.isBuy,
    createdAt: seconds(o.createdAtMs),
    updatedAt: seconds(o.updatedAtMs),
    ...contractForms(o.contracts),
    maxFillPriceUsd: o.limit.toString(),
    maxBuyPriceUsd: o.isBuy ? o.limit.toString() : null,
    minSellPriceUsd: o.isBuy ? null : o.limit.toString(),
    filledAt: o.filledAtMs === null ? 0 : seconds(o.filledAtMs),
    ...contractForms(o.filledContracts, 'filledContracts'),
    avgFillPriceUsd: avg.toString(),
    settled: o.phase !== 'open' && o.phase !== 'pending',
    orderId: o.orderId,
    sizeUsd: (o.isBuy ? o.deposit : (o.contracts * o.limit) / MICRO).toString(),
    eventMetadata: eventMetadata(m, now),
    marketMetadata: marketMetadata(book, m),
    externalOrderId: o.externalOrderId,
    bump: 255,
  };
}

/** GET /orders/status/{orderPubkey}. */
export function orderStatusView(o: SimPredictionOrder): Record<string, unknown> {
  const last = o.events[o.events.length - 1]!;
  return {
    orderPubkey: o.address,
    status: last.status,
    latestEventType: last.eventType,
    latestSignature: last.signature,
    externalOrderId: o.externalOrderId,
    orderId: o.orderId,
    history: o.events.map((e) => ({ eventType: e.eventType, status: e.status, rawStatus: e.status, timestamp: seconds(e.atMs), signature: e.signature, externalOrderId: o.externalOrderId, orderId: o.orderId })),
  };
}

/** A position (Position). Valuation and P&L are null once its market has closed. */
export function positionView(book: MarketBook, p: SimPosition, marketAddress: MarketAddress, now: number): Record<string, unknown> {
  const m = p.market;
  const q = book.quote(m);
  const bid = p.isYes ? q.sellYes : q.sellNo;
  const closed = m.status !== 'open';
  const value = closed || bid === null ? null : (p.contracts * bid) / MICRO;
  const pnl = value === null ? null : value - p.totalCostUsd;
  const pct = (x: bigint | null) => (x === null || p.totalCostUsd === 0n ? null : Number((x * 1_000_000n) / p.totalCostUsd) / 10_000);
  const won = m.latent.result !== null && (m.latent.result === 'yes') === p.isYes;
  const resolvedAt = m.latent.resolvedAtMs;
  return {
    pubkey: p.address,
    owner: p.owner.toBase58(),
    ownerPubkey: p.owner.toBase58(),
    market: marketAddress(m),
    marketId: m.marketId,
    marketIdHash: marketIdHash(m.marketId),
    isYes: p.isYes,
    ...contractForms(p.contracts),
    source: m.provider,
    maxSlippageBps: null,
    totalCostUsd: p.totalCostUsd.toString(),
    sizeUsd: p.totalCostUsd.toString(),
    valueUsd: str(value),
    avgPriceUsd: (p.contracts > 0n ? (p.totalCostUsd * MICRO) / p.contracts : 0n).toString(),
    markPriceUsd: closed ? null : str(bid),
    sellPriceUsd: closed ? null : str(bid),
    pnlUsd: str(pnl),
    pnlUsdPercent: pct(pnl),
    pnlUsdAfterFees: str(pnl === null ? null : pnl - p.feesPaidUsd),
    pnlUsdAfterFeesPercent: pct(pnl === null ? null : pnl - p.feesPaidUsd),
    openOrders: p.openOrders,
    feesPaidUsd: p.feesPaidUsd.toString(),
    realizedPnlUsd: Number(p.realizedPnlUsd),
    claimed: p.claimed,
    claimedUsd: p.claimedUsd.toString(),
    openedAt: seconds(p.openedAtMs),
    updatedAt: seconds(p.updatedAtMs),
    claimableAt: won && resolvedAt !== null ? seconds(resolvedAt) : null,
    payoutUsd: p.contracts.toString(),
    bump: 255,
    eventId: m.eventId,
    eventMetadata: eventMetadata(m, now),
    marketMetadata: marketMetadata(book, m),
    settlementDate: resolvedAt === null ? null : seconds(resolvedAt),
    claimable: won && !p.claimed && p.contracts > 0n,
  };
}

/** One row of GET /history (HistoryEvent). */
export function historyView(book: MarketBook, r: HistoryRow, keeper: string, now: number): Record<string, unknown> {
  const p = r.position;
  const o = r.order;
  const forms = (v: bigint | null, prefix: string) => (v === null ? { [prefix]: null, [`${prefix}Micro`]: null, [`${prefix}Decimal`]: null } : contractForms(v, prefix));
  return {
    id: r.id,
    eventType: r.eventType,
    signature: r.signature,
    slot: r.slot.toString(),
    timestamp: seconds(r.atMs),
    orderPubkey: o?.address ?? null,
    positionPubkey: p.address,
    marketId: p.market.marketId,
    ownerPubkey: p.owner.toBase58(),
    keeperPubkey: keeper,
    externalOrderId: o?.externalOrderId ?? null,
    orderId: o?.orderId ?? null,
    isBuy: r.isBuy,
    isYes: p.isYes,
    ...forms(r.contracts, 'contracts'),
    ...forms(r.filledContracts, 'filledContracts'),
    ...forms(r.contractsSettled, 'contractsSettled'),
    maxFillPriceUsd: o ? o.limit.toString() : null,
    avgFillPriceUsd: str(r.avgFillPriceUsd),
    maxBuyPriceUsd: o?.isBuy ? o.limit.toString() : null,
    minSellPriceUsd: o && !o.isBuy ? o.limit.toString() : null,
    depositAmountUsd: str(r.depositAmountUsd),
    totalCostUsd: str(r.totalCostUsd),
    feeUsd: str(r.feeUsd),
    grossProceedsUsd: str(r.grossProceedsUsd),
    netProceedsUsd: str(r.netProceedsUsd),
    transferAmountToken: str(r.transferAmountToken),
    realizedPnl: str(r.realizedPnl),
    realizedPnlBeforeFees: r.realizedPnl === null || r.feeUsd === null ? str(r.realizedPnl) : (r.realizedPnl + r.feeUsd).toString(),
    payoutAmountUsd: str(r.payoutAmountUsd),
    eventId: p.market.eventId,
    marketMetadata: marketMetadata(book, p.market),
    eventMetadata: eventMetadata(p.market, now),
  };
}
