import { z } from 'zod';
import { LimitError } from '../errors.js';
import { pubkey } from '../schemas.js';
import { WSOL_MINT } from '../../lib/mints.js';
import { rawQuoteSchema } from './getQuote.js';

/** Lamports as a JSON integer (the service reads u64 numbers, not strings). */
const lamports = z.number().int('expected an integer').nonnegative().max(Number.MAX_SAFE_INTEGER);

/**
 * How to pay for landing (jupiter-api.md §2): `'auto'` (service default), a fixed number of lamports, a priority
 * level capped at `maxLamports`, or a Jito tip (optionally paid by another account). Priority fee OR Jito tip.
 */
export const prioritizationFeeLamportsSchema = z.union([
  z.literal('auto'),
  lamports,
  z.strictObject({
    priorityLevelWithMaxLamports: z.strictObject({
      priorityLevel: z.enum(['medium', 'high', 'veryHigh']),
      maxLamports: lamports,
      /** Estimate from the global fee market instead of the swap's writable accounts. */
      global: z.boolean().optional(),
    }),
  }),
  z.strictObject({ jitoTipLamports: lamports }),
  z.strictObject({ jitoTipLamportsWithPayer: z.strictObject({ lamports, payer: pubkey }) }),
]);
/** A prioritization fee setting. */
export type PrioritizationFeeLamports = z.input<typeof prioritizationFeeLamportsSchema>;

/**
 * The body of POST /swap/v1/swap and /swap/v1/swap-instructions (SwapRequest of the spec and of `@jup-ag/api`).
 * The client checks its parameters with it; the simulator may parse incoming bodies with it.
 */
export const swapRequestSchema = z.object({
  /** The wallet that signs and swaps. */
  userPublicKey: pubkey,
  /** The raw quote from getQuote (`.raw`), unchanged. */
  quoteResponse: rawQuoteSchema,
  /** Pays transaction fees and token-account rent instead of the user. */
  payer: pubkey.optional(),
  /** Wrap SOL in and unwrap SOL out (default true). */
  wrapAndUnwrapSol: z.boolean().optional(),
  useSharedAccounts: z.boolean().optional(),
  /** Initialized token account (of the input or output mint) collecting the platform fee; required with platformFeeBps. */
  feeAccount: pubkey.optional(),
  trackingAccount: pubkey.optional(),
  prioritizationFeeLamports: prioritizationFeeLamportsSchema.optional(),
  asLegacyTransaction: z.boolean().optional(),
  /** Initialized token account receiving the output; excludes nativeDestinationAccount. */
  destinationTokenAccount: pubkey.optional(),
  /** Account receiving native SOL out (output mint must be SOL); excludes destinationTokenAccount. */
  nativeDestinationAccount: pubkey.optional(),
  /** Simulate to set an exact compute unit limit (one extra RPC call; recommended). */
  dynamicComputeUnitLimit: z.boolean().optional(),
  skipUserAccountsRpcCalls: z.boolean().optional(),
  /** No longer maintained by the service. */
  dynamicSlippage: z.boolean().optional(),
  /** Exact compute unit price in micro-lamports; excludes prioritizationFeeLamports. */
  computeUnitPriceMicroLamports: lamports.optional(),
  /** Slots the transaction stays valid for (u8, 1 to 255; one slot is about 400 ms). */
  blockhashSlotsToExpiry: z.number().int().min(1).max(255).optional(),
});

/** Parameters of buildSwap and getSwapInstructions: the SwapRequest body. */
export type SwapRequestParams = z.input<typeof swapRequestSchema>;

/**
 * Checks a swap request before it is sent (field formats, then the cross-field rules) and returns the body to send.
 * The quote goes out as the caller's object, untouched. Throws LimitError naming the broken rule.
 */
export function swapRequestBody(endpoint: string, params: SwapRequestParams): Record<string, unknown> {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError(endpoint, rule, msg);
  };
  const parsed = swapRequestSchema.safeParse(params);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(root)';
    const field = typeof issue?.path[0] === 'string' ? issue.path[0] : 'body';
    return fail(`swap.${field}.invalid`, `${path}: ${issue?.message ?? 'invalid'}`);
  }
  const p = parsed.data;
  if (p.destinationTokenAccount !== undefined && p.nativeDestinationAccount !== undefined) {
    fail('swap.destination.exclusive', 'destinationTokenAccount and nativeDestinationAccount are mutually exclusive');
  }
  if (p.nativeDestinationAccount !== undefined && p.quoteResponse.outputMint !== WSOL_MINT) {
    fail('swap.nativeDestinationAccount.outputMint', 'nativeDestinationAccount needs a quote whose output mint is SOL');
  }
  if ((p.quoteResponse.platformFee?.feeBps ?? 0) > 0 && p.feeAccount === undefined) {
    fail('swap.feeAccount.required', 'the quote carries a platform fee (platformFeeBps), so feeAccount is required');
  }
  if (p.computeUnitPriceMicroLamports !== undefined && p.prioritizationFeeLamports !== undefined) {
    fail('swap.computeUnitPrice.exclusive', 'computeUnitPriceMicroLamports and prioritizationFeeLamports cannot be combined');
  }
  return { ...p, quoteResponse: params.quoteResponse };
}
