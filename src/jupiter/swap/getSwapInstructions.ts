import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { instructionSchema, pubkey } from '../schemas.js';
import { routeErrorFromBody } from './routeError.js';
import { dynamicSlippageReportSchema, simulationErrorSchema } from './buildSwap.js';
import { swapRequestBody, type SwapRequestParams } from './swapRequest.js';

/** The /swap/v1/swap-instructions body: the swap's instructions, in order, plus its address lookup tables. */
export const swapInstructionsResponseSchema = z.object({
  /** Present only for token-ledger routes. */
  tokenLedgerInstruction: instructionSchema.nullish(),
  computeBudgetInstructions: z.array(instructionSchema),
  /** Create the user's token accounts (idempotent). */
  setupInstructions: z.array(instructionSchema),
  swapInstruction: instructionSchema,
  /** Unwraps SOL; null when not needed. */
  cleanupInstruction: instructionSchema.nullish(),
  /** E.g. a Jito tip. Older responses omit it. */
  otherInstructions: z.array(instructionSchema).default([]),
  addressLookupTableAddresses: z.array(pubkey),
  /** Lamports. */
  prioritizationFeeLamports: z.number().int().nonnegative().nullish(),
  computeUnitLimit: z.number().int().nonnegative().nullish(),
  dynamicSlippageReport: dynamicSlippageReportSchema.nullish(),
  simulationError: simulationErrorSchema.nullish(),
});
/** Parsed swap instructions. */
export type SwapInstructions = z.output<typeof swapInstructionsResponseSchema>;

/**
 * POST /swap/v1/swap-instructions: the instructions of the swap for a raw quote, to compose a custom transaction.
 * Same body and checks as buildSwap; default retry (nothing is sent to the chain).
 */
export async function getSwapInstructions(client: JupiterTransport, params: SwapRequestParams, options: CallOptions = {}): Promise<SwapInstructions> {
  const body = swapRequestBody('swap.swapInstructions', params);
  return client.request({
    endpoint: 'swap.swapInstructions',
    method: 'POST',
    path: '/swap/v1/swap-instructions',
    body,
    schema: swapInstructionsResponseSchema,
    mapError: routeErrorFromBody('swap.swapInstructions'),
    signal: options.signal,
  });
}
