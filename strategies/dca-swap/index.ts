// dca-swap: dollar-cost averaging by plain swaps. Every scheduled run buys the output with a fixed amount of the
// input, until `maxRuns` swaps have been asked for.
import { z } from 'zod';
import { defineStrategy } from '../../src/sdk/index.js';
import { baseUnitsParam, mintParam, SOL_MINT } from '../../src/sdk/symbols.js';

/** Lamports a SOL-funded DCA always leaves in the wallet for fees and rent (0.02 SOL). */
export const DCA_SOL_RESERVE_LAMPORTS = 20_000_000n;

/** Params of dca-swap, as written in the config. */
export const dcaSwapParams = z
  .strictObject({
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
  })
  .refine((p) => p.inputMint !== p.outputMint, { message: 'inputMint and outputMint must differ', path: ['outputMint'] });

/** Parsed params of dca-swap. */
export type DcaSwapParams = z.output<typeof dcaSwapParams>;

/** What dca-swap persists between runs. */
export type DcaSwapState = {
  /** Swaps asked for so far (intents returned, whatever became of them). */
  runs: number;
};

// The state comes back from the store: parse it rather than trust it, and refuse to guess when it is corrupt (a
// reset counter would spend past maxRuns).
const stateSchema = z.object({ runs: z.number().int().min(0).default(0) });

/** Swaps a fixed amount of one token into another on every run. */
export const dcaSwap = defineStrategy<typeof dcaSwapParams, DcaSwapState>({
  name: 'dca-swap',
  version: '1.0.0',
  description: 'swap a fixed amount of the input into the output on every run, optionally at most maxRuns times',
  params: dcaSwapParams,
  watches: (p) => ({ mints: [p.inputMint, p.outputMint] }),
  decide: (ctx) => {
    const p = ctx.params;
    const { runs } = stateSchema.parse(ctx.state);
    const state = { runs };
    if (p.maxRuns !== undefined && runs >= p.maxRuns) return { intents: [], state };

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
  },
});
