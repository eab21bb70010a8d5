import { Rng } from '../rng.js';

/** The categories the prediction API lists (besides `all`). */
export const STORY_CATEGORIES = ['crypto', 'sports', 'politics', 'esports', 'culture', 'economics', 'tech'] as const;
/** A category of events. */
export type StoryCategory = (typeof STORY_CATEGORIES)[number];

/** Simulated ms between two stories opening: about four an hour, so something new is always listed. */
export const STORY_INTERVAL_MS = 15 * 60_000;
/** How far before the simulator's start the schedule begins, so long-running stories are open at start. */
export const BACKFILL_MS = 14 * 86_400_000;

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * The categories in the order stories open: every category comes round at least once every three hours, and sports
 * and esports (which go live) and crypto (short, resolved by the venue's own prices) come round most.
 */
const ROTATION: readonly StoryCategory[] = ['sports', 'crypto', 'politics', 'esports', 'crypto', 'economics', 'sports', 'culture', 'tech', 'crypto', 'esports', 'sports'];

/** One binary question of a story: a market on each provider. */
export interface Question {
  /** The market's title ("Lakers", "Above $185", "Up"). */
  title: string;
  /**
   * Crypto questions: the token symbol and strike (USD) that resolve it, read from the venue's prices. An up-or-down
   * window's strike (its price to beat) is set when the window starts.
   */
  strike?: { symbol: string; usd: number };
  /** Up-or-down windows: YES if the token's price at the close is above its price at the start. */
  upDown?: { symbol: string };
  /** Other questions: the starting probability of YES, for the latent walk. */
  p0: number;
}

/**
 * One real-world event, listed by both providers under their own ids, with the same questions. Times are simulated
 * unix ms: trading opens at `openMs`, the event goes live at `beginMs` (a game starting; a crypto price window is
 * live from its opening; other stories are never live), trading closes and the result is known at `closeMs`.
 */
export interface Story {
  index: number;
  category: StoryCategory;
  subcategory: string;
  tags: string[];
  title: string;
  subtitle: string;
  series: string;
  slug: string;
  openMs: number;
  beginMs: number | null;
  closeMs: number;
  questions: Question[];
  /** Relative trading activity (drives volume and the `trending` filter). */
  activity: number;
}

const TEAMS = ['Lakers', 'Celtics', 'Warriors', 'Knicks', 'Arsenal', 'Chelsea', 'Real Madrid', 'Barcelona', 'Yankees', 'Dodgers', 'Chiefs', 'Eagles'];
const ESPORTS = ['Team Liquid', 'G2', 'Fnatic', 'T1', 'Cloud9', 'NaVi', 'FaZe', 'Vitality'];
const GAMES = ['CS2', 'League of Legends', 'Dota 2', 'Valorant'];
const COUNTRIES = ['Canada', 'Japan', 'Germany', 'Brazil', 'Australia', 'India', 'France', 'Mexico'];
const CANDIDATES = ['Alvarez', 'Becker', 'Chen', 'Dubois', 'Eriksen', 'Fischer'];
const COMPANIES = ['OpenAI', 'Apple', 'Google', 'Nvidia', 'Tesla', 'Meta'];
const PRODUCTS = ['a new model', 'a new phone', 'a humanoid robot', 'a new chip', 'smart glasses'];
const SHOWS = ['the Oscars', 'the Grammys', 'the Emmys', 'Eurovision'];
const FILMS = ['Dune Part Three', 'The Long Night', 'Paper Moons', 'Saltwater', 'Red Orchard'];
/** The venue's own SOL price resolves the crypto windows (one price walk, which every product reads anyway). */
const CRYPTO = ['SOL'];

/** The story at `index` of the schedule starting at `epochMs`: the same seed and index always give the same story. */
export function storyAt(seed: number | string, epochMs: number, index: number, usd: (symbol: string) => number | undefined): Story {
  const rng = new Rng(seed, `prediction:story:${index}`);
  const category = ROTATION[index % ROTATION.length]!;
  const openMs = epochMs + index * STORY_INTERVAL_MS;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
  const between = (lo: number, hi: number) => lo + rng.next() * (hi - lo);
  const p = () => Math.round(between(0.08, 0.92) * 100) / 100;
  const activity = Math.exp(rng.normal() * 0.9);
  const base = { index, category, openMs, activity };
  const day = new Date(openMs).toISOString().slice(0, 10);
  switch (category) {
    case 'sports': {
      const [home, away] = two(rng, TEAMS);
      const beginMs = openMs + Math.round(between(2, 20)) * HOUR;
      return story(base, { subcategory: 'games', tags: ['sports', 'games'], title: `${home} vs ${away}`, subtitle: `${day} game`, series: 'games', beginMs, closeMs: beginMs + Math.round(between(2, 3) * 4) * 15 * 60_000, questions: [{ title: home, p0: p() }, { title: `Over ${Math.round(between(180, 230))}.5 points`, p0: p() }] });
    }
    case 'esports': {
      const [a, b] = two(rng, ESPORTS);
      const game = pick(GAMES);
      const beginMs = openMs + Math.round(between(1, 12)) * HOUR;
      return story(base, { subcategory: game.toLowerCase().replace(/ /g, '-'), tags: ['esports', game], title: `${a} vs ${b} (${game})`, subtitle: 'Best of 3', series: game, beginMs, closeMs: beginMs + Math.round(between(1.5, 3) * 4) * 15 * 60_000, questions: [{ title: a, p0: p() }] });
    }
    case 'crypto': {
      const symbol = pick(CRYPTO);
      const spot = usd(symbol) ?? 1;
      const closeMs = openMs + Math.round(between(1, 6)) * HOUR;
      const hour = new Date(closeMs).toISOString().slice(11, 16);
      const strikes = [-0.02, 0, 0.02].map((d) => roundStrike(spot * (1 + d)));
      return story(base, { subcategory: symbol.toLowerCase(), tags: ['crypto', symbol], title: `${symbol} price at ${hour} UTC`, subtitle: `${day} ${hour} UTC`, series: `${symbol} hourly`, beginMs: openMs, closeMs, questions: strikes.map((k) => ({ title: `Above $${k}`, strike: { symbol, usd: k }, p0: 0.5 })) });
    }
    case 'politics': {
      const country = pick(COUNTRIES);
      const [a, b] = two(rng, CANDIDATES);
      return story(base, { subcategory: 'elections', tags: ['politics', 'elections'], title: `${country} leadership vote`, subtitle: 'Who will win?', series: `${country} politics`, beginMs: null, closeMs: openMs + Math.round(between(3, 14)) * DAY, questions: [{ title: a, p0: p() }, { title: b, p0: p() }] });
    }
    case 'economics': {
      const country = pick(COUNTRIES);
      return story(base, { subcategory: 'rates', tags: ['economics', 'rates'], title: `${country} central bank decision`, subtitle: 'Rate decision', series: `${country} rates`, beginMs: null, closeMs: openMs + Math.round(between(1, 7)) * DAY, questions: [{ title: 'Cut', p0: p() }, { title: 'Hold', p0: p() }] });
    }
    case 'culture': {
      const show = pick(SHOWS);
      const film = pick(FILMS);
      return story(base, { subcategory: 'awards', tags: ['culture', 'awards'], title: `${film} at ${show}`, subtitle: 'Will it win?', series: show, beginMs: null, closeMs: openMs + Math.round(between(2, 20)) * DAY, questions: [{ title: `${film} wins`, p0: p() }] });
    }
    case 'tech': {
      const company = pick(COMPANIES);
      const product = pick(PRODUCTS);
      return story(base, { subcategory: 'launches', tags: ['tech', company], title: `${company} ships ${product}`, subtitle: 'Before the deadline?', series: `${company} launches`, beginMs: null, closeMs: openMs + Math.round(between(2, 20)) * DAY, questions: [{ title: `${company} ships on time`, p0: p() }] });
    }
  }
}

/**
 * Short crypto windows: "SOL Up or Down - 5 minutes", listed by both providers back to back (Polymarket lists 5-minute
 * up-or-down windows on SOL, Kalshi its KXSOL5M series besides KXSOL15M). A window is listed some minutes before it
 * starts and trades at about even odds until then; its price to beat is the price when it starts.
 */
export const WINDOW_MS = 5 * 60_000;
/** How long before its start a window is listed: the next two are always open for orders. */
export const WINDOW_LEAD_MS = 10 * 60_000;
/**
 * When the first window begins after the venue starts: the windows run back to back from then. A paper run can
 * trade it before it begins (at about even odds, while its price to beat is not set) and sees it settle a window
 * and this much after its start.
 */
export const FIRST_WINDOW_DELAY_MS = 3 * 60_000;
/** The token of the up-or-down windows (the venue's one crypto price walk that prediction markets read). */
const WINDOW_SYMBOL = 'SOL';

/**
 * The up-or-down window at `index` of the schedule starting at `epochMs`: it starts at epochMs + index x WINDOW_MS
 * and closes one window later. Its story index is the window's own (ids are made apart).
 */
export function windowAt(epochMs: number, index: number): Story {
  const beginMs = epochMs + index * WINDOW_MS;
  const closeMs = beginMs + WINDOW_MS;
  const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);
  return {
    index,
    category: 'crypto',
    subcategory: WINDOW_SYMBOL.toLowerCase(),
    tags: ['crypto', WINDOW_SYMBOL, 'up-or-down'],
    title: `${WINDOW_SYMBOL} Up or Down - 5 minutes`,
    subtitle: `${new Date(beginMs).toISOString().slice(0, 10)} ${hhmm(beginMs)}-${hhmm(closeMs)} UTC`,
    series: `${WINDOW_SYMBOL} 5m`,
    slug: `${WINDOW_SYMBOL.toLowerCase()}-updown-5m-${Math.floor(beginMs / 1000)}`,
    openMs: beginMs - WINDOW_LEAD_MS,
    beginMs,
    closeMs,
    questions: [{ title: 'Up', upDown: { symbol: WINDOW_SYMBOL }, p0: 0.5 }],
    // The busiest markets of the crypto category.
    activity: 2,
  };
}

/** The probability that a crypto question resolves YES now: a lognormal price reaching the strike by close. */
export function strikeProbability(spot: number, strike: number, dailyVol: number, msLeft: number): number {
  const sigma = Math.max(1e-6, dailyVol * Math.sqrt(Math.max(60_000, msLeft) / DAY));
  return normalCdf(Math.log(spot / strike) / sigma);
}

function story(base: Pick<Story, 'index' | 'category' | 'openMs' | 'activity'>, s: Omit<Story, 'index' | 'category' | 'openMs' | 'activity' | 'slug'>): Story {
  const slug = `${s.title}-${base.index}`.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
  return { ...base, ...s, slug };
}

function two<T>(rng: Rng, xs: readonly T[]): [T, T] {
  const i = Math.floor(rng.next() * xs.length);
  const j = (i + 1 + Math.floor(rng.next() * (xs.length - 1))) % xs.length;
  return [xs[i]!, xs[j]!];
}

/** A strike with three significant digits ($185, $0.912, $0.0000213). */
function roundStrike(usd: number): number {
  const digits = Math.max(0, 2 - Math.floor(Math.log10(usd)));
  return Number(usd.toFixed(Math.min(digits, 10)));
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26, error below 1.5e-7). */
function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp((-x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}
