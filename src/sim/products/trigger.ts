import { randomBytes } from 'node:crypto';
import { PublicKey, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import type { ChainEvent, SubmitOutcome } from '../chain/chain.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import { describeTxError, type TxErrorJson } from '../chain/txErrors.js';
import type { Venue } from '../venue.js';
import { address } from '../http/requests/params.js';
import type { CancelOrderBody, CancelOrdersBody, CreateOrderBody, GetTriggerOrdersQuery, TriggerExecuteBody } from '../http/requests/trigger.js';
import { requestId, type Reply } from './common.js';
import type { EscrowBook } from './escrow.js';
import { MEMO_PROGRAM_ID } from './swapTx.js';
import { TriggerKeeper } from './triggerKeeper.js';
import { closeOrder, orderView, triggerFeeBps, TriggerBook, TRIGGER_PAGE_SIZE, writeOrderAccount, type SimTriggerOrder } from './triggerOrders.js';
import { orderAddress } from '../../jupiter/programs/trigger.js';
import { cancelInstructions, computeBudget, createOrderInstructions } from './triggerTx.js';

/** How long execute accepts a requestId and replays its result (sim ms). */
export const TRIGGER_REQUEST_TTL_MS = 120_000;
/** The service's minimum order (DOCS: "input mint making amount must be at least 5 USD"). */
const MIN_ORDER_USD = 5;
/** Compute-unit price for `computeUnitPrice: "auto"`, micro-lamports (the captured transaction paid 15,406). */
const AUTO_MICRO_LAMPORTS = 15_000n;
/** Cancel instructions per transaction when several orders are cancelled (DOCS: batched 5 per transaction). */
const CANCELS_PER_TX = 5;
/** Largest serialized transaction Solana accepts, bytes. */
const PACKET_BYTES = 1232;

/** One call's transactions, as execute accepts them: each message, and the keeper's ticket where it co-signs. */
interface TriggerRequest {
  messages: Buffer[];
  tickets: Array<Ticket | undefined>;
  replies: Map<number, Reply>;
  expiresAtMs: number;
}

const noMatch: Reply = { status: 400, body: { error: 'no matching orders found', code: 400 } };
const badMaker: Reply = { status: 400, body: { error: 'invalid maker pubkey', code: 400 } };

/**
 * The Trigger API (limit orders) of the simulator: createOrder escrows the making amount in the order's own
 * escrow, execute settles the user's transactions once, the keeper (triggerKeeper.ts) fills orders as the market
 * crosses them and cancels expired ones, cancels refund exactly what is unfilled, and getTriggerOrders reports it
 * all in the service's shapes.
 */
export class TriggerDesk {
  readonly book = new TriggerBook();
  readonly keeper: TriggerKeeper;
  private readonly requests = new Map<string, TriggerRequest>();
  /** Orders whose createOrder transaction was handed out and has not landed, by order account. */
  private readonly opening = new Map<string, { order: SimTriggerOrder; message: Buffer }>();

  constructor(
    private readonly venue: Venue,
    private readonly escrows: EscrowBook,
  ) {
    this.keeper = new TriggerKeeper(venue, escrows, this.book);
    venue.registerKeeper(this.keeper);
    venue.chain.onChange((e) => this.onChain(e));
  }

  /** POST /trigger/v1/createOrder. */
  createOrder(b: CreateOrderBody): Reply {
    const v = this.venue;
    const now = v.clock.now();
    this.prune(now);
    const bad = (cause: string): Reply => ({ status: 400, body: { error: 'invalid create order request', cause, code: 400 } });
    const input = v.token(b.inputMint);
    const output = v.token(b.outputMint);
    if (!input || !output) return bad(`${input ? 'output' : 'input'} mint is not tradable`);
    if (input.mint === output.mint) return bad('input mint and output mint must be different');
    const p = b.params;
    const usd = (Number(p.makingAmount) / 10 ** input.decimals) * (v.prices.usd(input.mint) ?? 0);
    if (usd < MIN_ORDER_USD) return bad(`input mint making amount must be at least ${MIN_ORDER_USD} USD, received: ${Math.floor(usd * 100) / 100}`);
    if (p.expiredAt !== undefined && p.expiredAt * 1000 <= now) return bad('expiredAt must be in the future');
    if ((p.feeBps ?? 0) > 0 && b.feeAccount === undefined) return bad('feeBps requires feeAccount');
    if (b.feeAccount !== undefined && v.chain.tokenAccount(new PublicKey(b.feeAccount))?.mint !== output.mint) return bad('feeAccount must be a token account of the output mint');
    const maker = new PublicKey(b.maker);
    const uniqueId = randomBytes(8).readBigUInt64LE();
    const { address: key, bump } = orderAddress(maker, uniqueId);
    const id = requestId(now);
    const order: SimTriggerOrder = {
      key,
      address: key.toBase58(),
      maker,
      input,
      output,
      uniqueId,
      bump,
      making: p.makingAmount,
      taking: p.takingAmount,
      remainingMaking: p.makingAmount,
      remainingTaking: p.takingAmount,
      slippageBps: p.slippageBps ?? 0,
      feeBps: triggerFeeBps(input, output),
      integrator: b.feeAccount !== undefined && (p.feeBps ?? 0) > 0 ? { account: new PublicKey(b.feeAccount), bps: p.feeBps! } : null,
      expiredAt: p.expiredAt ?? null,
      createdAtMs: now,
      updatedAtMs: now,
      status: 'Pending',
      escrow: this.escrows.openEscrow('trigger', key, input, maker),
      openTx: '',
      closeTx: '',
      trades: [],
      lastFillMs: Number.NEGATIVE_INFINITY,
      holdUntilMs: 0,
      pendingUntilMs: 0,
      requestId: id,
    };
    // The order account is written when the maker's transaction lands, as the program's initialize_order creates
    // it: until then no account exists at the order's address (the guard refuses a new order whose account does).
    const payer = new PublicKey(b.payer);
    const instructions = [...computeBudget(b.computeUnitPrice ?? AUTO_MICRO_LAMPORTS), ...createOrderInstructions(v, this.escrows, order, { payer, wrapSol: b.wrapAndUnwrapSol ?? true })];
    const { tx, lastValidBlockHeight } = v.chain.buildTransaction(payer, instructions);
    order.pendingUntilMs = now + v.clock.msUntilBlockHeight(lastValidBlockHeight + 1n);
    this.book.add(order);
    const message = Buffer.from(tx.message.serialize());
    this.opening.set(order.address, { order, message });
    this.requests.set(id, { messages: [message], tickets: [undefined], replies: new Map(), expiresAtMs: now + TRIGGER_REQUEST_TTL_MS });
    return { status: 200, body: { requestId: id, transaction: Buffer.from(tx.serialize()).toString('base64'), order: order.address } };
  }

  /** POST /trigger/v1/cancelOrder: one order of the maker, refunded in the maker's own transaction. */
  cancelOrder(b: CancelOrderBody): Reply {
    const maker = makerOf(b.maker);
    if (!maker) return badMaker;
    const o = this.book.get(b.order);
    if (!o || !o.maker.equals(maker) || o.status !== 'Open') return noMatch;
    const { id, transactions } = this.cancelRequest(maker, [[o]], b.computeUnitPrice);
    return { status: 200, body: { requestId: id, transaction: transactions[0] } };
  }

  /** POST /trigger/v1/cancelOrders: the listed orders, or every open order of the maker, 5 to a transaction. */
  cancelOrders(b: CancelOrdersBody): Reply {
    const maker = makerOf(b.maker);
    if (!maker) return badMaker;
    const wanted = b.orders && b.orders.length > 0 ? new Set(b.orders) : undefined;
    const open = this.book.ofMaker(maker.toBase58()).filter((o) => o.status === 'Open' && (!wanted || wanted.has(o.address)));
    if (open.length === 0) return noMatch;
    // One input mint per transaction, so that each cancel is one refund on the ledger.
    const byMint = new Map<string, SimTriggerOrder[]>();
    for (const o of open) byMint.set(o.input.mint, [...(byMint.get(o.input.mint) ?? []), o]);
    const batches: SimTriggerOrder[][] = [];
    for (const group of byMint.values()) {
      let batch: SimTriggerOrder[] = [];
      for (const o of group) {
        if (batch.length > 0 && (batch.length === CANCELS_PER_TX || !this.fits(maker, [...batch, o]))) {
          batches.push(batch);
          batch = [];
        }
        batch.push(o);
      }
      batches.push(batch);
    }
    const { id, transactions } = this.cancelRequest(maker, batches, b.computeUnitPrice);
    return { status: 200, body: { requestId: id, transactions } };
  }

  /** POST /trigger/v1/execute: settles one of a request's transactions, once; the same bytes get the same answer. */
  execute(b: TriggerExecuteBody): Reply {
    const now = this.venue.clock.now();
    this.prune(now);
    const request = this.requests.get(b.requestId);
    // The spec does not show this answer; the service's 400 shape with a plain reason.
    if (!request) return { status: 400, body: { error: 'request not found, it might have expired', code: 400, status: 'Failed' } };
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(b.signedTransaction, 'base64'));
    } catch {
      return { status: 400, body: { error: 'invalid transaction', code: 400, status: 'Failed' } };
    }
    const index = request.messages.findIndex((m) => m.equals(tx.message.serialize()));
    if (index < 0) return { status: 400, body: { error: 'invalid transaction', cause: 'the transaction is not one this request built', code: 400, status: 'Failed' } };
    const previous = request.replies.get(index);
    if (previous) return previous;
    const ticket = request.tickets[index];
    if (!this.venue.chain.signaturesValid(tx, ticket ? [ticket.cosigner.publicKey] : [])) {
      return { status: 400, body: { error: 'invalid transaction', cause: 'the transaction is not signed by its signers', code: 400, status: 'Failed' } };
    }
    const reply = executeReply(this.venue.settle(tx, ticket && this.venue.tickets.get(ticket.id) ? ticket : undefined));
    request.replies.set(index, reply);
    return reply;
  }

  /** GET /trigger/v1/getTriggerOrders: a page of 10 of the user's open (`active`) or closed (`history`) orders. */
  getOrders(q: GetTriggerOrdersQuery): Reply {
    const active = q.orderStatus === 'active';
    const orders = this.book
      .ofMaker(q.user)
      .filter((o) => (active ? o.status === 'Open' : o.status === 'Completed' || o.status === 'Cancelled'))
      .filter((o) => (q.inputMint === undefined || o.input.mint === q.inputMint) && (q.outputMint === undefined || o.output.mint === q.outputMint));
    if (!active) orders.sort((a, b) => b.updatedAtMs - a.updatedAtMs);
    const page = q.page ?? 1;
    const slice = orders.slice((page - 1) * TRIGGER_PAGE_SIZE, page * TRIGGER_PAGE_SIZE);
    return { status: 200, body: { user: q.user, orderStatus: q.orderStatus, orders: slice.map(orderView), totalPages: Math.ceil(orders.length / TRIGGER_PAGE_SIZE), page } };
  }

  /**
   * The maker's cancel transactions, one per batch, each refunding exactly what its orders' escrows hold, with the
   * keeper's co-signature promised by a ticket. Until those transactions can no longer land, the keeper neither
   * fills nor expires the orders: the refund in them stays exact.
   */
  private cancelRequest(maker: PublicKey, batches: SimTriggerOrder[][], microLamports: bigint | undefined): { id: string; transactions: string[] } {
    const v = this.venue;
    const now = v.clock.now();
    this.prune(now);
    const id = requestId(now);
    const request: TriggerRequest = { messages: [], tickets: [], replies: new Map(), expiresAtMs: now + TRIGGER_REQUEST_TTL_MS };
    const transactions = batches.map((orders, i) => {
      const { tx, lastValidBlockHeight, product } = this.cancelTx(maker, orders, microLamports, `${id}:${i}`);
      const holdUntilMs = now + v.clock.msUntilBlockHeight(lastValidBlockHeight + 1n);
      const ticket: Ticket = {
        id: `trigger:${id}:${i}`,
        cosigner: v.keeper,
        required: product.map(instructionHash),
        expiresAtMs: holdUntilMs,
        record: { kind: 'trigger-cancel', wallet: maker.toBase58(), requestId: id, inputMint: null, inputAmount: null, outputMint: orders[0]!.input.mint, outputAmount: orders.reduce((s, o) => s + o.remainingMaking, 0n) },
        onLanded: (signature) => {
          for (const o of orders) if (o.status === 'Open') closeOrder(this.escrows, o, 'Cancelled', signature, v.clock.now());
        },
      };
      for (const o of orders) o.holdUntilMs = Math.max(o.holdUntilMs, holdUntilMs);
      v.tickets.add(ticket);
      request.messages.push(Buffer.from(tx.message.serialize()));
      request.tickets.push(ticket);
      return Buffer.from(tx.serialize()).toString('base64');
    });
    this.requests.set(id, request);
    return { id, transactions };
  }

  /** A cancel transaction; `product` is what the keeper's ticket requires (the memo makes each request's distinct). */
  private cancelTx(maker: PublicKey, orders: SimTriggerOrder[], microLamports: bigint | undefined, tag: string) {
    const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(`jup-keeper-sim trigger cancel ${tag}`, 'utf8') });
    const product = [...orders.flatMap((o) => cancelInstructions(this.venue, this.escrows, o, maker)), memo];
    return { ...this.venue.chain.buildTransaction(maker, [...computeBudget(microLamports ?? AUTO_MICRO_LAMPORTS), ...product]), product };
  }

  /** Whether a cancel of these orders fits in one transaction (with both signatures). */
  private fits(maker: PublicKey, orders: SimTriggerOrder[]): boolean {
    try {
      return this.cancelTx(maker, orders, undefined, `${'0'.repeat(36)}:0`).tx.serialize().length + 64 <= PACKET_BYTES;
    } catch {
      return false;
    }
  }

  /**
   * Opens an order when its createOrder transaction lands, whichever way it came (execute, or an RPC's
   * sendTransaction): the chain tells every listener about each landed signature.
   */
  private onChain(e: ChainEvent): void {
    if (e.signature === null || this.opening.size === 0) return;
    try {
      const status = this.venue.chain.signatureStatus(e.signature);
      const landed = status?.landed;
      if (!status || !landed?.tx || status.err !== null) return;
      const pending = landed.accounts.map((k) => this.opening.get(k.toBase58())).find((p) => p !== undefined);
      if (!pending || !pending.message.equals(landed.tx.message.serialize())) return;
      const o = pending.order;
      this.opening.delete(o.address);
      o.status = 'Open';
      o.openTx = e.signature;
      o.createdAtMs = o.updatedAtMs = this.venue.clock.now();
      writeOrderAccount(this.escrows, o);
      this.venue.chain.recordLedger({ signature: e.signature, slot: e.slot, kind: 'trigger-create', wallet: o.maker.toBase58(), requestId: o.requestId, inputMint: o.input.mint, inputAmount: o.making, outputMint: o.output.mint, outputAmount: null });
    } catch {
      // A listener must not throw inside the chain's change; an order that failed to open stays pending and is dropped.
    }
  }

  private prune(now: number): void {
    for (const [id, r] of this.requests) if (r.expiresAtMs < now) this.requests.delete(id);
    for (const [address, p] of this.opening) if (p.order.status !== 'Pending' || p.order.pendingUntilMs < now) this.opening.delete(address);
  }
}

/** The maker of a cancel request, or undefined when it is not an address (the service's "invalid maker pubkey"). */
function makerOf(value: unknown): PublicKey | undefined {
  const parsed = address.safeParse(value);
  return parsed.success ? new PublicKey(parsed.data) : undefined;
}

/** The answer of execute for a settlement: `{signature, status}` on success (the official example has no `code`). */
function executeReply(outcome: SubmitOutcome): Reply {
  const failed = (error: string, signature: string, cause?: string): Reply => ({ status: 500, body: { error, ...(cause ? { cause } : {}), code: 500, signature, status: 'Failed' } });
  switch (outcome.kind) {
    case 'landed':
      return { status: 200, body: { signature: outcome.signature, status: 'Success' } };
    case 'duplicate':
      return outcome.status.err === null ? { status: 200, body: { signature: outcome.signature, status: 'Success' } } : failed(programError(outcome.status.err), outcome.signature);
    case 'landed-failed':
      return failed(programError(outcome.err), outcome.signature);
    case 'rejected':
      return failed('unable to confirm transaction', outcome.signature, describeTxError(outcome.err));
  }
}

/** The service's words for a program error, e.g. "custom program error code: 1" (DOCS execute failure example). */
function programError(err: TxErrorJson): string {
  const ie = typeof err === 'string' ? undefined : err.InstructionError;
  const detail = Array.isArray(ie) ? (ie[1] as unknown) : undefined;
  if (detail && typeof detail === 'object' && 'Custom' in detail) return `custom program error code: ${(detail as { Custom: number }).Custom}`;
  return describeTxError(err);
}
