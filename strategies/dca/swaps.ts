// Client-side DCA: one swap of a fixed amount per run, optionally only while the output's USD price is inside a
// band. dca (mode swaps) and the older dca-swap both decide through decideSwapRun.
import { z } from 'zod';
import type { Decision, StrategyContext } from '../../src/sdk/index.js';
import { baseUnitsParam, mintParam, SOL_MINT } from '../../src/sdk/symbols.js';

/** Lamports a SOL-funded DCA always leaves in the wallet for fees and rent (0.02 SOL). */
export const DCA_SOL_RESERVE_LAMPORTS = 20_000_000n;

/** The params a swap run reads, as dca-swap has always written them (zod shape, shared by both strategies). */
export const swapRunShape = {
  /** What is spent: a symbol (SOL, USDC, ...) or a mint address. */
  inputMint: mintParam,
  /** What is bought: a symbol or a mint address. */
  outputMint: mintParam,
  /** Spent per run, in base units of the input (lamports for SOL): a string such as "10000000". */
  amount: baseUnitsParam,
  /** Ultra (order + execute) or Metis (quote + swap through RPC). */
  via: z.enum(['ultra', 'metis']).default('ultra'),
  /** Maximum slippage in basis points; the venue picks one when omitted. */
  slippageBps: z.number().int().min(1).max(10_000).optional(),
  /** Stop after this many swaps; unlimited when omitted. */
  maxRuns: z.number().int().min(1).optional(),
};

/** What a swap run needs to decide, parsed. */
export interface SwapRunParams {
  inputMint: string;
  outputMint: string;
  /** Base units of the input per run. */
  amount: bigint;
  via: 'ultra' | 'metis';
  slippageBps?: number | undefined;
  maxRuns?: number | undefined;
  /** Runs are skipped while the output's USD price is below this. */
  minPriceUsd?: number | undefined;
  /** Runs are skipped while the output's USD price is above this. */
  maxPriceUsd?: number | undefined;
}

/** What a swap run persists between runs. */
export type SwapRunState = {
  /** Swaps asked for so far (intents returned, whatever became of them). */
  runs: number;
};

// The state comes back from the store: parse it rather than trust it, and refuse to guess when it is corrupt (a
// reset counter would spend past maxRuns).
const stateSchema = z.object({ runs: z.number().int().min(0).default(0) });

/** The parts of the context a swap run reads. */
export type SwapRunContext = Pick<StrategyContext<unknown, Readonly<Record<string, unknown>>>, 'price' | 'wallet' | 'log' | 'state'>;

/** Whether the output's USD price is inside the band; a missing price is outside (the band cannot be checked). */
function bandVerdict(ctx: SwapRunContext, p: SwapRunParams): { ok: true } | { ok: false; message: string; fields: Record<string, unknown> } {
  if (p.minPriceUsd === undefined && p.maxPriceUsd === undefined) return { ok: true };
  const usd = ctx.price(p.outputMint)?.usd;
  const band = { minPriceUsd: p.minPriceUsd ?? null, maxPriceUsd: p.maxPriceUsd ?? null };
  if (usd === undefined || !(usd > 0)) return { ok: false, message: 'skipping: no price for the output, so the band cannot be checked', fields: band };
  if ((p.minPriceUsd !== undefined && usd < p.minPriceUsd) || (p.maxPriceUsd !== undefined && usd > p.maxPriceUsd)) {
    return { ok: false, message: 'skipping: price outside the band', fields: { usd, ...band } };
  }
  return { ok: true };
}

/**
 * One DCA run: a swap of `amount` of the input into the output, unless maxRuns swaps were asked for already, the
 * output's price is outside the band, or the wallet lacks the amount (plus 0.02 SOL when spending SOL). A skipped
 * run does not count.
 */
export function decideSwapRun(ctx: SwapRunContext, p: SwapRunParams): Decision<SwapRunState> {
  const { runs } = stateSchema.parse(ctx.state);
  const state = { runs };
  if (p.maxRuns !== undefined && runs >= p.maxRuns) return { intents: [], state };

  const band = bandVerdict(ctx, p);
  if (!band.ok) {
    ctx.log.info(band.message, band.fields);
    return { intents: [], state };
  }

  const balance = ctx.wallet.balance(p.inputMint);
  const needed = p.inputMint === SOL_MINT ? p.amount + DCA_SOL_RESERVE_LAMPORTS : p.amount;
  if (balance < needed) {
    ctx.log.info('skipping: balance below the amount', { balance: balance.toString(), needed: needed.toString() });
    return { intents: [], state };
  }
  return {
    intents: [
      {
        kind: 'swap',
        via: p.via,
        inputMint: p.inputMint,
        outputMint: p.outputMint,
        amount: p.amount,
        ...(p.slippageBps === undefined ? {} : { slippageBps: p.slippageBps }),
        reason: `dca run ${runs + 1}${p.maxRuns === undefined ? '' : ` of ${p.maxRuns}`}`,
      },
    ],
    state: { runs: runs + 1 },
  };
}
