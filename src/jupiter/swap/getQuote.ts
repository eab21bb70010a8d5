import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError, SchemaError } from '../errors.js';
import { pubkey } from '../schemas.js';
import { routeErrorFromBody } from './routeError.js';

/*
 * The quote is parsed twice over, on purpose: `rawQuoteSchema` checks the wire JSON without changing it (amounts
 * stay digit strings, unknown fields are kept) so that it can be sent back to /swap exactly as received, and
 * `toQuote` turns that checked JSON into the typed quote with bigint amounts the rest of the bot uses.
 */

const digits = z.string().regex(/^\d+$/, 'expected an integer amount as a string of digits');
const decimal = z.string().regex(/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/, 'expected a decimal number as a string');

/** Swap direction: ExactIn fixes the input amount, ExactOut the output amount. */
export const swapModeSchema = z.enum(['ExactIn', 'ExactOut']);
/** A swap direction. */
export type SwapMode = z.output<typeof swapModeSchema>;

/** One leg of a Metis route, as sent (amounts as digit strings). */
export const rawSwapInfoSchema = z.looseObject({
  ammKey: z.string().min(1),
  label: z.string().nullish(),
  inputMint: pubkey,
  outputMint: pubkey,
  inAmount: digits,
  outAmount: digits,
  /** Deprecated by the service. */
  feeAmount: digits.nullish(),
  feeMint: z.string().nullish(),
});

/** One step of a route plan, as sent. */
export const rawRoutePlanStepSchema = z.looseObject({
  swapInfo: rawSwapInfoSchema,
  percent: z.number().int().min(0).max(100).nullish(),
  bps: z.number().int().min(0).max(10_000).nullish(),
});

/**
 * The /swap/v1/quote body exactly as sent (QuoteResponse of the spec and of `@jup-ag/api`). Checked, not
 * converted; unknown fields are kept, so the parsed value can go back to /swap unchanged.
 */
export const rawQuoteSchema = z.looseObject({
  inputMint: pubkey,
  inAmount: digits,
  outputMint: pubkey,
  outAmount: digits,
  otherAmountThreshold: digits,
  swapMode: swapModeSchema,
  slippageBps: z.number().int().min(0).max(10_000),
  platformFee: z.looseObject({ amount: digits.nullish(), feeBps: z.number().int().min(0).max(10_000).nullish() }).nullish(),
  priceImpactPct: decimal,
  routePlan: z.array(rawRoutePlanStepSchema),
  contextSlot: z.number().int().nonnegative().nullish(),
  timeTaken: z.number().nullish(),
  mostReliableAmmsQuoteReport: z.looseObject({ info: z.record(z.string(), z.union([z.string(), z.number()])).nullish() }).nullish(),
  instructionVersion: z.enum(['V1', 'V2']).nullish(),
});
/** A quote as the service sent it; pass it unchanged as `quoteResponse` to buildSwap / getSwapInstructions. */
export type RawQuote = z.output<typeof rawQuoteSchema>;

/** One leg of a parsed route. Amounts in bigint base units of the leg's input and output mints. */
export interface QuoteSwapInfo {
  ammKey: string;
  label: string | undefined;
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
}

/** One step of a parsed route plan; `percent` (0 to 100) or `bps` give its share of the amount. */
export interface QuoteRouteStep {
  swapInfo: QuoteSwapInfo;
  percent: number | undefined;
  bps: number | undefined;
}

/** A parsed Metis quote. Field names follow `@jup-ag/api`'s QuoteResponse; amounts are bigint base units. */
export interface Quote {
  inputMint: string;
  /** Base units of inputMint. */
  inAmount: bigint;
  outputMint: string;
  /** Base units of outputMint, after DEX and platform fees, before slippage. */
  outAmount: bigint;
  /** ExactIn: minimum out after slippage (outputMint units); ExactOut: maximum in (inputMint units). */
  otherAmountThreshold: bigint;
  swapMode: SwapMode;
  slippageBps: number;
  /** Integrator fee; `amount` in base units of the fee mint. Null when no platformFeeBps was asked for. */
  platformFee: { amount: bigint | undefined; feeBps: number } | null;
  /** Price impact as a ratio (0.01 is 1%), from the deprecated-but-required decimal string. */
  priceImpactPct: number;
  routePlan: QuoteRouteStep[];
  contextSlot: number | undefined;
  /** Seconds the router took. */
  timeTaken: number | undefined;
  instructionVersion: 'V1' | 'V2' | undefined;
}

/** A quote returned by getQuote: `quote` to read, `raw` to send back to /swap unchanged. */
export interface SwapQuote {
  quote: Quote;
  raw: RawQuote;
}

/** Converts a checked raw quote into the typed quote. */
export function toQuote(raw: RawQuote): Quote {
  return {
    inputMint: raw.inputMint,
    inAmount: BigInt(raw.inAmount),
    outputMint: raw.outputMint,
    outAmount: BigInt(raw.outAmount),
    otherAmountThreshold: BigInt(raw.otherAmountThreshold),
    swapMode: raw.swapMode,
    slippageBps: raw.slippageBps,
    platformFee: raw.platformFee
      ? { amount: raw.platformFee.amount == null ? undefined : BigInt(raw.platformFee.amount), feeBps: raw.platformFee.feeBps ?? 0 }
      : null,
    priceImpactPct: Number(raw.priceImpactPct),
    routePlan: raw.routePlan.map((step) => ({
      swapInfo: {
        ammKey: step.swapInfo.ammKey,
        label: step.swapInfo.label ?? undefined,
        inputMint: step.swapInfo.inputMint,
        outputMint: step.swapInfo.outputMint,
        inAmount: BigInt(step.swapInfo.inAmount),
        outAmount: BigInt(step.swapInfo.outAmount),
      },
      percent: step.percent ?? undefined,
      bps: step.bps ?? undefined,
    })),
    contextSlot: raw.contextSlot ?? undefined,
    timeTaken: raw.timeTaken ?? undefined,
    instructionVersion: raw.instructionVersion ?? undefined,
  };
}

/** The /swap/v1/quote body parsed into `{quote, raw}`. Its input type is the wire QuoteResponse. */
export const quoteResponseSchema = rawQuoteSchema.transform((raw): SwapQuote => ({ quote: toQuote(raw), raw }));

/** Parameters of GET /swap/v1/quote. */
export interface GetQuoteParams {
  inputMint: string;
  outputMint: string;
  /** Base units of inputMint (ExactIn) or of outputMint (ExactOut). */
  amount: bigint;
  /** Slippage tolerance in bps, 0 to 10,000 (service default 50). */
  slippageBps?: number | undefined;
  /** Default ExactIn. ExactOut is supported by few AMMs. */
  swapMode?: SwapMode | undefined;
  /** Only these DEX labels (see getProgramIdToLabel), e.g. `['Raydium', 'Meteora DLMM']`. */
  dexes?: readonly string[] | undefined;
  /** Never these DEX labels. */
  excludeDexes?: readonly string[] | undefined;
  /** Keep intermediate tokens to stable ones (service default true). */
  restrictIntermediateTokens?: boolean | undefined;
  /** Single-hop routes only (default false). */
  onlyDirectRoutes?: boolean | undefined;
  asLegacyTransaction?: boolean | undefined;
  /** Integrator fee in bps; buildSwap then requires a feeAccount. */
  platformFeeBps?: number | undefined;
  /** Rough cap on the accounts the route may use, 1 to 64 (default 64). */
  maxAccounts?: number | undefined;
  instructionVersion?: 'V1' | 'V2' | undefined;
  dynamicSlippage?: boolean | undefined;
  /** Exclude DEXes that cannot be used inside a Jito bundle. */
  forJitoBundle?: boolean | undefined;
}

/** Checks the documented request rules; throws LimitError naming the broken rule. */
export function checkQuoteParams(p: GetQuoteParams): void {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError('swap.quote', rule, msg);
  };
  if (!pubkey.safeParse(p.inputMint).success) fail('quote.inputMint.address', `inputMint is not a base58 address: ${JSON.stringify(p.inputMint)}`);
  if (!pubkey.safeParse(p.outputMint).success) fail('quote.outputMint.address', `outputMint is not a base58 address: ${JSON.stringify(p.outputMint)}`);
  if (p.inputMint === p.outputMint) fail('quote.mints.distinct', 'inputMint and outputMint must differ');
  if (p.amount <= 0n) fail('quote.amount.positive', `amount must be greater than 0, got ${p.amount}`);
  if (p.amount >= 1n << 64n) fail('quote.amount.u64', 'amount does not fit in a u64');
  if (p.swapMode !== undefined && !swapModeSchema.safeParse(p.swapMode).success) fail('quote.swapMode.enum', `swapMode must be ExactIn or ExactOut, got ${JSON.stringify(p.swapMode)}`);
  const intIn = (v: number | undefined, lo: number, hi: number) => v === undefined || (Number.isInteger(v) && v >= lo && v <= hi);
  if (!intIn(p.slippageBps, 0, 10_000)) fail('quote.slippageBps.range', `slippageBps must be an integer from 0 to 10000, got ${p.slippageBps}`);
  if (!intIn(p.platformFeeBps, 0, 10_000)) fail('quote.platformFeeBps.range', `platformFeeBps must be an integer from 0 to 10000, got ${p.platformFeeBps}`);
  if (!intIn(p.maxAccounts, 1, 64)) fail('quote.maxAccounts.range', `maxAccounts must be an integer from 1 to 64, got ${p.maxAccounts}`);
  for (const [name, list] of [['dexes', p.dexes], ['excludeDexes', p.excludeDexes]] as const) {
    if (list?.some((d) => d.trim() === '' || d.includes(','))) fail(`quote.${name}.label`, `${name} entries must be non-empty DEX labels without commas`);
  }
}

const joinList = (list: readonly string[] | undefined) => (list && list.length > 0 ? list.join(',') : undefined);

/**
 * GET /swap/v1/quote: the best Metis route for an amount. Returns the typed quote (bigint amounts) and the raw
 * quote to pass unchanged to buildSwap or getSwapInstructions. Throws RouteError (e.g. COULD_NOT_FIND_ANY_ROUTE)
 * when the service finds no route.
 */
export async function getQuote(client: JupiterTransport, params: GetQuoteParams, options: CallOptions = {}): Promise<SwapQuote> {
  checkQuoteParams(params);
  const result = await client.request({
    endpoint: 'swap.quote',
    method: 'GET',
    path: '/swap/v1/quote',
    query: {
      inputMint: params.inputMint,
      outputMint: params.outputMint,
      amount: params.amount,
      slippageBps: params.slippageBps,
      swapMode: params.swapMode,
      dexes: joinList(params.dexes),
      excludeDexes: joinList(params.excludeDexes),
      restrictIntermediateTokens: params.restrictIntermediateTokens,
      onlyDirectRoutes: params.onlyDirectRoutes,
      asLegacyTransaction: params.asLegacyTransaction,
      platformFeeBps: params.platformFeeBps,
      maxAccounts: params.maxAccounts,
      instructionVersion: params.instructionVersion,
      dynamicSlippage: params.dynamicSlippage,
      forJitoBundle: params.forJitoBundle,
    },
    schema: quoteResponseSchema,
    mapError: routeErrorFromBody('swap.quote'),
    signal: options.signal,
  });
  // A quote for other mints or the other direction would swap the wrong thing; refuse it rather than trust it.
  const { quote } = result;
  const mismatch: string[] = [];
  if (quote.inputMint !== params.inputMint) mismatch.push('inputMint');
  if (quote.outputMint !== params.outputMint) mismatch.push('outputMint');
  if (quote.swapMode !== (params.swapMode ?? 'ExactIn')) mismatch.push('swapMode');
  if (mismatch.length > 0) {
    throw new SchemaError('swap.quote', mismatch.map((path) => ({ path, message: 'does not match the request' })));
  }
  return result;
}
