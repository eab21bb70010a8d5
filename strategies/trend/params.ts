import { z } from 'zod';
import { baseUnitsParam, KNOWN_SYMBOLS, mintParam } from '../../src/sdk/symbols.js';

const USDC_MINT = KNOWN_SYMBOLS.USDC!.mint;

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** Shortest and longest averaging window. */
const MIN_WINDOW_MS = 1_000;
const MAX_WINDOW_MS = 30 * 86_400_000;

/**
 * An averaging window: a duration such as "90s", "15m", "4h" or "2d" (or a number of ms), 1 s to 30 days. Parses to
 * ms. A duration, not a number of samples: it means the same whatever the history's resolution.
 */
export const windowParam = z
  .custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', { message: 'expected a duration such as "15m" or "4h"' })
  .transform((v, ctx) => {
    const match = typeof v === 'string' ? /^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d)\s*$/.exec(v) : null;
    const ms = typeof v === 'number' ? v : match ? Number(match[1]) * UNIT_MS[match[2]!]! : NaN;
    if (!Number.isFinite(ms) || ms < MIN_WINDOW_MS || ms > MAX_WINDOW_MS) {
      ctx.addIssue({ code: 'custom', message: `expected a duration from "1s" to "30d" such as "15m" or "4h", got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return Math.round(ms);
  });

/** Params of trend, as written in the config. */
export const trendParams = z
  .strictObject({
    /** What is bought on a golden cross and sold on a death cross: a symbol or a mint address. */
    base: mintParam,
    /** What pays for it and what it is sold for, and the unit of the averages (default USDC). */
    quote: mintParam.optional().transform((q) => q ?? USDC_MINT),
    /** The fast moving average's window, e.g. "15m": the mean of the price history's samples this recent. */
    fast: windowParam,
    /** The slow moving average's window, e.g. "1h"; longer than `fast`. */
    slow: windowParam,
    /**
     * How far apart the averages must be for a cross to count, basis points of the slow one (50 = 0.5 %): the fast
     * one must rise above slow × (1 + gap) for a golden cross and fall below slow × (1 − gap) for a death cross, so
     * small wiggles around the crossing do not buy and sell back and forth. 0 (the default): any crossing counts.
     */
    minGapBps: z.number().min(0).max(5_000).default(0),
    /** Quote to spend per entry, base units of the quote (e.g. "50000000" = 50 USDC). */
    amount: baseUnitsParam.optional(),
    /** Share of the quote balance to spend per entry (0.25 = a quarter); with `amount`, the smaller of the two. */
    fractionOfQuote: z.number().positive().max(1).optional(),
    /** Most quote spent per entry, base units of the quote, whatever `amount` or `fractionOfQuote` say. */
    maxAmount: baseUnitsParam.optional(),
    /** An entry worth less than this is not made (fees would eat it), USD. */
    minTradeUsd: z.number().min(0).default(1),
    /** On a death cross, sell the whole base balance instead of only what the last entry bought. */
    sellAll: z.boolean().default(false),
    /** Ultra (order + execute) or Metis (quote + swap through RPC). */
    via: z.enum(['ultra', 'metis']).default('ultra'),
    /** Maximum slippage in basis points; the venue picks one when omitted. */
    slippageBps: z.number().int().min(1).max(10_000).optional(),
  })
  .refine((p) => p.fast < p.slow, { message: 'the fast window must be shorter than the slow one', path: ['fast'] })
  .refine((p) => p.amount !== undefined || p.fractionOfQuote !== undefined, { message: 'size the entries: set amount, fractionOfQuote, or both', path: ['amount'] })
  .refine((p) => p.base !== p.quote, { message: 'base and quote must differ', path: ['quote'] });

/** Parsed params of trend. */
export type TrendParams = z.output<typeof trendParams>;
