import { toApproxNumber } from '../../lib/amounts.js';
import type { SimToken } from '../catalog.js';
import type { SubmitOutcome } from '../chain/chain.js';
import { describeTxError, type TxErrorJson } from '../chain/txErrors.js';
import type { Venue } from '../venue.js';
import type { Reply } from './common.js';

/** How long a requestId of createOrder or cancelOrder is accepted by execute, and an answer replayed (sim ms). */
export const RECURRING_TTL_MS = 120_000;

const U64_MAX = (1n << 64n) - 1n;

/** The Recurring API's error body: `{code, error, status}` (jupiter-api.md §6). */
export function recurringError(error: string): Reply {
  return { status: 400, body: { code: 400, error, status: 'Bad Request' } };
}

/** USD value of an amount of a token at the venue's price now (a number: it only checks the service's minimums). */
export function usdValue(venue: Venue, token: SimToken, amount: bigint): number {
  return toApproxNumber(amount, token.decimals) * (venue.prices.usd(token.mint) ?? 0);
}

/**
 * The output, base units, that one cycle's input fetches at `price`: the order's price bounds are what one whole
 * input token fetches in output tokens, so `minPrice` becomes the cycle's least output and `maxPrice` its most.
 * The DCA program takes them in that form (its `openDcaV2` args `minPrice`/`maxPrice` are out amounts per cycle,
 * stored as `minOutAmount`/`maxOutAmount`), which is how the service's 2025 example shows a 0.5 SOL cycle with a
 * `minOutAmount` of 100 USDC.
 */
export function outAmountAt(perCycle: bigint, price: number, input: SimToken, output: SimToken): bigint {
  const out = Math.floor(toApproxNumber(perCycle, input.decimals) * price * 10 ** output.decimals);
  if (!Number.isFinite(out) || out >= Number(U64_MAX)) return U64_MAX;
  return BigInt(Math.max(out, 1));
}

/** The execute answer for a settlement: `{signature, status, order, error}`, the order only on success. */
export function executeReply(outcome: SubmitOutcome, order: string): Reply {
  switch (outcome.kind) {
    case 'landed':
      return success(outcome.signature, order);
    case 'duplicate':
      return outcome.status.err === null ? success(outcome.signature, order) : failed(outcome.signature, outcome.status.err);
    case 'landed-failed':
    case 'rejected':
      return failed(outcome.signature, outcome.err);
  }
}

function success(signature: string, order: string): Reply {
  return { status: 200, body: { signature, status: 'Success', order, error: null } };
}

function failed(signature: string, err: TxErrorJson): Reply {
  return { status: 200, body: { signature, status: 'Failed', order: null, error: failureText(err) } };
}

/** The service's words for a failed transaction: its documented text for a lack of funds, else the runtime's. */
function failureText(err: TxErrorJson): string {
  if (err === 'InsufficientFundsForFee' || err === 'InsufficientFundsForRent') return 'Insufficient funds for the operation requested.';
  if (typeof err !== 'string' && Array.isArray(err.InstructionError)) {
    const detail: unknown = err.InstructionError[1];
    // Custom 1 is the token program's InsufficientFunds and the system program's lack of lamports for a transfer.
    if (detail === 'InsufficientFunds' || (typeof detail === 'object' && detail !== null && (detail as { Custom?: unknown }).Custom === 1)) {
      return 'Insufficient funds for the operation requested.';
    }
  }
  if (err === 'BlockhashNotFound') return 'Transaction expired: blockhash not found';
  return describeTxError(err);
}
