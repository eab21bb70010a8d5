import { z } from 'zod';
import { address, queryBool, queryInt, u64String } from './params.js';

/*
 * Requests of the Metis Swap API, /swap/v1 (openapi/swap-v1.yaml; jupiter-api.md §2). Bad input is answered
 * `{error, errorCode}` with 400, the routing errors' shape; a malformed request gets errorCode INVALID_REQUEST.
 */

/** 2^64: a uint64 is below it (a JSON number that large has lost its last digits anyway). */
const UINT64_CEILING = 2 ** 64;

/** A raw amount the spec types `string`: digits (u64), which the desk reads with BigInt. */
const digits = z.string().regex(/^\d+$/, 'must be an integer amount as a string of digits');
/** A u64 the spec types `integer` (uint64) in a JSON body. */
const uint64 = z.number().int('must be an integer').min(0).lt(UINT64_CEILING, 'does not fit in a uint64');
/** A u16 the spec types `integer` (uint16) in a JSON body. */
const uint16 = z.number().int('must be an integer').min(0).max(65_535);

/** The DEX labels of `dexes` and `excludeDexes`: repeated keys or comma-separated (the route merges them). */
const dexList = z.array(z.string());

/**
 * Query of GET /swap/v1/quote. `amount` is an integer (uint64) greater than 0, of the input mint for ExactIn and
 * of the output mint for ExactOut; `maxAccounts` a uint64 (default 64; above 64 the desk answers the service's
 * MAX_ACCOUNT_GREATER_THAN_MAX). `slippageBps` and `platformFeeBps` are uint16 in the spec; tolerances and fees
 * above 100% have no documented meaning, and the simulator refuses them.
 */
export const swapQuoteQuery = z.object({
  inputMint: address,
  outputMint: address,
  amount: u64String,
  slippageBps: queryInt(0, 10_000).default(50),
  swapMode: z.enum(['ExactIn', 'ExactOut']).default('ExactIn'),
  dexes: dexList.optional(),
  excludeDexes: dexList.optional(),
  restrictIntermediateTokens: queryBool.optional(),
  onlyDirectRoutes: queryBool.optional(),
  asLegacyTransaction: queryBool.optional(),
  platformFeeBps: queryInt(0, 10_000).optional(),
  maxAccounts: queryInt(0).optional(),
  instructionVersion: z.enum(['V1', 'V2']).optional(),
  dynamicSlippage: queryBool.optional(),
  forJitoBundle: queryBool.optional(),
});
/** A parsed quote query. */
export type SwapQuoteQuery = z.output<typeof swapQuoteQuery>;

/**
 * The QuoteResponse a /swap body carries back (swap-v1.yaml QuoteResponse): the nine required fields, the amounts as
 * digit strings. `routePlan` steps need only `swapInfo` (with `ammKey`, the mints and amounts; `label` optional);
 * `percent` is a nullable uint8 and `bps` a uint16. `platformFee` may be null (the real example sends `null`).
 * Fields the spec does not name are kept: the quote is the service's own answer, sent back unchanged.
 */
export const quoteResponse = z.looseObject({
  inputMint: address,
  inAmount: digits,
  outputMint: address,
  outAmount: digits,
  otherAmountThreshold: digits,
  swapMode: z.enum(['ExactIn', 'ExactOut']),
  slippageBps: uint16,
  platformFee: z.object({ amount: z.string().optional(), feeBps: uint16.optional() }).nullish(),
  priceImpactPct: z.string(),
  routePlan: z.array(
    z.looseObject({
      swapInfo: z.looseObject({
        ammKey: z.string(),
        label: z.string().optional(),
        inputMint: z.string(),
        outputMint: z.string(),
        inAmount: z.string(),
        outAmount: z.string(),
        feeAmount: z.string().nullish(),
        feeMint: z.string().nullish(),
      }),
      percent: z.number().int().min(0).max(255).nullish(),
      bps: uint16.optional(),
    }),
  ),
  contextSlot: uint64.optional(),
  timeTaken: z.number().optional(),
  mostReliableAmmsQuoteReport: z.object({ info: z.record(z.string(), z.string()).optional() }).nullish(),
  /** In `@jup-ag/api`'s QuoteResponse (jupiter-api.md §2: QAN only). */
  instructionVersion: z.enum(['V1', 'V2']).nullish(),
});

/**
 * `prioritizationFeeLamports` (swap-v1.yaml): one of the three objects the spec lists, none with other keys, or
 * (its prose) a fixed integer of lamports, or `"auto"`, the default. `@jup-ag/api` (the official TypeScript
 * wrapper) writes a number or "auto" as `{}`, and the service takes it as the default: so does the simulator.
 */
export const prioritizationFeeLamports = z.union([
  z.literal('auto'),
  uint64,
  z.strictObject({}),
  z.strictObject({ priorityLevelWithMaxLamports: z.strictObject({ priorityLevel: z.enum(['medium', 'high', 'veryHigh']), maxLamports: uint64, global: z.boolean().optional() }) }),
  z.strictObject({ jitoTipLamports: uint64 }),
  z.strictObject({ jitoTipLamportsWithPayer: z.strictObject({ lamports: uint64, payer: address }) }),
]);

/**
 * Body of POST /swap/v1/swap and /swap-instructions (swap-v1.yaml SwapRequest): `userPublicKey` and
 * `quoteResponse` required. The spec's rules across fields: `destinationTokenAccount` and
 * `nativeDestinationAccount` are mutually exclusive, and a quote asked with `platformFeeBps` needs `feeAccount`.
 */
export const swapBody = z
  .object({
    userPublicKey: address,
    quoteResponse,
    payer: address.optional(),
    wrapAndUnwrapSol: z.boolean().optional(),
    useSharedAccounts: z.boolean().optional(),
    feeAccount: address.optional(),
    trackingAccount: address.optional(),
    prioritizationFeeLamports: prioritizationFeeLamports.optional(),
    asLegacyTransaction: z.boolean().optional(),
    destinationTokenAccount: address.optional(),
    nativeDestinationAccount: address.optional(),
    dynamicComputeUnitLimit: z.boolean().optional(),
    skipUserAccountsRpcCalls: z.boolean().optional(),
    dynamicSlippage: z.boolean().optional(),
    computeUnitPriceMicroLamports: uint64.optional(),
    /** uint8: slots the transaction stays valid for. */
    blockhashSlotsToExpiry: z.number().int('must be an integer').min(0).max(255).optional(),
  })
  .superRefine((b, ctx) => {
    if (b.destinationTokenAccount !== undefined && b.nativeDestinationAccount !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['nativeDestinationAccount'], message: 'destinationTokenAccount and nativeDestinationAccount are mutually exclusive' });
    }
    if ((b.quoteResponse.platformFee?.feeBps ?? 0) > 0 && b.feeAccount === undefined) {
      ctx.addIssue({ code: 'custom', path: ['feeAccount'], message: 'is required when the quote was asked with platformFeeBps' });
    }
  });
/** A parsed swap body. */
export type SwapBody = z.output<typeof swapBody>;
