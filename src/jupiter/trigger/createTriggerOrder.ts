import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { U64_MAX } from '../../lib/amounts.js';
import { base64Tx, pubkey } from '../schemas.js';
import { checkComputeUnitPrice } from './cancelTriggerOrder.js';

const ENDPOINT = 'trigger.createOrder';

/** Order terms of a trigger (limit) order. Amounts are bigint base units; they are sent as digit strings. */
export interface TriggerOrderTerms {
  /** Base units of the input mint the maker sells. */
  makingAmount: bigint;
  /** Base units of the output mint the maker wants for the whole makingAmount (sets the limit price). */
  takingAmount: bigint;
  /** Expiry as unix seconds (not milliseconds); omitted means the order never expires. */
  expiredAt?: number | undefined;
  /** 0 (the service default) is "Exact" mode; otherwise 0 to 10,000 bps. */
  slippageBps?: number | undefined;
  /** Integrator fee in bps, 0 to 10,000; needs `feeAccount`. */
  feeBps?: number | undefined;
}

/** Body of POST /trigger/v1/createOrder. */
export interface CreateTriggerOrderParams {
  inputMint: string;
  outputMint: string;
  /** Wallet that owns the order and signs the transaction. */
  maker: string;
  /** Wallet that pays rent and fees (usually the maker). */
  payer: string;
  params: TriggerOrderTerms;
  /** Priority fee in micro-lamports per compute unit, or `auto` (the service's 95th percentile; default). */
  computeUnitPrice?: number | 'auto' | undefined;
  /** Referral token account of the output mint that receives `feeBps`. */
  feeAccount?: string | undefined;
  /** Wrap and unwrap native SOL when a side is SOL (service default true). */
  wrapAndUnwrapSol?: boolean | undefined;
}

/** The /trigger/v1/createOrder body (jupiter-api.md §5). `requestId` and a non-empty transaction are mandatory. */
export const createTriggerOrderResponseSchema = z.object({
  requestId: z.string().min(1, 'requestId must not be empty'),
  /** Base64 unsigned transaction to sign and pass to execute with the requestId. */
  transaction: base64Tx,
  /** The order account (base58); not in the spec's `required` list. */
  order: pubkey.optional(),
});

/** A created (not yet sent) trigger order. */
export type CreatedTriggerOrder = z.output<typeof createTriggerOrderResponseSchema>;

/** Checks the client-side trigger limits; throws LimitError naming the broken rule. */
export function checkTriggerOrderParams(p: CreateTriggerOrderParams): void {
  const fail = (rule: string, msg: string): never => {
    throw new LimitError(ENDPOINT, rule, msg);
  };
  const addresses = { inputMint: p.inputMint, outputMint: p.outputMint, maker: p.maker, payer: p.payer, feeAccount: p.feeAccount };
  for (const [name, value] of Object.entries(addresses)) {
    if (value !== undefined && !pubkey.safeParse(value).success) fail(`trigger.${name}.address`, `${name} is not a base58 address: ${JSON.stringify(value)}`);
  }
  if (p.inputMint === p.outputMint) fail('trigger.mints.distinct', 'inputMint and outputMint must differ');
  const { makingAmount, takingAmount, expiredAt, slippageBps, feeBps } = p.params;
  if (makingAmount <= 0n) fail('trigger.makingAmount.positive', `makingAmount must be greater than 0, got ${makingAmount}`);
  if (takingAmount <= 0n) fail('trigger.takingAmount.positive', `takingAmount must be greater than 0, got ${takingAmount}`);
  if (makingAmount > U64_MAX) fail('trigger.makingAmount.u64', 'makingAmount does not fit in a u64');
  if (takingAmount > U64_MAX) fail('trigger.takingAmount.u64', 'takingAmount does not fit in a u64');
  if (slippageBps !== undefined && !isBps(slippageBps)) fail('trigger.slippageBps.range', `slippageBps must be an integer from 0 to 10000, got ${slippageBps}`);
  if (feeBps !== undefined) {
    if (!isBps(feeBps)) fail('trigger.feeBps.range', `feeBps must be an integer from 0 to 10000, got ${feeBps}`);
    if (p.feeAccount === undefined) fail('trigger.feeBps.feeAccount', 'feeBps needs feeAccount');
  }
  if (expiredAt !== undefined) {
    if (!Number.isSafeInteger(expiredAt) || expiredAt <= 0) fail('trigger.expiredAt.integer', `expiredAt must be a positive integer of unix seconds, got ${expiredAt}`);
    // 1e11 s is the year 5138; anything larger is almost surely milliseconds.
    if (expiredAt >= 1e11) fail('trigger.expiredAt.seconds', `expiredAt looks like milliseconds (${expiredAt}); send unix seconds`);
  }
  checkComputeUnitPrice(ENDPOINT, p.computeUnitPrice);
}

function isBps(n: number): boolean {
  return Number.isInteger(n) && n >= 0 && n <= 10_000;
}

/**
 * POST /trigger/v1/createOrder: builds the unsigned transaction that opens a limit order selling `makingAmount` of
 * the input for at least `takingAmount` of the output. The service refuses orders under about 5 USD (the reason is
 * in the error's `cause`, shown in the BadRequestError message).
 */
export async function createTriggerOrder(client: JupiterTransport, params: CreateTriggerOrderParams, options: CallOptions = {}): Promise<CreatedTriggerOrder> {
  checkTriggerOrderParams(params);
  const t = params.params;
  return client.request({
    endpoint: ENDPOINT,
    method: 'POST',
    path: '/trigger/v1/createOrder',
    body: {
      inputMint: params.inputMint,
      outputMint: params.outputMint,
      maker: params.maker,
      payer: params.payer,
      params: {
        makingAmount: t.makingAmount.toString(),
        takingAmount: t.takingAmount.toString(),
        expiredAt: t.expiredAt?.toString(),
        slippageBps: t.slippageBps?.toString(),
        feeBps: t.feeBps?.toString(),
      },
      computeUnitPrice: params.computeUnitPrice?.toString(),
      feeAccount: params.feeAccount,
      wrapAndUnwrapSol: params.wrapAndUnwrapSol,
    },
    schema: createTriggerOrderResponseSchema,
    signal: options.signal,
  });
}
