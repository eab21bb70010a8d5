import { ComputeBudgetProgram, PublicKey, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { MINIMUM_ORDER_INTERVAL_IN_SECONDS } from '@jup-ag/dca-sdk';
import { tokenProgramId } from '../catalog.js';
import type { ChainEvent } from '../chain/chain.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import type { Venue } from '../venue.js';
import type { RecurringCancelBody, RecurringCreateBody, RecurringExecuteBody } from '../http/requests/recurring.js';
import { requestId, type Reply } from './common.js';
import type { EscrowBook } from './escrow.js';
import { RecurringBook, remainingOf, type RecurringOrderState } from './recurringBook.js';
import { closeDcaInstruction, dcaAddress, openDcaV2Instruction } from '../../jupiter/programs/recurring.js';
import { executeReply, outAmountAt, recurringError, RECURRING_TTL_MS, usdValue } from './recurringRules.js';
import { MEMO_PROGRAM_ID } from './swapTx.js';

/** The answer to the deprecated price-based endpoints (the spec's own words for them). */
export const PRICE_DEPRECATED = 'Price-based recurring orders are deprecated, please use time-based recurring orders instead.';

const COMPUTE_UNITS = 200_000;
const MICRO_LAMPORTS = 200_000n;
/** The service's answer for an order account it cannot read as an open order (spec example). */
const NOT_AN_ORDER = 'Failed to deserialize account data: failed to fill whole buffer';

interface PendingRequest {
  kind: 'create' | 'cancel';
  order: RecurringOrderState;
  message: Uint8Array;
  expiresAtMs: number;
  ticket?: Ticket | undefined;
  reply?: Reply | undefined;
}

/**
 * The Recurring API (time-based DCA) of the simulator. createOrder hands out the user's transaction: the deposit
 * into the order's escrow (its input token account, authority the order account) and the DCA program's own
 * `openDcaV2`; once it lands (through execute or any RPC) the order is open and the venue's keeper fills a slice
 * each interval (see recurringKeeper.ts). cancelOrder hands out `closeDca` with the refund of what the escrow
 * holds, paid by the keeper as the escrow's delegate, which co-signs at settlement.
 */
export class RecurringDesk {
  readonly book: RecurringBook;
  private readonly requests = new Map<string, PendingRequest>();
  /** Orders whose opening transaction has not landed, by order account. */
  private readonly opening = new Map<string, PendingRequest & { id: string }>();

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {
    this.book = new RecurringBook(venue, escrows);
    venue.chain.onChange((e) => this.onChain(e));
  }

  /** POST /recurring/v1/createOrder. */
  create(body: RecurringCreateBody): Reply {
    const v = this.venue;
    const t = body.params.time;
    if (!t) return recurringError(body.params.price !== undefined ? PRICE_DEPRECATED : 'params: expected `time`');
    const input = v.token(body.inputMint);
    const output = v.token(body.outputMint);
    if (!input || !output) return recurringError(`Token not found: ${!input ? body.inputMint : body.outputMint}`);
    if (input.mint === output.mint) return recurringError('inputMint and outputMint must be different');
    if (input.program === 'token2022' || output.program === 'token2022') return recurringError('Token-2022 tokens are not supported');
    if (t.numberOfOrders < 2) return recurringError('numberOfOrders must be at least 2');
    if (t.interval < MINIMUM_ORDER_INTERVAL_IN_SECONDS) return recurringError(`interval must be at least ${MINIMUM_ORDER_INTERVAL_IN_SECONDS} seconds`);
    if (t.minPrice != null && t.maxPrice != null && t.minPrice > t.maxPrice) return recurringError('minPrice must be less than maxPrice');
    if (t.startAt != null && t.startAt >= 1e11) return recurringError('startAt must be a unix timestamp in seconds');
    const inAmount = BigInt(t.inAmount);
    const totalUsd = usdValue(v, input, inAmount);
    if (totalUsd < 100) return recurringError(`Order is valued at ${cents(totalUsd)} USDC, minimum is 100.00 USDC`);
    if (totalUsd / t.numberOfOrders < 50) return recurringError(`Each order is valued at ${cents(totalUsd / t.numberOfOrders)} USDC, minimum is 50.00 USDC`);
    const perCycle = inAmount / BigInt(t.numberOfOrders);

    const now = v.clock.now();
    const user = new PublicKey(body.user);
    const inputMint = new PublicKey(input.mint);
    const outputMint = new PublicKey(output.mint);
    // The SDK's order index is the unix second; two orders of one pair in one second take the next free index.
    let idx = BigInt(Math.floor(now / 1000));
    let dca = dcaAddress(user, inputMint, outputMint, idx);
    while (this.book.has(dca.address) || v.chain.account(dca.address)) dca = dcaAddress(user, inputMint, outputMint, (idx += 1n));
    const escrow = this.escrows.openEscrow('recurring', dca.address, input, user);
    const startMs = t.startAt != null ? Math.max(now, t.startAt * 1000) : now;
    const order: RecurringOrderState = {
      key: dca.address,
      user,
      input,
      output,
      escrow,
      outAccount: getAssociatedTokenAddressSync(outputMint, dca.address, true, new PublicKey(tokenProgramId(output))),
      idx,
      bump: dca.bump,
      status: 'pending',
      numberOfOrders: t.numberOfOrders,
      inDeposited: inAmount,
      inWithdrawn: 0n,
      inUsed: 0n,
      outReceived: 0n,
      outWithdrawn: 0n,
      inAmountPerCycle: perCycle,
      cycleSeconds: t.interval,
      minOutAmount: t.minPrice != null ? outAmountAt(perCycle, t.minPrice, input, output) : 0n,
      maxOutAmount: t.maxPrice != null ? outAmountAt(perCycle, t.maxPrice, input, output) : 0n,
      nextCycleAtMs: startMs,
      createdAtMs: now,
      updatedAtMs: now,
      openTx: '',
      closeTx: '',
      userClosed: false,
      trades: [],
    };
    // The program creates its order account when the transaction runs; the no-op program cannot, so the venue
    // writes it when the transaction lands (book.activate): until then nothing exists at its address, and the guard
    // refuses a new order whose account does.
    this.book.add(order);

    const instructions = [...this.computeBudget()];
    const program = new PublicKey(tokenProgramId(input));
    if (!v.isSol(output.mint) && !v.chain.account(v.ata(user, output))) {
      instructions.push(createAssociatedTokenAccountIdempotentInstruction(user, v.ata(user, output), user, outputMint, new PublicKey(tokenProgramId(output))));
    }
    instructions.push(...this.escrows.depositInstructions(user, input, escrow, inAmount));
    instructions.push(
      openDcaV2Instruction(
        { dca: dca.address, user, inputMint, outputMint, userAta: getAssociatedTokenAddressSync(inputMint, user, true, program), inAta: escrow, outAta: order.outAccount, tokenProgram: program },
        { applicationIdx: idx, inAmount, inAmountPerCycle: perCycle, cycleFrequency: BigInt(t.interval), minPrice: order.minOutAmount || null, maxPrice: order.maxOutAmount || null, startAt: t.startAt != null ? BigInt(t.startAt) : null },
      ),
    );
    const { tx } = v.chain.buildTransaction(user, instructions);
    const id = requestId(now);
    const pending = { id, kind: 'create' as const, order, message: tx.message.serialize(), expiresAtMs: now + RECURRING_TTL_MS };
    this.prune(now);
    this.requests.set(id, pending);
    this.opening.set(order.key.toBase58(), pending);
    return { status: 200, body: { requestId: id, transaction: Buffer.from(tx.serialize()).toString('base64') } };
  }

  /** POST /recurring/v1/cancelOrder: `closeDca` with the refund of what the escrow holds, co-signed by the keeper. */
  cancel(body: RecurringCancelBody): Reply {
    const v = this.venue;
    const order = this.book.get(body.order);
    // A price order's layout does not read a time order's account, nor does a closed (zeroed) account read as one.
    if (!order || order.status !== 'active' || body.recurringType !== 'time') return recurringError(NOT_AN_ORDER);
    if (!order.user.equals(new PublicKey(body.user))) return recurringError('Unauthorized: the order does not belong to this user');
    const now = v.clock.now();
    if (order.pendingCancel) v.tickets.consume(order.pendingCancel.ticketId);
    const inputMint = new PublicKey(order.input.mint);
    const outputMint = new PublicKey(order.output.mint);
    const close = closeDcaInstruction({
      user: order.user,
      dca: order.key,
      inputMint,
      outputMint,
      inAta: order.escrow,
      outAta: order.outAccount,
      userInAta: getAssociatedTokenAddressSync(inputMint, order.user, true, new PublicKey(tokenProgramId(order.input))),
      userOutAta: getAssociatedTokenAddressSync(outputMint, order.user, true, new PublicKey(tokenProgramId(order.output))),
      tokenProgram: new PublicKey(tokenProgramId(order.input)),
    });
    const refund = remainingOf(order);
    const payout = refund > 0n ? this.escrows.payoutInstructions(order.escrow, order.input, order.user, refund) : [];
    // The memo names the request: two cancels of one order in one slot are different transactions.
    const id = requestId(now);
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`jup-keeper-sim recurring cancel ${id}`, 'utf8') });
    const { tx } = v.chain.buildTransaction(order.user, [...this.computeBudget(), close, ...payout, memo]);
    const expiresAtMs = now + RECURRING_TTL_MS;
    const ticket: Ticket = {
      id: `recurring-cancel:${id}`,
      cosigner: v.keeper,
      required: [close, ...payout, memo].map(instructionHash),
      expiresAtMs,
      record: { kind: 'recurring-cancel', wallet: order.user.toBase58(), requestId: id, inputMint: null, inputAmount: null, outputMint: order.input.mint, outputAmount: refund },
      onLanded: (signature) => {
        order.inWithdrawn += refund;
        this.book.close(order, signature, true);
      },
    };
    v.tickets.add(ticket);
    order.pendingCancel = { ticketId: ticket.id, expiresAtMs };
    this.prune(now);
    this.requests.set(id, { kind: 'cancel', order, message: tx.message.serialize(), expiresAtMs, ticket });
    return { status: 200, body: { requestId: id, transaction: Buffer.from(tx.serialize()).toString('base64') } };
  }

  /** POST /recurring/v1/execute: settles a signed createOrder or cancelOrder transaction; the same request replays its answer. */
  execute(body: RecurringExecuteBody): Reply {
    const now = this.venue.clock.now();
    this.prune(now);
    const request = this.requests.get(body.requestId);
    if (!request) return recurringError('Request not found, it might have expired');
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(body.signedTransaction, 'base64'));
    } catch {
      return recurringError('Invalid signed transaction');
    }
    if (Buffer.compare(tx.message.serialize(), request.message) !== 0) return recurringError('The signed transaction is not the one handed out for this request');
    if (request.reply) return request.reply;
    const outcome = this.venue.settle(tx, request.ticket);
    const reply = executeReply(outcome, request.order.key.toBase58());
    if (outcome.kind !== 'rejected') {
      // The answer is replayed for the same request for a while, as the service does.
      request.reply = reply;
      request.expiresAtMs = now + RECURRING_TTL_MS;
    }
    return reply;
  }

  private computeBudget(): TransactionInstruction[] {
    return [ComputeBudgetProgram.setComputeUnitLimit({ units: COMPUTE_UNITS }), ComputeBudgetProgram.setComputeUnitPrice({ microLamports: MICRO_LAMPORTS })];
  }

  /**
   * Opens an order when its opening transaction lands, whichever way it came (execute or an RPC's
   * sendTransaction): the chain tells every listener about each landed signature.
   */
  private onChain(e: ChainEvent): void {
    if (e.signature === null || this.opening.size === 0) return;
    try {
      const status = this.venue.chain.signatureStatus(e.signature);
      const landed = status?.landed;
      if (!status || status.err !== null || !landed?.tx) return;
      const pending = landed.accounts.map((k) => this.opening.get(k.toBase58())).find((p) => p !== undefined);
      if (!pending || Buffer.compare(landed.tx.message.serialize(), pending.message) !== 0) return;
      const o = pending.order;
      this.opening.delete(o.key.toBase58());
      this.book.activate(o, e.signature, this.venue.clock.now());
      this.venue.chain.recordLedger({ signature: e.signature, slot: e.slot, kind: 'recurring-create', wallet: o.user.toBase58(), requestId: pending.id, inputMint: o.input.mint, inputAmount: o.inDeposited, outputMint: o.output.mint, outputAmount: null });
    } catch {
      // A listener must not throw inside the chain's change; an order that failed to open stays pending and expires.
    }
  }

  private prune(now: number): void {
    for (const [id, r] of this.requests) {
      if (r.expiresAtMs >= now) continue;
      this.requests.delete(id);
      const o = r.order;
      if (r.kind === 'create' && o.status === 'pending') {
        this.opening.delete(o.key.toBase58());
        this.book.drop(o);
      }
      if (r.kind === 'cancel' && o.pendingCancel?.ticketId === r.ticket?.id) o.pendingCancel = undefined;
    }
  }
}

/** USD with two decimals, rounded down: a value just under a minimum never reads as the minimum itself. */
function cents(usd: number): string {
  return (Math.floor(usd * 100) / 100).toFixed(2);
}
