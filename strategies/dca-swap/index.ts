// dca-swap: dollar-cost averaging by plain swaps. Every scheduled run buys the output with a fixed amount of the
// input, until `maxRuns` swaps have been asked for.
// Superseded by `dca` with `mode: swaps`, which decides through the same code (strategies/dca/swaps.ts) and adds a
// USD price band; dca-swap stays registered, with the same params, state and decisions, for existing configs.
import { z } from 'zod';
import { defineStrategy } from '../../src/sdk/index.js';
import { decideSwapRun, swapRunShape, type SwapRunState } from '../dca/swaps.js';

export { DCA_SOL_RESERVE_LAMPORTS } from '../dca/swaps.js';

/** Params of dca-swap, as written in the config (inputMint, outputMint, amount, via, slippageBps, maxRuns). */
export const dcaSwapParams = z
  .strictObject(swapRunShape)
  .refine((p) => p.inputMint !== p.outputMint, { message: 'inputMint and outputMint must differ', path: ['outputMint'] });

/** Parsed params of dca-swap. */
export type DcaSwapParams = z.output<typeof dcaSwapParams>;

/** What dca-swap persists between runs: `runs`, the swaps asked for so far. */
export type DcaSwapState = SwapRunState;

/** Swaps a fixed amount of one token into another on every run. */
export const dcaSwap = defineStrategy<typeof dcaSwapParams, DcaSwapState>({
  name: 'dca-swap',
  version: '1.0.0',
  description: 'swap a fixed amount of the input into the output on every run, optionally at most maxRuns times',
  params: dcaSwapParams,
  watches: (p) => ({ mints: [p.inputMint, p.outputMint] }),
  // A fixed amount each run: the balance only says whether it can pay, so a snapshot unsure of a run's swap costs
  // no run (see StrategyDefinition.exactWallet).
  exactWallet: false,
  emits: (p) => [{ kind: 'swap', via: p.via }],
  decide: (ctx) => decideSwapRun(ctx, ctx.params),
});
