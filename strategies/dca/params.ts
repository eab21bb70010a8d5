// Params of dca, as written in the config: `mode: swaps` (client-side swaps, dca-swap's params plus a price band)
// or `mode: recurring` (orders of the Recurring API, placed one after another).
import { z } from 'zod';
import { baseUnitsParam, mintParam } from '../../src/sdk/symbols.js';
import { swapRunShape } from './swaps.js';

/** The shortest interval between two buys of a recurring order the service takes, seconds. */
export const RECURRING_MIN_INTERVAL_SECONDS = 60;

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };

/** An interval: seconds as a number, or a string such as "90s", "15m", "1h", "1d", "1w". Parses to whole seconds. */
export const intervalParam = z
  .union([z.number(), z.string()])
  .transform((v, ctx) => {
    const m = typeof v === 'number' ? null : /^\s*(\d+)\s*([smhdw]?)\s*$/.exec(v);
    const seconds = typeof v === 'number' ? v : m ? Number(m[1]) * (UNIT_SECONDS[m[2] || 's'] ?? 1) : NaN;
    if (!Number.isSafeInteger(seconds) || seconds < RECURRING_MIN_INTERVAL_SECONDS) {
      ctx.addIssue({ code: 'custom', message: `expected an interval of at least ${RECURRING_MIN_INTERVAL_SECONDS} s: whole seconds, or a string such as "15m", "1h", "1d", got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return seconds;
  });

/** A USD price bound of the output token (a float: prices may be numbers). */
const priceUsd = z.number().positive().finite();

const band = {
  /** Buy only while the output's USD price is at least this. */
  minPriceUsd: priceUsd.optional(),
  /** Buy only while the output's USD price is at most this. */
  maxPriceUsd: priceUsd.optional(),
};

const distinctMints = (p: { inputMint: string; outputMint: string }) => p.inputMint !== p.outputMint;
const orderedBand = (p: { minPriceUsd?: number | undefined; maxPriceUsd?: number | undefined }) =>
  p.minPriceUsd === undefined || p.maxPriceUsd === undefined || p.minPriceUsd <= p.maxPriceUsd;

/** mode swaps: a swap of `amount` on every run, skipped while the output's price is outside the band. */
export const dcaSwapsParams = z
  .strictObject({ mode: z.literal('swaps'), ...swapRunShape, ...band })
  .refine(distinctMints, { message: 'inputMint and outputMint must differ', path: ['outputMint'] })
  .refine(orderedBand, { message: 'minPriceUsd must not exceed maxPriceUsd', path: ['minPriceUsd'] });

/** mode recurring: `rounds` orders of the Recurring API, one after another, each `total` split into `numberOfOrders` buys. */
export const dcaRecurringParams = z
  .strictObject({
    mode: z.literal('recurring'),
    /** What is spent: a symbol (SOL, USDC, ...) or a mint address. */
    inputMint: mintParam,
    /** What is bought: a symbol or a mint address. */
    outputMint: mintParam,
    /** Deposited into each order, base units of the input; the service wants at least $100 an order and $50 a buy. */
    total: baseUnitsParam,
    /** Buys each order makes (the total is split evenly), at least 2. */
    numberOfOrders: z.number().int().min(2).max(1_000_000),
    /** Time between two buys of an order: seconds, or "15m", "1h", "1d"... at least 60 s. */
    interval: intervalParam,
    /** Orders placed one after another: the next once the previous one has ended (filled or cancelled). */
    rounds: z.number().int().min(1).default(1),
    ...band,
  })
  .refine(distinctMints, { message: 'inputMint and outputMint must differ', path: ['outputMint'] })
  .refine(orderedBand, { message: 'minPriceUsd must not exceed maxPriceUsd', path: ['minPriceUsd'] });

/** Params of dca. */
export const dcaParams = z.discriminatedUnion('mode', [dcaSwapsParams, dcaRecurringParams]);

/** Parsed params of dca. */
export type DcaParams = z.output<typeof dcaParams>;
/** Parsed params of dca in mode recurring. */
export type DcaRecurringParams = z.output<typeof dcaRecurringParams>;
