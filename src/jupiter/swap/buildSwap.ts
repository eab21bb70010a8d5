import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { base64Tx, u64Loose } from '../schemas.js';
import { routeErrorFromBody } from './routeError.js';
import { swapRequestBody, type SwapRequestParams } from './swapRequest.js';

const blockHeight = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d+$/, 'expected a block height').transform(Number),
]);

/** How the priority fee was set, when the service reports it (micro-lamports per compute unit, or a Jito tip). */
export const prioritizationTypeSchema = z.object({
  computeBudget: z.object({ microLamports: z.number().nullish(), estimatedMicroLamports: z.number().nullish() }).nullish(),
  jito: z.object({ lamports: z.number().nullish() }).nullish(),
});

/** The slippage the service chose with `dynamicSlippage` (no longer maintained by the service). */
export const dynamicSlippageReportSchema = z.object({
  slippageBps: z.number().nullish(),
  /** Base units of the quote's threshold mint. */
  otherAmount: u64Loose.nullish(),
  simulatedIncurredSlippageBps: z.number().nullish(),
  amplificationRatio: z.string().nullish(),
  categoryName: z.string().nullish(),
  heuristicMaxSlippageBps: z.number().nullish(),
});

/** The service's simulation failure, when it simulated (e.g. with dynamicComputeUnitLimit); a string or an object. */
export const simulationErrorSchema = z.union([
  z.string(),
  z.object({ errorCode: z.string().nullish(), error: z.string().nullish() }),
]);

/** The /swap/v1/swap body (jupiter-api.md §2 SwapResponse, plus the fields real responses carry). */
export const swapResponseSchema = z.object({
  /** Base64 unsigned transaction (versioned unless asLegacyTransaction). */
  swapTransaction: base64Tx,
  lastValidBlockHeight: blockHeight,
  /** Lamports. */
  prioritizationFeeLamports: z.number().int().nonnegative().nullish(),
  computeUnitLimit: z.number().int().nonnegative().nullish(),
  prioritizationType: prioritizationTypeSchema.nullish(),
  dynamicSlippageReport: dynamicSlippageReportSchema.nullish(),
  /** Null when the simulation passed or was not run; the transaction is returned either way. */
  simulationError: simulationErrorSchema.nullish(),
});
/** A parsed swap transaction. */
export type SwapTransaction = z.output<typeof swapResponseSchema>;

/**
 * POST /swap/v1/swap: an unsigned swap transaction built from a raw quote (`getQuote(...).raw`, sent unchanged).
 * It only builds (nothing is sent to the chain), so the default retry applies. Throws LimitError for a broken
 * request (destinations both set, platform fee without feeAccount, ...) and RouteError for a Swap V1 errorCode.
 */
export async function buildSwap(client: JupiterTransport, params: SwapRequestParams, options: CallOptions = {}): Promise<SwapTransaction> {
  const body = swapRequestBody('swap.swap', params);
  return client.request({
    endpoint: 'swap.swap',
    method: 'POST',
    path: '/swap/v1/swap',
    body,
    schema: swapResponseSchema,
    mapError: routeErrorFromBody('swap.swap'),
    signal: options.signal,
  });
}
