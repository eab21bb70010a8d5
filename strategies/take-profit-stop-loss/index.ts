// take-profit-stop-loss: exits a holding by one swap when the price crosses a target above or a stop below, or falls
// a set percentage from the highest price seen since the instance started (a trailing stop). The exit is asked for
// once: while the sell is pending nothing more is asked, and once the wallet shows it settled the instance is done.
// An exit that ended without effect (failed, expired, refused) is forgotten and the prices are watched again.
import { z } from 'zod';
import { defineStrategy, type PendingIntentView } from '../../src/sdk/index.js';
import { baseUnitsParam, KNOWN_SYMBOLS, mintParam, SOL_MINT } from '../../src/sdk/symbols.js';

const USDC_MINT = KNOWN_SYMBOLS.USDC!.mint;

/** Lamports never sold when the holding is SOL (0.02 SOL for fees and rent). */
export const EXIT_SOL_RESERVE_LAMPORTS = 20_000_000n;

/** Params of take-profit-stop-loss, as written in the config. */
export const takeProfitStopLossParams = z
  .strictObject({
    /** The holding to exit: a symbol or a mint address. */
    mint: mintParam,
    /** What it is sold for, and the unit of the prices below: a symbol or a mint address (default USDC). */
    quote: mintParam.optional().transform((q) => q ?? USDC_MINT),
    /** Sell when the price reaches this or more, quote per token. */
    takeProfitPrice: z.number().positive().optional(),
    /** Sell when the price falls to this or less, quote per token. */
    stopLossPrice: z.number().positive().optional(),
    /** Sell when the price falls this many percent below the highest price seen (kept in the state). */
    trailingStopPct: z.number().positive().max(99).optional(),
    /** Sell this many base units of the holding (at most what it holds); the whole holding when omitted. */
    amount: baseUnitsParam.optional(),
    /** Ultra (order + execute) or Metis (quote + swap through RPC). */
    via: z.enum(['ultra', 'metis']).default('ultra'),
    /** Maximum slippage in basis points; the venue picks one when omitted. */
    slippageBps: z.number().int().min(1).max(10_000).optional(),
  })
  .refine((p) => p.takeProfitPrice !== undefined || p.stopLossPrice !== undefined || p.trailingStopPct !== undefined, {
    message: 'set at least one of takeProfitPrice, stopLossPrice and trailingStopPct',
    path: ['takeProfitPrice'],
  })
  .refine((p) => p.takeProfitPrice === undefined || p.stopLossPrice === undefined || p.stopLossPrice < p.takeProfitPrice, {
    message: 'stopLossPrice must be below takeProfitPrice',
    path: ['stopLossPrice'],
  })
  .refine((p) => p.mint !== p.quote, { message: 'mint and quote must differ', path: ['quote'] });

/** Parsed params of take-profit-stop-loss. */
export type TakeProfitStopLossParams = z.output<typeof takeProfitStopLossParams>;

const amountInState = z.union([z.bigint(), z.string().regex(/^\d+$/)]).transform((v) => BigInt(v));

// Parsed rather than trusted; a corrupt state throws (guessing could sell twice or forget a trailing peak).
const stateSchema = z.object({
  /** Highest price seen, quote per token. */
  peak: z.number().positive().optional(),
  /** The exit asked for: what it sells, the holding before it, and when. */
  exit: z.object({ reason: z.string(), amount: amountInState, balanceBefore: amountInState, at: z.number() }).optional(),
  /** The exit settled: nothing more to do. */
  done: z.boolean().default(false),
});
type ExitState = z.output<typeof stateSchema>;

/** What take-profit-stop-loss persists between runs. */
export type TakeProfitStopLossState = Record<string, unknown>;

function persisted(s: ExitState): TakeProfitStopLossState {
  return {
    ...(s.peak === undefined ? {} : { peak: s.peak }),
    ...(s.exit === undefined ? {} : { exit: { ...s.exit, amount: s.exit.amount.toString(), balanceBefore: s.exit.balanceBefore.toString() } }),
    done: s.done,
  };
}

/** Which exit the price calls for, if any. */
function crossed(p: TakeProfitStopLossParams, price: number, peak: number): string | undefined {
  if (p.takeProfitPrice !== undefined && price >= p.takeProfitPrice) return `take-profit: ${fmt(price)} ≥ ${fmt(p.takeProfitPrice)}`;
  if (p.stopLossPrice !== undefined && price <= p.stopLossPrice) return `stop-loss: ${fmt(price)} ≤ ${fmt(p.stopLossPrice)}`;
  if (p.trailingStopPct !== undefined) {
    const stop = peak * (1 - p.trailingStopPct / 100);
    if (price <= stop) return `trailing stop: ${fmt(price)} ≤ ${fmt(stop)} (${p.trailingStopPct} % under the peak ${fmt(peak)})`;
  }
  return undefined;
}

const fmt = (n: number): string => n.toPrecision(6);

/** The instance's own pending sell of the holding. */
const pendingSell = (pending: readonly PendingIntentView[], p: TakeProfitStopLossParams): PendingIntentView | undefined =>
  pending.find(({ intent }) => intent.kind === 'swap' && intent.inputMint === p.mint && intent.outputMint === p.quote);

/** Sells a holding when its price crosses a take-profit, a stop-loss or a trailing stop. */
export const takeProfitStopLoss = defineStrategy<typeof takeProfitStopLossParams, TakeProfitStopLossState>({
  name: 'take-profit-stop-loss',
  version: '1.0.0',
  description: 'sell a holding by swap when its price reaches takeProfitPrice, falls to stopLossPrice, or falls trailingStopPct below its peak',
  params: takeProfitStopLossParams,
  watches: (p) => ({ mints: [p.mint, p.quote] }),
  emits: (p) => [{ kind: 'swap', via: p.via }],
  // A stop must act on the move that crosses it, not at the next scheduled run.
  reactive: true,
  decide: (ctx) => {
    const p = ctx.params;
    let s = stateSchema.parse(ctx.state);
    if (s.done) return { intents: [], state: persisted(s) };
    const tokenPrice = ctx.price(p.mint);
    const quotePrice = ctx.price(p.quote);
    if (!tokenPrice || !quotePrice || !(tokenPrice.usd > 0) || !(quotePrice.usd > 0)) {
      ctx.log.debug('skipping: no price for the holding or the quote');
      return { intents: [], state: persisted(s) };
    }
    const price = tokenPrice.usd / quotePrice.usd;
    const peak = Math.max(s.peak ?? price, price);
    s = { ...s, peak };
    const balance = ctx.wallet.balance(p.mint);

    if (s.exit) {
      if (pendingSell(ctx.pendingIntents, p)) return { intents: [], state: persisted(s) };
      // The sell is no longer pending, so the wallet view includes it if it landed.
      if (balance + s.exit.amount <= s.exit.balanceBefore) {
        ctx.log.info('exit settled', { reason: s.exit.reason, sold: s.exit.amount.toString() });
        return { intents: [], state: persisted({ ...s, done: true }) };
      }
      ctx.log.warn('the exit swap ended without effect: watching the price again', { reason: s.exit.reason });
      s = { ...s, exit: undefined };
    }

    const reason = crossed(p, price, peak);
    if (reason === undefined) return { intents: [], state: persisted(s) };
    const sellable = p.mint === SOL_MINT ? (balance > EXIT_SOL_RESERVE_LAMPORTS ? balance - EXIT_SOL_RESERVE_LAMPORTS : 0n) : balance;
    const amount = p.amount !== undefined && p.amount < sellable ? p.amount : sellable;
    if (amount <= 0n) {
      ctx.log.info('exit due but nothing to sell', { reason });
      return { intents: [], state: persisted(s) };
    }
    ctx.log.info('exit due', { reason, amount: amount.toString() });
    return {
      intents: [
        {
          kind: 'swap',
          via: p.via,
          inputMint: p.mint,
          outputMint: p.quote,
          amount,
          ...(p.slippageBps === undefined ? {} : { slippageBps: p.slippageBps }),
          reason,
        },
      ],
      state: persisted({ ...s, exit: { reason, amount, balanceBefore: balance, at: ctx.now } }),
    };
  },
});
