import { z } from 'zod';
import { KNOWN_SYMBOLS, mintParam, resolveMint } from '../../src/sdk/symbols.js';

/** One token of the portfolio and its target share of the USD value. */
export interface Target {
  mint: string;
  weight: number;
}

/** Target weights by symbol or mint address (`{ SOL: 0.5, JUP: 0.2, USDC: 0.3 }`), parsed to mints; they sum to 1. */
const weightsParam = z
  .record(z.string(), z.number().min(0).max(1))
  .transform((record, ctx): Target[] => {
    const out: Target[] = [];
    for (const [name, weight] of Object.entries(record)) {
      const mint = resolveMint(name);
      if (mint === undefined) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${JSON.stringify(name)} is neither a known symbol (${Object.keys(KNOWN_SYMBOLS).join(', ')}) nor a mint address` });
        continue;
      }
      if (out.some((t) => t.mint === mint)) {
        ctx.addIssue({ code: 'custom', path: [name], message: `${JSON.stringify(name)} names a token already listed` });
        continue;
      }
      out.push({ mint, weight });
    }
    return out;
  });

/** Params of rebalance, as written in the config. */
export const rebalanceParams = z
  .strictObject({
    /** Target share of the portfolio's USD value per token: 2 to 10 tokens, weights 0..1 summing to 1. */
    weights: weightsParam,
    /** The token every trade goes through (sells pay into it, buys are paid from it); one of the weighted tokens. */
    quote: mintParam,
    /** Rebalance once a token's weight is this many percentage points off its target (5 = 0.40 may float 0.35..0.45). */
    driftPct: z.number().positive().max(50),
    /** Smaller trades are skipped (fees would eat them), USD. */
    minTradeUsd: z.number().min(0).default(1),
    /** Largest single swap, USD; unlimited when omitted. */
    maxTradeUsd: z.number().positive().optional(),
    /** Ultra (order + execute) or Metis (quote + swap through RPC). */
    via: z.enum(['ultra', 'metis']).default('ultra'),
    /** Maximum slippage in basis points; the venue picks one when omitted. */
    slippageBps: z.number().int().min(1).max(10_000).optional(),
  })
  .refine((p) => p.weights.length >= 2 && p.weights.length <= 10, { message: 'weigh 2 to 10 tokens', path: ['weights'] })
  .refine((p) => Math.abs(p.weights.reduce((sum, t) => sum + t.weight, 0) - 1) < 1e-9, { message: 'the weights must sum to 1', path: ['weights'] })
  .refine((p) => p.weights.some((t) => t.mint === p.quote), { message: 'the quote must be one of the weighted tokens', path: ['quote'] })
  .refine((p) => p.maxTradeUsd === undefined || p.minTradeUsd <= p.maxTradeUsd, { message: 'minTradeUsd must not exceed maxTradeUsd', path: ['minTradeUsd'] });

/** Parsed params of rebalance. */
export type RebalanceParams = z.output<typeof rebalanceParams>;
