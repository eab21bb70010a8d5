// threshold-rebalance: keeps a two-token portfolio near a target weight. Nothing happens inside the band; outside
// it, one swap moves the portfolio back to the target, at most maxSwapUsd at a time. Its own pending swaps count
// as done (their input is gone, their output is on its way), so a wallet feed that lags does not make it ask for
// the same correction again in every window.
import { z } from 'zod';
import { defineStrategy, type PendingIntentView, type PriceView } from '../../src/sdk/index.js';
import { mintParam, SOL_MINT } from '../../src/sdk/symbols.js';

/** Lamports never sold when SOL is one side of the portfolio (0.02 SOL for fees and rent). */
export const REBALANCE_SOL_RESERVE_LAMPORTS = 20_000_000n;

/** Params of threshold-rebalance, as written in the config. */
export const thresholdRebalanceParams = z
  .strictObject({
    /** The token whose weight is held (e.g. SOL): a symbol or a mint address. */
    base: mintParam,
    /** The token on the other side (e.g. USDC): a symbol or a mint address. */
    quote: mintParam,
    /** Target share of the portfolio's USD value held in `base`, 0..1. */
    targetBaseWeight: z.number().min(0).max(1),
    /** Allowed drift in percentage points of weight (5 = a 0.50 target may float between 0.45 and 0.55). */
    bandPct: z.number().positive().max(50),
    /** Largest swap, USD. */
    maxSwapUsd: z.number().positive(),
    /** Smaller corrections are skipped (fees would eat them), USD. */
    minSwapUsd: z.number().min(0).default(1),
    /** Ultra (order + execute) or Metis (quote + swap through RPC). */
    via: z.enum(['ultra', 'metis']).default('ultra'),
    /** Maximum slippage in basis points; the venue picks one when omitted. */
    slippageBps: z.number().int().min(1).max(10_000).optional(),
  })
  .refine((p) => p.base !== p.quote, { message: 'base and quote must differ', path: ['quote'] })
  .refine((p) => p.minSwapUsd <= p.maxSwapUsd, { message: 'minSwapUsd must not exceed maxSwapUsd', path: ['minSwapUsd'] });

/** Parsed params of threshold-rebalance. */
export type ThresholdRebalanceParams = z.output<typeof thresholdRebalanceParams>;

/** USD value of `amount` base units at `price`. A float: values are for comparison, never for amounts. */
function usdValue(amount: bigint, price: PriceView): number {
  return (Number(amount) / 10 ** price.decimals) * price.usd;
}

/** Base units worth `usd` at `price`, rounded down. */
function unitsFor(usd: number, price: PriceView): bigint {
  const units = Math.floor((usd / price.usd) * 10 ** price.decimals);
  return Number.isFinite(units) && units > 0 ? BigInt(Math.min(units, Number.MAX_SAFE_INTEGER)) : 0n;
}

/** What may be sold of a mint: the whole balance, less the fee reserve for SOL. */
function sellable(balance: bigint, mint: string): bigint {
  if (mint !== SOL_MINT) return balance;
  return balance > REBALANCE_SOL_RESERVE_LAMPORTS ? balance - REBALANCE_SOL_RESERVE_LAMPORTS : 0n;
}

/**
 * Balances of base and quote as they will be once the instance's pending swaps between them settle: a pending
 * swap's input is taken off, its output added at today's prices (an estimate: the venue's fill decides).
 */
function projected(
  balances: { base: bigint; quote: bigint },
  pending: readonly PendingIntentView[],
  p: { base: string; quote: string },
  prices: { base: PriceView; quote: PriceView },
): { base: bigint; quote: bigint; swaps: number } {
  const out = { base: balances.base, quote: balances.quote, swaps: 0 };
  for (const { intent } of pending) {
    if (intent.kind !== 'swap') continue;
    const from = sideOf(intent.inputMint, p);
    const to = sideOf(intent.outputMint, p);
    if (!from || !to || from === to) continue;
    out[from] = out[from] > intent.amount ? out[from] - intent.amount : 0n;
    out[to] += unitsFor(usdValue(intent.amount, prices[from]), prices[to]);
    out.swaps += 1;
  }
  return out;
}

/** Which of the pair a mint is, if either. */
function sideOf(mint: string, p: { base: string; quote: string }): 'base' | 'quote' | undefined {
  return mint === p.base ? 'base' : mint === p.quote ? 'quote' : undefined;
}

const pct = (weight: number): string => `${(weight * 100).toFixed(1)}%`;

/** Rebalances two tokens toward a target USD weight when the weight leaves the band. */
export const thresholdRebalance = defineStrategy({
  name: 'threshold-rebalance',
  version: '1.1.0',
  description: 'swap back toward targetBaseWeight when the USD weight of base drifts beyond bandPct',
  params: thresholdRebalanceParams,
  watches: (p) => ({ mints: [p.base, p.quote] }),
  emits: (p) => [{ kind: 'swap', via: p.via }],
  decide: (ctx) => {
    const p = ctx.params;
    const basePrice = ctx.price(p.base);
    const quotePrice = ctx.price(p.quote);
    if (!basePrice || !quotePrice || !(basePrice.usd > 0) || !(quotePrice.usd > 0)) {
      ctx.log.debug('skipping: no price for base or quote');
      return [];
    }
    const held = projected({ base: ctx.wallet.balance(p.base), quote: ctx.wallet.balance(p.quote) }, ctx.pendingIntents, p, { base: basePrice, quote: quotePrice });
    if (held.swaps > 0) ctx.log.debug('counting pending swaps as done', { swaps: held.swaps });
    const baseBalance = held.base;
    const quoteBalance = held.quote;
    const baseUsd = usdValue(baseBalance, basePrice);
    const totalUsd = baseUsd + usdValue(quoteBalance, quotePrice);
    if (!(totalUsd > 0)) return [];

    const weight = baseUsd / totalUsd;
    const drift = weight - p.targetBaseWeight;
    if (Math.abs(drift) * 100 <= p.bandPct) return [];

    const usd = Math.min(Math.abs(drift) * totalUsd, p.maxSwapUsd);
    const sellBase = drift > 0;
    const [inputMint, outputMint, price, balance] = sellBase
      ? [p.base, p.quote, basePrice, baseBalance]
      : [p.quote, p.base, quotePrice, quoteBalance];
    const available = sellable(balance, inputMint);
    const wanted = unitsFor(usd, price);
    const amount = wanted < available ? wanted : available;
    if (amount <= 0n || usdValue(amount, price) < p.minSwapUsd) return [];

    return [
      {
        kind: 'swap',
        via: p.via,
        inputMint,
        outputMint,
        amount,
        ...(p.slippageBps === undefined ? {} : { slippageBps: p.slippageBps }),
        reason: `base weight ${pct(weight)} vs target ${pct(p.targetBaseWeight)} ± ${p.bandPct} pts: ${sellBase ? 'sell' : 'buy'} base`,
      },
    ];
  },
});
