import { createHash } from 'node:crypto';
import { Rng } from '../rng.js';
import type { SimClock } from '../clock.js';
import { PRICE_TICK_MS, type PriceBook } from '../market/prices.js';
import type { SimToken } from '../catalog.js';
import { BACKFILL_MS, FIRST_WINDOW_DELAY_MS, STORY_INTERVAL_MS, storyAt, strikeProbability, WINDOW_LEAD_MS, WINDOW_MS, windowAt, type Question, type Story } from './predictionStories.js';

/** The two outside liquidity providers the prediction API aggregates (`provider` query; polymarket is the default). */
export const PROVIDERS = ['polymarket', 'kalshi'] as const;
/** A liquidity provider. */
export type ProviderId = (typeof PROVIDERS)[number];

/** Simulated ms between two steps of the order book: its depth renews each step. */
export const PRICE_STEP_MS = 5_000;
/** Simulated ms between two points of the probability walks (read in between by linear interpolation). */
const WALK_STEP_MS = 60_000;
/** Half the quoted spread, in cents: each side is quoted at least a cent away from the provider's mid. */
const HALF_SPREAD = 0.01;
/** Daily standard deviation of a question's latent log-odds. */
const LATENT_DAILY_VOL = 0.6;
/** Stationary standard deviation of a provider's own deviation from the latent log-odds, and its mean-reversion time. */
const PROVIDER_SD = 0.06;
const PROVIDER_REVERSION_MS = 10 * 60_000;
/** Levels of the order book on each side. */
const BOOK_LEVELS = 5;
/** Micro-USD per cent. */
const CENT = 10_000n;

/**
 * A seeded walk on the one-minute grid: its value at grid point `index` and the next, drawn one after the other
 * from its own stream (so the same seed gives the same path whenever it is read), read in between linearly.
 */
interface Walk {
  rng: Rng;
  index: number;
  at: number;
  next: number;
}

/** A question's probability (log-odds), shared by both providers' markets of it, and its result once resolved. */
interface Latent {
  walk: Walk;
  result: 'yes' | 'no' | null;
  resolvedAtMs: number | null;
  /** The question's market on each provider. */
  markets: SimMarket[];
}

/** One provider's listing of a question. Prices are the provider's own walk around the shared latent. */
export interface SimMarket {
  marketId: string;
  eventId: string;
  provider: ProviderId;
  story: Story;
  question: Question;
  status: 'open' | 'closed';
  /** Trading volume from the venue's own fills, micro-USD. */
  tradedMicroUsd: bigint;
  latent: Latent;
  /** The provider's own deviation from the latent log-odds. */
  deviation: Walk;
  /** Contracts (micro) taken from each book level during the current step, by `side:action:cents`. */
  consumed: { step: number; taken: Map<string, bigint> };
}

/** One provider's listing of a story. */
export interface SimEvent {
  eventId: string;
  provider: ProviderId;
  story: Story;
  markets: SimMarket[];
}

/** Quotes of a market, micro-USD per contract; null when the side is not quoted (closed, or at the edge). */
export interface Quote {
  buyYes: bigint | null;
  sellYes: bigint | null;
  buyNo: bigint | null;
  sellNo: bigint | null;
}

/** One level of the book a taker meets: price in micro-USD per contract, contracts in micro-contracts. */
export interface Level {
  price: bigint;
  contracts: bigint;
}

/**
 * The prediction markets of the venue: stories open on a fixed schedule (about four an hour, every category coming
 * round), each listed by both providers under their own ids with the same questions. A question's probability is a
 * seeded walk (crypto questions follow the venue's own token prices to their strike); each provider quotes its own
 * walk around it, so the same question is sometimes priced apart on the two. Besides the stories, both providers list
 * SOL's 5-minute up-or-down windows back to back, each some minutes before it starts. Markets close at their close
 * time and resolve at once; `resolve` settles one early. The same seed gives the same stories and prices.
 */
export class MarketBook {
  private readonly events = new Map<string, SimEvent>();
  private readonly markets = new Map<string, SimMarket>();
  /** Markets still open, checked for their close on every advance. */
  private readonly open = new Set<SimMarket>();
  private readonly epochMs: number;
  /** The walks' grid point at the venue's start: stories opened before it start their walks there. */
  private readonly originGrid: number;
  private nextIndex = 0;
  /** Start of the up-or-down windows' schedule: window `i` starts `i` windows after it (window 4032, the first, soon after the venue). */
  private readonly windowEpochMs: number;
  /** The next window to list, from the first: none runs before it. */
  private nextWindow = BACKFILL_MS / WINDOW_MS;
  /** Up-or-down windows listed that have not started: their price to beat is not known yet. */
  private readonly unstarted = new Set<Story>();

  constructor(
    private readonly seed: number,
    private readonly clock: SimClock,
    private readonly prices: PriceBook,
    private readonly tokens: (symbol: string) => SimToken | undefined,
  ) {
    const now = clock.now();
    this.epochMs = Math.floor(now / STORY_INTERVAL_MS) * STORY_INTERVAL_MS - BACKFILL_MS;
    // The windows run back to back from shortly after the venue's start (a live venue's sit on the clock's 5-minute
    // marks): whenever a paper run starts, the first window is listed, not begun, and settles at the same time after.
    this.windowEpochMs = now + FIRST_WINDOW_DELAY_MS - BACKFILL_MS;
    this.originGrid = Math.floor(this.gridAt(now));
  }

  /** Opens the stories due by now and closes (and resolves) the markets past their close; returns those resolved. */
  advance(): SimMarket[] {
    const now = this.clock.now();
    while (this.epochMs + this.nextIndex * STORY_INTERVAL_MS <= now) this.list(this.nextIndex++, now);
    while (this.windowEpochMs + this.nextWindow * WINDOW_MS - WINDOW_LEAD_MS <= now) this.listWindow(this.nextWindow++, now);
    for (const w of this.unstarted) if (w.beginMs !== null && w.beginMs <= now) this.start(w, now);
    const resolved: SimMarket[] = [];
    for (const m of this.open) {
      if (m.status === 'open' && m.story.closeMs <= now) resolved.push(...this.settle(m, this.naturalResult(m)));
    }
    return resolved;
  }

  /** Resolves a market (and its twin on the other provider) now; returns the markets resolved. */
  resolve(marketId: string, result: 'yes' | 'no'): SimMarket[] {
    const m = this.markets.get(marketId);
    if (!m) return [];
    return m.status === 'open' ? this.settle(m, result) : [];
  }

  market(marketId: string): SimMarket | undefined {
    return this.markets.get(marketId);
  }

  event(eventId: string): SimEvent | undefined {
    return this.events.get(eventId);
  }

  /** Every event of a provider, in schedule order. */
  eventsOf(provider: ProviderId): SimEvent[] {
    return [...this.events.values()].filter((e) => e.provider === provider);
  }

  /** Whether a market takes orders now. */
  tradable(m: SimMarket): boolean {
    return m.status === 'open' && m.story.closeMs > this.clock.now();
  }

  /** A market's quotes now. */
  quote(m: SimMarket): Quote {
    if (!this.tradable(m)) return { buyYes: null, sellYes: null, buyNo: null, sellNo: null };
    const mid = this.mid(m);
    const askYes = Math.ceil((mid + HALF_SPREAD) * 100 - 1e-9);
    const bidYes = Math.floor((mid - HALF_SPREAD) * 100 + 1e-9);
    const cents = (c: number) => (c >= 1 && c <= 99 ? BigInt(c) * CENT : null);
    return { buyYes: cents(askYes), sellYes: cents(bidYes), buyNo: cents(100 - bidYes), sellNo: cents(100 - askYes) };
  }

  /**
   * The levels a taker meets, best first. The book is two sides of resting bids, YES and NO: a buy of YES takes the
   * NO bids (at 1 - their price) and a sell of NO hits the same NO bids; a buy of NO and a sell of YES meet the YES
   * bids. Depth renews every price step; what fills took this step is gone for both who meet it.
   */
  levels(m: SimMarket, isYes: boolean, isBuy: boolean): Level[] {
    const q = this.quote(m);
    const top = isBuy ? (isYes ? q.buyYes : q.buyNo) : isYes ? q.sellYes : q.sellNo;
    if (top === null) return [];
    const step = this.stepAt(this.clock.now());
    const out: Level[] = [];
    for (let i = 0; i < BOOK_LEVELS; i += 1) {
      const price = isBuy ? top + BigInt(i) * CENT : top - BigInt(i) * CENT;
      if (price < CENT || price > 99n * CENT) break;
      const size = this.depth(m, step, restingSide(isYes, isBuy), i) - this.taken(m, step, restingKey(isYes, isBuy, price));
      if (size > 0n) out.push({ price, contracts: size });
    }
    return out;
  }

  /** Records contracts taken at a level this step (a fill), and the traded volume. */
  take(m: SimMarket, isYes: boolean, isBuy: boolean, level: Level, contracts: bigint): void {
    const step = this.stepAt(this.clock.now());
    const key = restingKey(isYes, isBuy, level.price);
    m.consumed.taken.set(key, this.taken(m, step, key) + contracts);
    m.tradedMicroUsd += (contracts * level.price) / 1_000_000n;
  }

  /** Total volume of a market, micro-USD: the provider's own flow since it opened plus the venue's fills. */
  volume(m: SimMarket, windowMs = Infinity): bigint {
    const now = this.clock.now();
    const hours = Math.max(0, Math.min(windowMs, Math.min(now, m.story.closeMs) - m.story.openMs)) / 3_600_000;
    return BigInt(Math.floor(hours * m.story.activity * 2_500 * 1e6)) + m.tradedMicroUsd;
  }

  private list(index: number, now: number): void {
    // A story that closed before anyone could read it open (before the venue started, or within one jump of the
    // clock) is never listed: nobody could have traded it. Its times do not depend on prices: no price is read.
    if (storyAt(this.seed, this.epochMs, index, () => 1).closeMs <= now) return;
    // A crypto story's strikes are set around the price when it opened (minute resolution: the same at any replay).
    const openedAgo = Math.max(0, now - (this.epochMs + index * STORY_INTERVAL_MS));
    const usd = (symbol: string) => {
      const token = this.tokens(symbol);
      return token ? this.prices.usdAgo(token.mint, openedAgo) : undefined;
    };
    const story = storyAt(this.seed, this.epochMs, index, usd);
    this.add(story, `prediction:latent:${index}`, (provider) => eventIdOf(provider, story), (provider, i) => marketIdOf(provider, story, i), now);
  }

  /** Lists the up-or-down window at `index` on both providers, unless it closed before it could be read. */
  private listWindow(index: number, now: number): void {
    const story = windowAt(this.windowEpochMs, index);
    if (story.closeMs <= now) return;
    this.add(story, `prediction:window:${index}`, (provider) => windowEventIdOf(provider, index), (provider) => windowMarketIdOf(provider, index), now);
    this.unstarted.add(story);
  }

  /**
   * Sets the price to beat of a window that started: the price at its start, to the minute as a crypto story's
   * strikes (the same whenever it is read, even after a jump of the clock past the start or the close).
   */
  private start(window: Story, now: number): void {
    this.unstarted.delete(window);
    for (const q of window.questions) {
      const token = q.upDown ? this.tokens(q.upDown.symbol) : undefined;
      const usd = token ? this.prices.usdAgo(token.mint, Math.max(0, now - window.beginMs!)) : undefined;
      if (q.upDown && usd !== undefined) q.strike = { symbol: q.upDown.symbol, usd };
    }
  }

  /** Lists a story's questions on both providers, with the walks named by `latentKey` and the ids given. */
  private add(story: Story, latentKey: string, eventIdFor: (provider: ProviderId) => string, marketIdFor: (provider: ProviderId, i: number) => string, now: number): void {
    // The walks start when the story opens (whenever it is first read), or at the venue's start for older stories.
    const grid = Math.max(this.originGrid, Math.floor(this.gridAt(story.openMs)));
    const latents = story.questions.map((q, i): Latent => ({ walk: newWalk(new Rng(this.seed, `${latentKey}:${i}`), grid, logit(q.p0), latentStep), result: null, resolvedAtMs: null, markets: [] }));
    for (const provider of PROVIDERS) {
      const eventId = eventIdFor(provider);
      const event: SimEvent = { eventId, provider, story, markets: [] };
      story.questions.forEach((question, i) => {
        const marketId = marketIdFor(provider, i);
        const rng = new Rng(this.seed, `prediction:deviation:${marketId}`);
        const d0 = rng.normal() * PROVIDER_SD;
        const m: SimMarket = {
          marketId,
          eventId,
          provider,
          story,
          question,
          status: 'open',
          tradedMicroUsd: 0n,
          latent: latents[i]!,
          deviation: newWalk(rng, grid, d0, deviationStep),
          consumed: { step: this.stepAt(now), taken: new Map() },
        };
        event.markets.push(m);
        m.latent.markets.push(m);
        this.markets.set(marketId, m);
        this.open.add(m);
      });
      this.events.set(eventId, event);
    }
  }

  /** Closes a question's markets on both providers with its result. */
  private settle(m: SimMarket, result: 'yes' | 'no'): SimMarket[] {
    m.latent.result = result;
    m.latent.resolvedAtMs = this.clock.now();
    const twins = m.latent.markets.filter((x) => x.status === 'open');
    for (const x of twins) {
      x.status = 'closed';
      this.open.delete(x);
    }
    return twins;
  }

  /** A question's result at its close: a crypto strike against the venue's price, otherwise a draw at its probability. */
  private naturalResult(m: SimMarket): 'yes' | 'no' {
    if (m.latent.result) return m.latent.result;
    const strike = m.question.strike;
    if (strike) {
      const token = this.tokens(strike.symbol);
      // The price at the close: the current one when the close falls in the current price tick (the keeper runs at
      // once), else the price book's history (to the minute) after a jump of the clock.
      const late = Math.max(0, this.clock.now() - m.story.closeMs);
      const atClose = token ? (late < PRICE_TICK_MS ? this.prices.usd(token.mint) : this.prices.usdAgo(token.mint, late)) : undefined;
      return (atClose ?? 0) > strike.usd ? 'yes' : 'no';
    }
    const draw = new Rng(this.seed, `prediction:result:${m.story.index}:${m.question.title}`).next();
    // Its probability when it closed (not later: a market resolved after a jump of the clock is not walked past it).
    return draw < sigmoid(walkAt(m.latent.walk, this.gridAt(Math.min(this.clock.now(), m.story.closeMs)), latentStep)) ? 'yes' : 'no';
  }

  /** The question's probability now (before the provider's own deviation). */
  private probability(m: SimMarket): number {
    const strike = m.question.strike;
    if (strike) {
      const token = this.tokens(strike.symbol);
      const spot = token ? this.prices.usd(token.mint) : undefined;
      if (token && spot !== undefined) return strikeProbability(spot, strike.usd, token.dailyVol, m.story.closeMs - this.clock.now());
    }
    return sigmoid(walkAt(m.latent.walk, this.gridAt(this.clock.now()), latentStep));
  }

  /** The provider's mid now: the question's probability moved by the provider's own mean-reverting deviation. */
  private mid(m: SimMarket): number {
    const p = clamp(this.probability(m), 0.005, 0.995);
    return sigmoid(logit(p) + walkAt(m.deviation, this.gridAt(this.clock.now()), deviationStep));
  }

  /** Size of a level of resting bids (micro-contracts) at a step: seeded by market, step, side and level, larger for busy stories. */
  private depth(m: SimMarket, step: number, side: 'yes' | 'no', level: number): bigint {
    const h = createHash('sha256').update(`${this.seed}:${m.marketId}:${step}:${side}:${level}`).digest();
    const contracts = Math.floor((50 + (h.readUInt32LE(0) % 2_000)) * Math.min(4, Math.max(0.25, m.story.activity)));
    return BigInt(contracts) * 1_000_000n;
  }

  private taken(m: SimMarket, step: number, key: string): bigint {
    if (m.consumed.step !== step) m.consumed = { step, taken: new Map() };
    return m.consumed.taken.get(key) ?? 0n;
  }

  /** Position on the walks' grid (fractional). */
  private gridAt(ms: number): number {
    return (ms - this.epochMs) / WALK_STEP_MS;
  }

  private stepAt(ms: number): number {
    return Math.floor((ms - this.epochMs) / PRICE_STEP_MS);
  }
}

/** The side of resting bids a taker meets: YES buys and NO sells meet the NO bids, the others the YES bids. */
function restingSide(isYes: boolean, isBuy: boolean): 'yes' | 'no' {
  return isYes === isBuy ? 'no' : 'yes';
}

/** The key of a resting bid level, by its side and its own price (a buyer's price is 1 - the bid). */
function restingKey(isYes: boolean, isBuy: boolean, price: bigint): string {
  return `${restingSide(isYes, isBuy)}:${isBuy ? 1_000_000n - price : price}`;
}

/** One step of a question's log-odds: a random walk with the daily volatility, kept off the extremes. */
function latentStep(x: number, rng: Rng): number {
  return clamp(x + LATENT_DAILY_VOL * Math.sqrt(WALK_STEP_MS / 86_400_000) * rng.normal(), -6, 6);
}

/** One step of a provider's deviation: mean-reverting (Ornstein-Uhlenbeck) around 0 with its stationary spread. */
function deviationStep(d: number, rng: Rng): number {
  const a = Math.exp(-WALK_STEP_MS / PROVIDER_REVERSION_MS);
  return a * d + PROVIDER_SD * Math.sqrt(1 - a * a) * rng.normal();
}

function newWalk(rng: Rng, index: number, start: number, step: (x: number, rng: Rng) => number): Walk {
  return { rng, index, at: start, next: step(start, rng) };
}

/** A walk's value at a grid position: stepped forward to it, then read between its two grid points. */
function walkAt(w: Walk, position: number, step: (x: number, rng: Rng) => number): number {
  for (const target = Math.floor(position); w.index < target; w.index += 1) {
    w.at = w.next;
    w.next = step(w.at, w.rng);
  }
  return w.at + (w.next - w.at) * clamp(position - w.index, 0, 1);
}

/** Event ids as each provider writes them: Polymarket `POLY-351731`, Kalshi tickers like `KXF1-25`. */
function eventIdOf(provider: ProviderId, s: Story): string {
  return provider === 'polymarket' ? `POLY-${300_000 + s.index * 7}` : `KX${ticker(s.series)}-${s.index}`;
}

/** Market ids: Polymarket numbers of their own, Kalshi the event ticker and a suffix (`KXF1-25-LN`). */
function marketIdOf(provider: ProviderId, s: Story, i: number): string {
  return provider === 'polymarket' ? `POLY-${600_000 + s.index * 7 + i}` : `KX${ticker(s.series)}-${s.index}-${ticker(s.questions[i]!.title).slice(0, 3)}${i}`;
}

/** Ids of the up-or-down windows: Polymarket numbers of their own (apart from the stories'), Kalshi's KXSOL5M series. */
function windowEventIdOf(provider: ProviderId, index: number): string {
  return provider === 'polymarket' ? `POLY-${1_000_000 + index}` : `KXSOL5M-${index}`;
}

function windowMarketIdOf(provider: ProviderId, index: number): string {
  return provider === 'polymarket' ? `POLY-${2_000_000 + index}` : `KXSOL5M-${index}-UP`;
}

function ticker(text: string): string {
  return text.toUpperCase().replace(/[^A-Z0-9]/g, '').slice(0, 8);
}

function logit(p: number): number {
  return Math.log(p / (1 - p));
}

function sigmoid(x: number): number {
  return 1 / (1 + Math.exp(-x));
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}
