import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { LimitError } from '../errors.js';
import { base64Tx, instructionSchema, pubkey } from '../schemas.js';
import { U64_MAX } from '../../lib/amounts.js';

/** Base path of the Lend Earn API (jupiter-api.md §7). */
export const LEND_EARN_PATH = '/lend/v1/earn';

/** The Jupiter Lend Earn program. */
export const LEND_EARN_PROGRAM_ID = 'jup3YeL8QhtSx1e253b2FDvsMNC87fDrgQZivbrndc9';

/** Body of /deposit and /withdraw (and their -instructions variants). `amount` is in base units of `asset`. */
export interface LendAmountParams {
  /** Underlying mint, e.g. USDC. */
  asset: string;
  /** Wallet that signs and owns the position. */
  signer: string;
  /** Underlying amount in base units; must be greater than 0. */
  amount: bigint;
}

/** Body of /mint and /redeem (and their -instructions variants). `shares` is in base units of the jlToken. */
export interface LendSharesParams {
  /** Underlying mint, e.g. USDC. */
  asset: string;
  /** Wallet that signs and owns the position. */
  signer: string;
  /** jlToken shares in base units; must be greater than 0. */
  shares: bigint;
}

/** `{transaction}`: a base64 unsigned versioned transaction. A missing or empty transaction is rejected. */
export const lendTransactionResponseSchema = z.object({ transaction: base64Tx });

/** A parsed Lend transaction response. */
export type LendTransaction = z.output<typeof lendTransactionResponseSchema>;

/**
 * The -instructions body in either documented shape, normalised to `{instructions}`: the spec returns one bare
 * instruction `{programId, accounts, data}`, the docs code and JL return `{instructions: [...]}` (jupiter-api.md
 * §13.4). An empty list is rejected: there would be nothing to sign.
 */
export const lendInstructionsResponseSchema = z.preprocess(
  (body) => (isBareInstruction(body) ? { instructions: [body] } : body),
  z.object({ instructions: z.array(instructionSchema).min(1, 'expected at least one instruction') }),
);

/** Parsed Lend instructions, always as a list. */
export type LendInstructions = z.output<typeof lendInstructionsResponseSchema>;

function isBareInstruction(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !('instructions' in body) && 'programId' in body;
}

/** Checks `asset` and `signer` and that a raw amount is a positive u64; throws LimitError naming the rule. */
export function checkEarnBody(endpoint: string, p: { asset: string; signer: string }, field: 'amount' | 'shares', value: bigint): void {
  if (!pubkey.safeParse(p.asset).success) {
    throw new LimitError(endpoint, 'lend.asset.address', `asset is not a base58 mint address: ${JSON.stringify(p.asset)}`);
  }
  if (!pubkey.safeParse(p.signer).success) {
    throw new LimitError(endpoint, 'lend.signer.address', `signer is not a base58 address: ${JSON.stringify(p.signer)}`);
  }
  if (value <= 0n) throw new LimitError(endpoint, `lend.${field}.positive`, `${field} must be greater than 0, got ${value}`);
  if (value > U64_MAX) throw new LimitError(endpoint, `lend.${field}.u64`, `${field} does not fit in a u64`);
}

/** One POST to an Earn operation: `path` below /lend/v1/earn, the checked body, and the schema of the answer. */
export interface EarnPost<S extends z.ZodType> {
  endpoint: string;
  path: string;
  body: { asset: string; signer: string; amount?: bigint; shares?: bigint };
  schema: S;
}

/** Sends an Earn POST (it only builds an unsigned transaction, so the default retry applies). */
export function postEarn<S extends z.ZodType>(client: JupiterTransport, req: EarnPost<S>, options: CallOptions): Promise<z.output<S>> {
  return client.request({
    endpoint: req.endpoint,
    method: 'POST',
    path: `${LEND_EARN_PATH}${req.path}`,
    body: req.body,
    schema: req.schema,
    signal: options.signal,
  });
}

/** Checks and sends an amount-based Earn request (deposit, withdraw and their -instructions). */
export function postAmount<S extends z.ZodType>(
  client: JupiterTransport,
  endpoint: string,
  path: string,
  p: LendAmountParams,
  schema: S,
  options: CallOptions,
): Promise<z.output<S>> {
  checkEarnBody(endpoint, p, 'amount', p.amount);
  return postEarn(client, { endpoint, path, body: { asset: p.asset, signer: p.signer, amount: p.amount }, schema }, options);
}

/** Checks and sends a shares-based Earn request (mint, redeem and their -instructions). */
export function postShares<S extends z.ZodType>(
  client: JupiterTransport,
  endpoint: string,
  path: string,
  p: LendSharesParams,
  schema: S,
  options: CallOptions,
): Promise<z.output<S>> {
  checkEarnBody(endpoint, p, 'shares', p.shares);
  return postEarn(client, { endpoint, path, body: { asset: p.asset, signer: p.signer, shares: p.shares }, schema }, options);
}
