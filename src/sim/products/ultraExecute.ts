import { VersionedTransaction, type Keypair, type PublicKey } from '@solana/web3.js';
import type { SimToken } from '../catalog.js';
import type { Ticket } from '../chain/tickets.js';
import { describeTxError, type TxErrorJson } from '../chain/txErrors.js';
import type { SubmitOutcome } from '../chain/chain.js';
import type { RouteQuote } from '../market/quote.js';
import type { Venue } from '../venue.js';
import type { Reply } from './common.js';

/** An Ultra order the desk handed out, kept until its requestId expires. */
export interface StoredOrder {
  requestId: string;
  taker: PublicKey;
  /** An integrator's payer, which must sign as well (Ultra's `payer` parameter). */
  payer: PublicKey | undefined;
  /** Jupiter's gas wallet, which signs at execute when the order is gasless. */
  gasWallet: Keypair | undefined;
  expiresAtMs: number;
  message: Uint8Array;
  ticket: Ticket;
  input: SimToken;
  output: SimToken;
  /** What the taker pays, in input base units (totalInputAmount). */
  inAmount: bigint;
  /** What the route takes in (inputAmountResult: less an input-side fee). */
  routeIn: bigint;
  /** What the route gives out (outputAmountResult: before an output-side fee). */
  grossOut: bigint;
  /** What the taker receives (totalOutputAmount). */
  outAmount: bigint;
  threshold: bigint;
  legs: RouteQuote['legs'];
  /** USD value of the trade when ordered: what a landed execute adds to the key's executed volume. */
  usd: number;
  /** An RFQ (JupiterZ) order: when its quote expires, sim ms (the maker signs nothing after it). */
  rfqExpiresAtMs?: number;
}

/** What execute answers, and the USD volume it executed now (0 for a replay or a failure). */
export interface ExecuteOutcome {
  reply: Reply;
  executedUsd: number;
}

/**
 * Checks the signatures Ultra needs from the caller (the taker's, and an integrator payer's), adds the gas wallet's
 * signature to a gasless order (its fee payer) or an RFQ that opens the taker's output account, and settles it
 * through the venue (the vault, or an RFQ's market maker, co-signs there). The
 * caller has checked that `tx`'s message serializes to `order.message`, so those bytes stand for it throughout.
 */
export function settleOrder(venue: Venue, order: StoredOrder, tx: VersionedTransaction): ExecuteOutcome {
  for (const signer of [order.taker, ...(order.payer ? [order.payer] : [])]) {
    const index = tx.message.staticAccountKeys.findIndex((k) => k.equals(signer));
    const sig = index >= 0 ? tx.signatures[index] : undefined;
    if (!sig || sig.every((b) => b === 0)) {
      return { reply: { status: 200, body: { status: 'Failed', signature: '', slot: '0', code: -1003, error: 'Transaction not fully signed' } }, executedUsd: 0 };
    }
    if (!venue.chain.hasValidSignature(tx, signer, order.message)) return { reply: { status: 400, body: { error: 'Invalid signed transaction', code: -2 } }, executedUsd: 0 };
  }
  // The market maker signs an RFQ fill only before its quote expires (the order engine would refuse it after).
  if (order.rfqExpiresAtMs !== undefined && venue.clock.now() > order.rfqExpiresAtMs) {
    return { reply: { status: 200, body: { status: 'Failed', signature: '', slot: '0', code: -2003, error: 'Quote expired' } }, executedUsd: 0 };
  }
  if (order.gasWallet) tx.sign([order.gasWallet]);
  // The ticket's co-signer signs at settlement: the vault, or an RFQ's market maker (its fee payer).
  const outcome = venue.settle(tx, order.ticket, order.message);
  return { reply: replyFor(order, outcome), executedUsd: outcome.kind === 'landed' ? order.usd : 0 };
}

/** The execute answer for a settlement outcome (jupiter-api.md §1.3). */
function replyFor(order: StoredOrder, outcome: SubmitOutcome): Reply {
  const amounts = {
    totalInputAmount: order.inAmount.toString(),
    totalOutputAmount: order.outAmount.toString(),
    inputAmountResult: order.routeIn.toString(),
    outputAmountResult: order.grossOut.toString(),
    swapEvents: order.legs.map((l) => ({ inputMint: l.inputMint, inputAmount: l.inAmount.toString(), outputMint: l.outputMint, outputAmount: l.outAmount.toString() })),
  };
  switch (outcome.kind) {
    case 'landed':
      return { status: 200, body: { status: 'Success', signature: outcome.signature, slot: outcome.slot.toString(), code: 0, ...amounts } };
    case 'duplicate':
      if (outcome.status.err === null) return { status: 200, body: { status: 'Success', signature: outcome.signature, slot: outcome.status.slot.toString(), code: 0, ...amounts } };
      return { status: 200, body: failed(outcome.signature, outcome.status.slot, outcome.status.err) };
    case 'landed-failed':
      return { status: 200, body: { ...failed(outcome.signature, outcome.slot, outcome.err), ...(codeOf(outcome.err) === 6001 ? amounts : {}) } };
    case 'rejected':
      if (order.rfqExpiresAtMs !== undefined) return { status: 200, body: { status: 'Failed', signature: outcome.signature, slot: '0', code: -2000, error: `Failed to land: ${describeTxError(outcome.err)}` } };
      if (outcome.err === 'BlockhashNotFound') return { status: 200, body: { status: 'Failed', signature: outcome.signature, slot: '0', code: -1005, error: 'Transaction expired' } };
      return { status: 200, body: { status: 'Failed', signature: outcome.signature, slot: '0', code: -1000, error: `Failed to land: ${describeTxError(outcome.err)}` } };
  }
}

function codeOf(err: TxErrorJson): number | undefined {
  if (typeof err === 'string') return undefined;
  const ie = err.InstructionError;
  if (Array.isArray(ie) && ie[1] && typeof ie[1] === 'object' && 'Custom' in ie[1]) return (ie[1] as { Custom: number }).Custom;
  return undefined;
}

function failed(signature: string, slot: bigint, err: TxErrorJson): Record<string, unknown> {
  const custom = codeOf(err);
  if (custom === 6001) return { status: 'Failed', signature, slot: slot.toString(), code: 6001, error: 'Slippage tolerance exceeded' };
  // SPL Token's InsufficientFunds (custom 1) during the swap is reported as the Jupiter program's 6024.
  if (custom === 1) return { status: 'Failed', signature, slot: slot.toString(), code: 6024, error: 'Insufficient funds' };
  return { status: 'Failed', signature, slot: slot.toString(), code: -1000, error: describeTxError(err) };
}

/** Decodes a signed transaction sent to execute; undefined when it is not one. */
export function decodeSigned(signed: string): VersionedTransaction | undefined {
  try {
    return VersionedTransaction.deserialize(Buffer.from(signed, 'base64'));
  } catch {
    return undefined;
  }
}
