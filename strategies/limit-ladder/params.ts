import { z } from 'zod';
import { baseUnitsParam, mintParam } from '../../src/sdk/symbols.js';

/** Params of limit-ladder, as written in the config. */
export const limitLadderParams = z
  .strictObject({
    /** The token the ladder buys below the price and sells above it (e.g. SOL): a symbol or a mint address. */
    base: mintParam,
    /** The token it prices and pays in (e.g. USDC): a symbol or a mint address. */
    quote: mintParam,
    /** Orders on each side of the centre: `levelsPerSide` buys below it and as many sells above it. */
    levelsPerSide: z.number().int().min(1).max(20),
    /** Distance between two levels, percent of the centre price (1 = levels at 99, 98, ... and 101, 102, ...). */
    spacingPct: z.number().positive().max(50),
    /** What each buy order spends, in base units of the quote (e.g. "20000000" = 20 USDC). */
    buyAmount: baseUnitsParam,
    /** What each sell order spends, in base units of the base token (e.g. "100000000" = 0.1 SOL). */
    sellAmount: baseUnitsParam,
    /**
     * How far the price may move from the centre, percent, before the ladder cancels every order and re-centres on
     * the price. Default: half a spacing beyond the outermost level.
     */
    rangePct: z.number().positive().max(99).optional(),
    /** Most orders placed or cancelled in one run (the risk gate refuses a decision with too many intents). */
    maxOrdersPerRun: z.number().int().min(1).max(20).default(4),
  })
  .refine((p) => p.base !== p.quote, { message: 'base and quote must differ', path: ['quote'] })
  .refine((p) => p.levelsPerSide * p.spacingPct < 100, { message: 'levelsPerSide × spacingPct must stay under 100 % (the lowest buy would be at or below 0)', path: ['spacingPct'] })
  .refine((p) => p.rangePct === undefined || p.rangePct >= p.spacingPct, { message: 'rangePct must be at least one spacing, or no level could ever fill before the ladder re-centres', path: ['rangePct'] });

/** Parsed params of limit-ladder. */
export type LimitLadderParams = z.output<typeof limitLadderParams>;

/** The range in percent the ladder keeps before re-centring: rangePct, or half a spacing past the outermost level. */
export function rangeOf(p: LimitLadderParams): number {
  return p.rangePct ?? p.spacingPct * (p.levelsPerSide + 0.5);
}
