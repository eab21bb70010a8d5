// DCA through the Recurring API: one time-based order at a time. The venue's keeper makes the buys; this side
// places the order once, follows it in the wallet's open recurring orders until it is gone (filled or cancelled),
// then places the next one while rounds remain.
import { z } from 'zod';
import type { Decision, RecurringOrderView, StrategyContext } from '../../src/sdk/index.js';
import { SOL_MINT } from '../../src/sdk/symbols.js';
import type { DcaRecurringParams } from './params.js';
import { DCA_SOL_RESERVE_LAMPORTS } from './swaps.js';

/** The service refuses an order worth less than this, USD (jupiter-api.md §6). */
export const RECURRING_MIN_ORDER_USD = 100;
/** ...or one whose buys are worth less than this each, USD. */
export const RECURRING_MIN_BUY_USD = 50;

/** The order of the round in progress. */
const currentSchema = z.object({
  /** When its create intent was decided, unix ms. */
  placedAt: z.number(),
  /** Its order account, once the wallet's open orders showed it. */
  order: z.string().nullable(),
  /** Open orders that already matched it when it was placed (someone else's): never taken for it. */
  ignore: z.array(z.string()).default([]),
  /** Decisions in a row that saw neither its intent pending nor the order open. */
  misses: z.number().int().min(0).default(0),
  /** Input the keeper had spent as last seen, base units (a string: the state is JSON). */
  inUsed: z.string().regex(/^\d+$/).nullable().default(null),
});

// Parsed, not trusted: a corrupt state throws (a reset count would place orders past `rounds`).
const stateSchema = z.object({
  /** Orders asked for so far. */
  placed: z.number().int().min(0).default(0),
  /** Orders seen to end (or never seen open). */
  ended: z.number().int().min(0).default(0),
  current: currentSchema.nullable().default(null),
});

/** What dca persists in mode recurring. */
export type DcaRecurringState = z.output<typeof stateSchema>;

/**
 * Decisions in a row that must see the order neither pending nor open before it counts as ended. The first miss
 * may be the wallet feed's: when its read of open orders fails it keeps its previous list, which may predate the
 * order.
 */
const MISSES_TO_END = 2;

/** The parts of the context the recurring mode reads. */
export type RecurringContext = Pick<StrategyContext<unknown, Readonly<Record<string, unknown>>>, 'now' | 'price' | 'wallet' | 'openOrders' | 'pendingIntents' | 'log' | 'state'>;

/** The wallet's open orders of the pair. */
function openOfPair(ctx: RecurringContext, p: DcaRecurringParams): RecurringOrderView[] {
  return ctx.openOrders.recurring.filter((o) => o.inputMint === p.inputMint && o.outputMint === p.outputMint);
}

/**
 * The order of the round in progress among the open ones: the one it was seen as, or, before that, an order of the
 * pair holding exactly `total` that was not already open when this one was placed. (A create's result, the order
 * account, does not reach the strategy: it is recognised by its terms.)
 */
function findOrder(open: RecurringOrderView[], current: DcaRecurringState['current'] & object, total: bigint): RecurringOrderView | undefined {
  if (current.order !== null) return open.find((o) => o.order === current.order);
  return open.find((o) => o.inDeposited === total && !current.ignore.includes(o.order));
}

/** The order's price bounds in the service's terms (output tokens per input token) from a USD band on the output. */
function bounds(p: DcaRecurringParams, inputUsd: number): { minPrice?: number; maxPrice?: number } {
  return {
    ...(p.maxPriceUsd === undefined ? {} : { minPrice: inputUsd / p.maxPriceUsd }),
    ...(p.minPriceUsd === undefined ? {} : { maxPrice: inputUsd / p.minPriceUsd }),
  };
}

/** Follows the round in progress; returns the state once it has ended (current cleared), else the decision to return. */
function follow(ctx: RecurringContext, p: DcaRecurringParams, s: DcaRecurringState): DcaRecurringState | Decision<DcaRecurringState> {
  const current = s.current;
  if (current === null) return s;
  const order = findOrder(openOfPair(ctx, p), current, p.total);
  if (order) {
    if (current.order === null) ctx.log.info('recurring order open', { order: order.order, round: s.placed, inDeposited: order.inDeposited.toString() });
    return { intents: [], state: { ...s, current: { ...current, order: order.order, misses: 0, inUsed: order.inUsed.toString() } } };
  }
  const misses = current.misses + 1;
  if (misses < MISSES_TO_END) return { intents: [], state: { ...s, current: { ...current, misses } } };
  if (current.order !== null) {
    ctx.log.info('recurring order ended: filled or cancelled', { order: current.order, round: s.placed, lastSeenInUsed: current.inUsed, total: p.total.toString() });
  } else {
    // Its intent failed or was refused (its record says why), or the order ended before a wallet read showed it.
    ctx.log.warn('recurring order never seen open: its intent failed or was refused, or it ended before the wallet feed saw it; counting the round as done', { round: s.placed });
  }
  return { ...s, ended: s.ended + 1, current: null };
}

/** One decision of dca in mode recurring. */
export function decideRecurring(ctx: RecurringContext, p: DcaRecurringParams): Decision<DcaRecurringState> {
  const parsed = stateSchema.parse(ctx.state);
  // A create of this instance still planned, in flight, or landed after the wallet read: the order is on its way.
  if (ctx.pendingIntents.some((i) => i.intent.kind === 'recurring.create')) {
    ctx.log.debug('waiting: the recurring order is being placed');
    return { intents: [], state: parsed.current ? { ...parsed, current: { ...parsed.current, misses: 0 } } : parsed };
  }
  const followed = follow(ctx, p, parsed);
  if ('intents' in followed) return followed;
  const s = followed;
  if (s.placed >= p.rounds) return { intents: [], state: s };

  const price = ctx.price(p.inputMint);
  if (!price || !(price.usd > 0)) {
    ctx.log.info('skipping: no price for the input (the order must be worth $100, and the band is set in USD)');
    return { intents: [], state: s };
  }
  const totalUsd = (Number(p.total) / 10 ** price.decimals) * price.usd;
  if (totalUsd < RECURRING_MIN_ORDER_USD || totalUsd / p.numberOfOrders < RECURRING_MIN_BUY_USD) {
    ctx.log.warn(`skipping: the Recurring API takes orders of at least $${RECURRING_MIN_ORDER_USD} and $${RECURRING_MIN_BUY_USD} a buy`, {
      totalUsd: Number(totalUsd.toFixed(2)),
      perBuyUsd: Number((totalUsd / p.numberOfOrders).toFixed(2)),
    });
    return { intents: [], state: s };
  }
  const balance = ctx.wallet.balance(p.inputMint);
  const needed = p.inputMint === SOL_MINT ? p.total + DCA_SOL_RESERVE_LAMPORTS : p.total;
  if (balance < needed) {
    ctx.log.info('skipping: balance below the total', { balance: balance.toString(), needed: needed.toString() });
    return { intents: [], state: s };
  }
  const round = s.placed + 1;
  return {
    intents: [
      {
        kind: 'recurring.create',
        inputMint: p.inputMint,
        outputMint: p.outputMint,
        inAmount: p.total,
        numberOfOrders: p.numberOfOrders,
        intervalSeconds: p.interval,
        ...bounds(p, price.usd),
        reason: `dca order ${round} of ${p.rounds}: ${p.numberOfOrders} buys, one every ${p.interval} s`,
      },
    ],
    state: {
      ...s,
      placed: round,
      current: { placedAt: ctx.now, order: null, ignore: openOfPair(ctx, p).filter((o) => o.inDeposited === p.total).map((o) => o.order), misses: 0, inUsed: null },
    },
  };
}
