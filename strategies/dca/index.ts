// dca: dollar-cost averaging, in one of two modes.
//   mode swaps: every scheduled run swaps a fixed amount of the input into the output (Ultra or Metis), at most
//     maxRuns times, skipping runs while the output's USD price is outside [minPriceUsd, maxPriceUsd]. This is
//     dca-swap's behaviour plus the band; dca-swap decides through the same code.
//   mode recurring: places one time-based order of the Recurring API (total split into numberOfOrders buys, one
//     every interval; the band becomes the order's price bounds), follows it in the wallet's open orders until it
//     ends (filled or cancelled), then places the next while rounds remain. The venue's keeper makes the buys.
import { defineStrategy } from '../../src/sdk/index.js';
import { dcaParams, type DcaParams } from './params.js';
import { decideRecurring, type DcaRecurringState } from './recurring.js';
import { decideSwapRun, type SwapRunState } from './swaps.js';

export { dcaParams, dcaSwapsParams, dcaRecurringParams, intervalParam, RECURRING_MIN_INTERVAL_SECONDS, type DcaParams, type DcaRecurringParams } from './params.js';
export { decideRecurring, RECURRING_MIN_ORDER_USD, RECURRING_MIN_BUY_USD, type DcaRecurringState } from './recurring.js';
export { decideSwapRun, swapRunShape, DCA_SOL_RESERVE_LAMPORTS, type SwapRunParams, type SwapRunState } from './swaps.js';

/** What dca persists: the swap count in mode swaps, the rounds of orders in mode recurring. */
export type DcaState = SwapRunState | DcaRecurringState;

/** Dollar-cost averaging by client-side swaps in a price band, or by orders of the Recurring API. */
export const dca = defineStrategy<typeof dcaParams, DcaState>({
  name: 'dca',
  version: '1.0.0',
  description: 'dollar-cost average: a fixed swap per run inside a USD price band (mode swaps), or recurring orders placed one after another (mode recurring)',
  params: dcaParams,
  watches: (p: DcaParams) => ({ mints: [p.inputMint, p.outputMint] }),
  // A fixed amount each run, or one recurring order at a time followed through its pending create: the balance only
  // says whether it can pay, so a snapshot unsure of its intent costs no run (see StrategyDefinition.exactWallet).
  exactWallet: false,
  emits: (p) => (p.mode === 'swaps' ? [{ kind: 'swap', via: p.via }] : [{ kind: 'recurring.create' }]),
  decide: (ctx) => {
    const p = ctx.params;
    return p.mode === 'swaps' ? decideSwapRun(ctx, p) : decideRecurring(ctx, p);
  },
});
