// trend: a moving-average crossover on the price history the engine keeps. The fast and slow averages are the means
// of the base's price in the quote over two windows of the history (e.g. 15 minutes and 1 hour). When the fast one
// crosses above the slow one (a golden cross) it buys base with quote, one swap sized by the params; when it crosses
// back below (a death cross) it sells what that entry bought. It does not chase: a trend already up when it first
// looks waits for the next golden cross. A gap in the history (the keeper was down) holds the last price seen, so a
// move made while no keeper ran is still a cross once one runs again. Its own pending swaps count as asked for, so an
// entry is never doubled while the wallet feed catches up, and its state says whether it holds a position (and how
// much), across restarts.
import { z } from 'zod';
import { defineStrategy, type IntentInput, type PendingIntentView, type PricePoint, type PriceView, type StrategyContext } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS, SOL_MINT } from '../../src/sdk/symbols.js';
import { trendParams, type TrendParams } from './params.js';

export { trendParams, windowParam, type TrendParams } from './params.js';

/** Lamports never spent or sold when SOL is the base or the quote (0.02 SOL for fees and rent). */
export const TREND_SOL_RESERVE_LAMPORTS = 20_000_000n;

/**
 * An entry counts at most this much above what its quote was worth in base at the decision's price (percent): the
 * wallet's base balance may also grow by other means while the buy is in flight, and those are not the position's.
 */
const ENTRY_OVERFILL_PCT = 5n;

const amountInState = z.union([z.bigint(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

// Parsed rather than trusted; a corrupt state throws (guessing could buy twice or sell what it never bought).
const stateSchema = z.object({
  /** Where the fast average last stood against the slow one, outside the gap: the side a cross leaves. */
  side: z.enum(['above', 'below']).optional(),
  /** Whether the last cross was golden: the position is wanted. */
  want: z.boolean().default(false),
  /**
   * The entry asked for and not yet seen settled: what it spends, the base balance before it, the base expected, and
   * whether a decision saw it landed (then it did, whatever else moved the balance meanwhile).
   */
  entry: z.object({ at: z.number(), spent: amountInState, balanceBefore: amountInState, expected: amountInState, landed: z.boolean().optional() }).optional(),
  /** Base units the last entry bought and not yet sold: the position. */
  held: amountInState.optional(),
  /** The exit asked for and not yet seen settled: what it sells, the base balance before it, whether it was seen landed. */
  exit: z.object({ at: z.number(), amount: amountInState, balanceBefore: amountInState, landed: z.boolean().optional() }).optional(),
  /** Why it last did nothing, when that was not the averages (not enough history, no quote): logged once. */
  waiting: z.string().optional(),
});
type TrendStateParsed = z.output<typeof stateSchema>;

/** What trend persists between runs (bigints as decimal strings). */
export type TrendState = Record<string, unknown>;

function persisted(s: TrendStateParsed): TrendState {
  return {
    ...(s.side === undefined ? {} : { side: s.side }),
    want: s.want,
    ...(s.entry === undefined
      ? {}
      : { entry: { at: s.entry.at, spent: s.entry.spent.toString(), balanceBefore: s.entry.balanceBefore.toString(), expected: s.entry.expected.toString(), ...(s.entry.landed ? { landed: true } : {}) } }),
    ...(s.held === undefined ? {} : { held: s.held.toString() }),
    ...(s.exit === undefined ? {} : { exit: { at: s.exit.at, amount: s.exit.amount.toString(), balanceBefore: s.exit.balanceBefore.toString(), ...(s.exit.landed ? { landed: true } : {}) } }),
    ...(s.waiting === undefined ? {} : { waiting: s.waiting }),
  };
}

/** The two averages of the base's price in the quote, or why there are none yet. */
export type Averages = { ok: true; fast: number; slow: number; samples: number } | { ok: false; why: string };

// The histories are frozen arrays the engine shares between the instances of an evaluation: the averages of one pair
// of them over the same windows at the same time are worked out once for all the instances that ask (the same
// inputs give the same result, so this changes no decision).
const memo = new WeakMap<readonly PricePoint[], WeakMap<readonly PricePoint[], Map<string, Averages>>>();

/** `movingAverages`, worked out once per pair of histories, time and windows. */
function sharedAverages(base: readonly PricePoint[], quote: readonly PricePoint[], now: number, fastMs: number, slowMs: number): Averages {
  let byQuote = memo.get(base);
  if (!byQuote) memo.set(base, (byQuote = new WeakMap<readonly PricePoint[], Map<string, Averages>>()));
  let byKey = byQuote.get(quote);
  if (!byKey) byQuote.set(quote, (byKey = new Map<string, Averages>()));
  const key = `${now}|${fastMs}|${slowMs}`;
  let out = byKey.get(key);
  if (!out) {
    // Past times are dropped now and then: an evaluation asks at one `now`, later ones at later times.
    if (byKey.size > 16) byKey.clear();
    byKey.set(key, (out = movingAverages(base, quote, now, fastMs, slowMs)));
  }
  return out;
}

/**
 * The fast and slow averages at `now`: time-weighted means of the base's price in the quote over each window, the
 * price between samples being the last one sampled (both histories sampled together, so their times match; a time
 * one of them lacks is not a sample). Each sample holds until the next one, the newest for one usual spacing (the
 * median gap between the samples in the slow window), and the windows end there: on evenly spaced samples this is
 * the plain mean of the newest ones. A gap in the history (no keeper ran the feed) holds the last price seen before
 * it: that never makes a move of its own (a flat price crosses nothing), and a price that moved during the gap shows
 * the move once the feed runs again, so a fall while the keeper restarted is still a death cross. Only the slow
 * window's end of the histories is walked, from the newest sample back. Refused while the history does not reach
 * back the whole slow window.
 */
export function movingAverages(base: readonly PricePoint[], quote: readonly PricePoint[], now: number, fastMs: number, slowMs: number): Averages {
  // The usable samples, newest first, back to the first one at or before the slow window's start (or the oldest).
  const points: Array<{ at: number; price: number }> = [];
  let reaches = false;
  let j = quote.length - 1;
  for (let i = base.length - 1; i >= 0; i -= 1) {
    const b = base[i]!;
    if (b.at > now) continue;
    while (j >= 0 && quote[j]!.at > b.at) j -= 1;
    if (j < 0) break;
    if (quote[j]!.at !== b.at) continue;
    points.push({ at: b.at, price: b.usd / quote[j]!.usd });
    if (b.at <= now - slowMs) {
      reaches = true;
      break;
    }
  }
  const inWindow = reaches ? points.length - 1 : points.length;
  if (!reaches || inWindow < 2) {
    return { ok: false, why: `not enough price history yet: it must reach back the slow window (${formatMs(slowMs)}); ${inWindow} usable samples so far` };
  }
  const gaps = points.slice(1).map((p, k) => points[k]!.at - p.at).sort((a, b) => a - b);
  const spacing = gaps[Math.floor((gaps.length - 1) / 2)]!;
  // The windows end one spacing after the newest sample (or now, when the feed is further behind than that).
  const end = Math.max(now, points[0]!.at + spacing);
  const fastFrom = end - fastMs;
  const slowFrom = end - slowMs;
  let fastSum = 0;
  let slowSum = 0;
  let until = end;
  for (const p of points) {
    if (until <= slowFrom) break;
    slowSum += p.price * (until - Math.max(p.at, slowFrom));
    if (until > fastFrom) fastSum += p.price * (until - Math.max(p.at, fastFrom));
    until = p.at;
  }
  return { ok: true, fast: fastSum / fastMs, slow: slowSum / slowMs, samples: inWindow };
}

/** A duration for messages: "90s", "15m", "4h", "2d". */
function formatMs(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000]] as const) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms / 1000}s`;
}

const fmt = (n: number): string => n.toPrecision(6);

/** Where the fast average stands against the slow one, given the gap: above, below, or inside the gap. */
function relation(a: { fast: number; slow: number }, gapBps: number): 'above' | 'below' | 'inside' {
  // Means of the same prices over two windows may differ in the last bit: that is no cross.
  const band = Math.max(a.slow * (gapBps / 10_000), a.slow * 1e-9);
  if (a.fast > a.slow + band) return 'above';
  if (a.fast < a.slow - band) return 'below';
  return 'inside';
}

/** The instance's own pending swap from `input` to `output`. */
const pendingSwap = (pending: readonly PendingIntentView[], input: string, output: string): PendingIntentView | undefined =>
  pending.find(({ intent }) => intent.kind === 'swap' && intent.inputMint === input && intent.outputMint === output);

/** Base units of `mint` the wallet may spend: its balance less the SOL reserve when it is SOL. */
function spendable(balance: bigint, mint: string): bigint {
  const free = balance - (mint === SOL_MINT ? TREND_SOL_RESERVE_LAMPORTS : 0n);
  return free > 0n ? free : 0n;
}

const usdOf = (amount: bigint, price: PriceView): number => (Number(amount) / 10 ** price.decimals) * price.usd;

/** Base units worth `usd` at `price`, rounded down. */
function unitsFor(usd: number, price: PriceView): bigint {
  const units = Math.floor((usd / price.usd) * 10 ** price.decimals);
  return Number.isFinite(units) && units > 0 ? BigInt(Math.min(units, Number.MAX_SAFE_INTEGER)) : 0n;
}

/**
 * Quote to spend on an entry: `amount`, or `fractionOfQuote` of the spendable quote (the smaller when both are
 * set), capped by `maxAmount` and by what the wallet can spend.
 */
export function entrySize(p: TrendParams, quoteSpendable: bigint): bigint {
  const sizes: bigint[] = [];
  if (p.amount !== undefined) sizes.push(p.amount);
  if (p.fractionOfQuote !== undefined) sizes.push((quoteSpendable * BigInt(Math.round(p.fractionOfQuote * 1_000_000))) / 1_000_000n);
  if (p.maxAmount !== undefined) sizes.push(p.maxAmount);
  sizes.push(quoteSpendable);
  return sizes.reduce((a, b) => (b < a ? b : a));
}

/** Buys on a golden cross of the moving averages, sells what it bought on a death cross. */
export const trend = defineStrategy<typeof trendParams, TrendState>({
  name: 'trend',
  version: '1.0.0',
  description: 'moving-average crossover on the kept price history: buy base with quote when the fast average crosses above the slow one, sell what it bought when it crosses below',
  params: trendParams,
  watches: (p) => ({ mints: [p.base, p.quote] }),
  emits: (p) => [{ kind: 'swap', via: p.via }],
  decide: (ctx) => {
    const p = ctx.params;
    let s = stateSchema.parse(ctx.state);
    const done = (intents: IntentInput[] = []) => ({ intents, state: persisted(s) });
    const waitFor = (why: string) => {
      if (s.waiting !== why) ctx.log.info(`no action: ${why}`);
      else ctx.log.debug(`no action: ${why}`);
      s = { ...s, waiting: why };
      return done();
    };
    const baseBalance = ctx.wallet.balance(p.base);

    // The entry and exit asked for earlier: still in flight, or settled (the wallet view shows them once they are
    // no longer pending), or ended without effect. A swap seen landed did land: the balance alone could be fooled
    // by other activity in the wallet (a sale taken for failed would be sold twice).
    const buying = pendingSwap(ctx.pendingIntents, p.quote, p.base);
    const selling = pendingSwap(ctx.pendingIntents, p.base, p.quote);
    if (s.entry && buying?.state === 'landed') s = { ...s, entry: { ...s.entry, landed: true } };
    if (s.exit && selling?.state === 'landed') s = { ...s, exit: { ...s.exit, landed: true } };
    if (s.entry && !buying) {
      const delta = baseBalance - s.entry.balanceBefore;
      const most = (s.entry.expected * (100n + ENTRY_OVERFILL_PCT)) / 100n;
      const free = spendable(baseBalance, p.base);
      // Landed but the balance shows less: other spending hid it; count what it was expected to bring, if held.
      const bought = delta > 0n ? (delta < most || most === 0n ? delta : most) : s.entry.landed ? (s.entry.expected < free ? s.entry.expected : free) : 0n;
      if (bought > 0n) {
        ctx.log.info('entry settled: holding the position', { bought: bought.toString() });
        s = { ...s, held: (s.held ?? 0n) + bought, entry: undefined };
      } else {
        ctx.log.warn('the entry swap ended without effect: waiting for the next golden cross');
        s = { ...s, entry: undefined, want: false };
      }
    }
    if (s.exit && !selling) {
      if (s.exit.landed || baseBalance + s.exit.amount <= s.exit.balanceBefore) {
        ctx.log.info('exit settled: out of the position', { sold: s.exit.amount.toString() });
        s = { ...s, held: undefined, exit: undefined };
      } else {
        ctx.log.warn('the exit swap ended without effect: selling again while the trend is down');
        s = { ...s, exit: undefined };
      }
    }

    const basePrice = ctx.price(p.base);
    const quotePrice = ctx.price(p.quote);
    if (!basePrice || !quotePrice || !(basePrice.usd > 0) || !(quotePrice.usd > 0)) return waitFor('no price for the base or the quote');
    const avg = sharedAverages(ctx.priceHistory(p.base), ctx.priceHistory(p.quote), ctx.now, p.fast, p.slow);
    if (!avg.ok) return waitFor(avg.why);
    s = { ...s, waiting: undefined };

    const now = relation(avg, p.minGapBps);
    // Words for logs and reasons, made only when something is said (most decisions say nothing).
    const pair = () => `${label(ctx, p.base)}/${label(ctx, p.quote)}`;
    const averages = () => `fast ${formatMs(p.fast)} ${fmt(avg.fast)} ${now === 'above' ? '>' : now === 'below' ? '<' : '≈'} slow ${formatMs(p.slow)} ${fmt(avg.slow)}`;
    let cross: string | undefined;
    if (s.side === undefined) {
      // The first look: a trend already up is not chased; anything else waits for the fast average to rise.
      s = { ...s, side: now === 'above' ? 'above' : 'below' };
      if (now === 'above') ctx.log.info(`${pair()} already trends up (${averages()}): waiting for the next golden cross`);
    } else if (now === 'above' && s.side === 'below') {
      cross = `golden cross ${pair()}: ${averages()}`;
      s = { ...s, side: 'above', want: true };
    } else if (now === 'below' && s.side === 'above') {
      cross = `death cross ${pair()}: ${averages()}`;
      s = { ...s, side: 'below', want: false };
    }
    if (cross) ctx.log.info(cross);

    // A swap of its own still in flight: nothing more until it settles (never a second entry or exit).
    if (buying || selling || s.entry || s.exit) return done();

    if (s.want && s.held === undefined) {
      const size = entrySize(p, spendable(ctx.wallet.balance(p.quote), p.quote));
      const expected = unitsFor(usdOf(size, quotePrice), basePrice);
      if (size <= 0n || expected <= 0n || usdOf(size, quotePrice) < p.minTradeUsd) return waitFor(`the golden cross wants an entry, but the quote the wallet can spend buys less than minTradeUsd ($${p.minTradeUsd})`);
      s = { ...s, entry: { at: ctx.now, spent: size, balanceBefore: baseBalance, expected } };
      return done([swap(p, p.quote, p.base, size, (cross ?? `golden cross ${pair()}: ${averages()} (entering)`).slice(0, 200))]);
    }
    if (!s.want && s.held !== undefined) {
      const free = spendable(baseBalance, p.base);
      const amount = p.sellAll || s.held > free ? free : s.held;
      if (amount <= 0n) {
        ctx.log.warn('the position is gone from the wallet: nothing to sell', { held: s.held.toString() });
        s = { ...s, held: undefined };
        return done();
      }
      s = { ...s, exit: { at: ctx.now, amount, balanceBefore: baseBalance } };
      return done([swap(p, p.base, p.quote, amount, (cross ?? `death cross ${pair()}: ${averages()} (exiting)`).slice(0, 200))]);
    }
    return done();
  },
});

const SYMBOL_OF = new Map(Object.entries(KNOWN_SYMBOLS).map(([symbol, m]) => [m.mint, symbol]));

/** A mint's symbol for messages: the feed's, a known one, or the address's start. */
const label = (ctx: StrategyContext<TrendParams, TrendState>, mint: string): string => ctx.token(mint)?.symbol ?? SYMBOL_OF.get(mint) ?? `${mint.slice(0, 4)}…`;

function swap(p: TrendParams, inputMint: string, outputMint: string, amount: bigint, reason: string): IntentInput {
  return { kind: 'swap', via: p.via, inputMint, outputMint, amount, ...(p.slippageBps === undefined ? {} : { slippageBps: p.slippageBps }), reason };
}
