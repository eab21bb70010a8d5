import type { JupiterClient } from '../jupiter/client.js';
import type { CallOptions } from '../jupiter/transport.js';
import type { Quote, SwapMode } from '../jupiter/swap/getQuote.js';
import type { SwapTransaction } from '../jupiter/swap/buildSwap.js';
import { RouteError } from '../jupiter/swap/routeError.js';

/** Largest serialized transaction a Solana node accepts (PACKET_DATA_SIZE), in bytes. */
export const MAX_TRANSACTION_BYTES = 1_232;

/**
 * The maxAccounts a Metis quote is asked with, in turn, while the transaction built from it does not fit: 64 (the
 * service's default and most) first, then lower in steps of 8. The docs advise starting as high as possible and
 * reducing step by step: fewer accounts mean a smaller but possibly worse route, and too few may mean no route.
 */
export const MAX_ACCOUNTS_STEPS: readonly number[] = [64, 56, 48, 40, 32];

/** What to swap through Metis. Amounts in base units: of the input (ExactIn) or of the output (ExactOut). */
export interface MetisSwapRequest {
  inputMint: string;
  outputMint: string;
  amount: bigint;
  swapMode: SwapMode;
  slippageBps: number;
  userPublicKey: string;
  /** maxAccounts to try, in turn (default MAX_ACCOUNTS_STEPS). */
  maxAccountsSteps?: readonly number[] | undefined;
}

/** One quote-and-build that did not give a transaction that fits. */
export interface MetisAttempt {
  maxAccounts: number;
  /** Serialized size of the transaction built, bytes (absent when the venue refused to build or quote). */
  bytes?: number;
  /** The venue's route error, when it found no route with so few accounts or refused the build as too large. */
  routeError?: string;
}

/** A Metis swap that fits, or every attempt that did not. */
export type MetisBuild =
  | { ok: true; quote: Quote; swap: SwapTransaction; bytes: number; maxAccounts: number; attempts: MetisAttempt[] }
  | { ok: false; attempts: MetisAttempt[] };

/**
 * Quotes and builds a Metis swap whose transaction fits in a packet: a route over 1,232 bytes cannot be sent, so
 * the swap is quoted again with a lower maxAccounts (MAX_ACCOUNTS_STEPS) and built again, a bounded number of
 * times. A first quote without a route throws its RouteError; a later one ends the tries (fewer accounts found no
 * route), and so does the last step: the result then lists every attempt and its size for the refusal.
 */
export async function buildMetisSwap(jup: JupiterClient, req: MetisSwapRequest, options: CallOptions = {}): Promise<MetisBuild> {
  const attempts: MetisAttempt[] = [];
  for (const maxAccounts of req.maxAccountsSteps ?? MAX_ACCOUNTS_STEPS) {
    let quote: Awaited<ReturnType<JupiterClient['swap']['getQuote']>>;
    try {
      quote = await jup.swap.getQuote({ inputMint: req.inputMint, outputMint: req.outputMint, amount: req.amount, swapMode: req.swapMode, slippageBps: req.slippageBps, maxAccounts }, options);
    } catch (err) {
      if (err instanceof RouteError && attempts.length > 0) {
        attempts.push({ maxAccounts, routeError: err.routeErrorCode });
        return { ok: false, attempts };
      }
      throw err;
    }
    let swap: SwapTransaction;
    try {
      swap = await jup.swap.buildSwap({ userPublicKey: req.userPublicKey, quoteResponse: quote.raw, dynamicComputeUnitLimit: true }, options);
    } catch (err) {
      // A venue may refuse to compose a route whose accounts do not fit instead of returning it: the remedy is the same.
      if (err instanceof RouteError && err.routeErrorCode === 'MAX_ACCOUNT_GREATER_THAN_MAX') {
        attempts.push({ maxAccounts, routeError: err.routeErrorCode });
        continue;
      }
      throw err;
    }
    const bytes = Buffer.byteLength(swap.swapTransaction, 'base64');
    if (bytes <= MAX_TRANSACTION_BYTES) return { ok: true, quote: quote.quote, swap, bytes, maxAccounts, attempts };
    attempts.push({ maxAccounts, bytes });
  }
  return { ok: false, attempts };
}

/** The attempts of a Metis build that never fit, as one sentence naming each size. */
export function describeAttempts(attempts: readonly MetisAttempt[]): string {
  const parts = attempts.map((a) => `maxAccounts ${a.maxAccounts}: ${a.bytes !== undefined ? `${a.bytes} bytes` : `no route (${a.routeError ?? 'refused'})`}`);
  const last = [...attempts].reverse().find((a) => a.bytes !== undefined);
  const size = last ? `is ${last.bytes} bytes` : 'does not fit';
  return `the Metis swap transaction ${size}, over the ${MAX_TRANSACTION_BYTES}-byte limit, at every maxAccounts tried (${parts.join('; ')})`;
}
