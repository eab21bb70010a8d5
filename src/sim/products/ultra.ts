import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { z } from 'zod';
import { ULTRA_ROUTERS } from '../../jupiter/ultra/getOrder.js';
import type { SimToken } from '../catalog.js';
import type { Ticket } from '../chain/tickets.js';
import { describeTxError, type TxErrorJson } from '../chain/txErrors.js';
import type { SubmitOutcome } from '../chain/chain.js';
import { autoSlippageBps, NoRouteError, ultraFeeBps, type RouteQuote } from '../market/quote.js';
import type { Venue } from '../venue.js';
import { addressParam, amountParam, intParam, ratioString, requestId, type Reply } from './common.js';
import { DEFAULT_MICRO_LAMPORTS, orderedInstructions, SWAP_COMPUTE_UNITS, swapInstructionSet, swapTicket } from './swapTx.js';

/** How long an order's requestId is accepted by execute, and how long an execute result is replayed (sim ms). */
export const ORDER_TTL_MS = 120_000;

/** Query of GET /ultra/v1/order. */
export const ultraOrderQuery = z.object({
  inputMint: addressParam,
  outputMint: addressParam,
  amount: amountParam,
  taker: addressParam.optional(),
  receiver: addressParam.optional(),
  payer: addressParam.optional(),
  closeAuthority: addressParam.optional(),
  referralAccount: addressParam.optional(),
  referralFee: intParam(50, 255).optional(),
  excludeRouters: z.string().optional(),
  excludeDexes: z.string().optional(),
  slippageBps: intParam(0, 10_000).optional(),
  broadcastFeeType: z.enum(['maxCap', 'exactFee']).optional(),
  priorityFeeLamports: intParam(1, 1_000_000_000).optional(),
  jitoTipLamports: intParam(1000, 1_000_000_000).optional(),
});
type OrderQuery = z.output<typeof ultraOrderQuery>;

/** Body of POST /ultra/v1/execute (both fields checked by hand for the documented codes -4 and -5). */
export const ultraExecuteBody = z.object({ signedTransaction: z.unknown(), requestId: z.unknown() }).partial();

interface StoredOrder {
  requestId: string;
  taker: PublicKey;
  expiresAtMs: number;
  message: Uint8Array;
  ticket: Ticket;
  input: SimToken;
  output: SimToken;
  inAmount: bigint;
  grossOut: bigint;
  outAmount: bigint;
  threshold: bigint;
  legs: RouteQuote['legs'];
}

interface Execution {
  signature: string;
  reply: Reply;
  expiresAtMs: number;
}

/** The Ultra product of the simulator: orders become real transactions, execute settles them once. */
export class UltraDesk {
  private readonly orders = new Map<string, StoredOrder>();
  private readonly executions = new Map<string, Execution>();
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly venue: Venue) {}

  /** GET /ultra/v1/order. `hostile` is the hostile-order fault. */
  order(q: OrderQuery, hostile: boolean): Reply {
    const v = this.venue;
    if ((q.payer !== undefined) !== (q.referralAccount !== undefined && q.referralFee !== undefined) && q.payer !== undefined) {
      return { status: 400, body: { error: 'payer requires referralAccount and referralFee' } };
    }
    if ((q.referralAccount === undefined) !== (q.referralFee === undefined)) {
      return { status: 400, body: { error: 'referralAccount and referralFee must be used together' } };
    }
    const excluded = (q.excludeRouters ?? '').split(',').filter(Boolean);
    if (excluded.some((r) => !(ULTRA_ROUTERS as readonly string[]).includes(r))) {
      return { status: 400, body: { error: `excludeRouters must be a list of ${ULTRA_ROUTERS.join(', ')}` } };
    }
    const input = v.token(q.inputMint);
    const output = v.token(q.outputMint);
    if (!input || !output || input.mint === output.mint || excluded.includes('metis')) return { status: 400, body: { error: 'Failed to get quotes' } };
    let route: RouteQuote;
    try {
      route = v.router.quoteExactIn(input.mint, output.mint, q.amount, { excludeDexes: q.excludeDexes?.split(',').map((d) => d.replace(/\+/g, ' ')) });
    } catch (err) {
      if (err instanceof NoRouteError) return { status: 400, body: { error: 'Failed to get quotes' } };
      throw err;
    }
    const now = v.clock.now();
    const feeBps = q.referralFee ?? ultraFeeBps(input, output, now, v.clock.startMs);
    const fee = (route.outAmount * BigInt(feeBps)) / 10_000n;
    const outAmount = route.outAmount - fee;
    if (outAmount <= 0n) return { status: 400, body: { error: 'Failed to get quotes' } };
    const manual = [q.slippageBps, q.broadcastFeeType, q.priorityFeeLamports, q.jitoTipLamports, q.referralAccount, q.payer].some((x) => x !== undefined);
    const slippageBps = q.slippageBps ?? autoSlippageBps(input, output);
    const threshold = (outAmount * BigInt(10_000 - slippageBps)) / 10_000n;
    const microLamports = q.priorityFeeLamports !== undefined ? (BigInt(q.priorityFeeLamports) * 1_000_000n) / BigInt(SWAP_COMPUTE_UNITS) : DEFAULT_MICRO_LAMPORTS;
    const id = requestId(now);
    const outUsd = (Number(outAmount) / 10 ** output.decimals) * (v.prices.usd(output.mint) ?? 0);
    const base = {
      mode: manual ? 'manual' : 'ultra',
      inputMint: input.mint,
      outputMint: output.mint,
      inAmount: q.amount.toString(),
      outAmount: outAmount.toString(),
      otherAmountThreshold: threshold.toString(),
      swapMode: 'ExactIn',
      slippageBps,
      priceImpactPct: ratioString(-route.impact),
      priceImpact: -route.impact * 100,
      inUsdValue: route.inUsd,
      outUsdValue: outUsd,
      swapUsdValue: route.inUsd,
      routePlan: route.legs.map((l) => ({
        swapInfo: { ammKey: l.ammKey, label: l.label, inputMint: l.inputMint, outputMint: l.outputMint, inAmount: l.inAmount.toString(), outAmount: l.outAmount.toString() },
        percent: 100,
        bps: 10_000,
        usdValue: route.inUsd,
      })),
      ...(q.referralAccount ? { referralAccount: q.referralAccount } : {}),
      feeMint: output.mint,
      feeBps,
      platformFee: { amount: fee.toString(), feeBps },
      signatureFeeLamports: 5000,
      signatureFeePayer: q.taker ?? null,
      prioritizationFeeLamports: Number((BigInt(SWAP_COMPUTE_UNITS) * microLamports + 999_999n) / 1_000_000n),
      prioritizationFeePayer: q.taker ?? null,
      rentFeeLamports: 0,
      rentFeePayer: q.taker ?? null,
      swapType: 'aggregator',
      router: 'metis',
      gasless: false,
      requestId: id,
      totalTime: 40 + Math.round(Math.random() * 60),
      taker: q.taker ?? null,
    };
    if (q.taker === undefined) return { status: 200, body: { ...base, transaction: null } };

    const taker = new PublicKey(q.taker);
    const set = swapInstructionSet(v, { taker, input, output, inAmount: q.amount, outAmount, computeUnitPriceMicroLamports: microLamports, memo: `jup-keeper-sim ultra ${id}`, hostile });
    const lamports = v.chain.lamports(taker);
    const fees = 5000n + set.priorityFeeLamports + set.rentLamports;
    const refusal = (errorCode: 1 | 2 | 3, errorMessage: string): Reply => ({ status: 200, body: { ...base, rentFeeLamports: Number(set.rentLamports), transaction: '', errorCode, errorMessage } });
    if (v.balance(taker, input.mint) < q.amount + (v.isSol(input.mint) ? fees : 0n)) return refusal(1, 'Insufficient funds');
    if (lamports < fees) {
      // Gasless routing is not simulated: a taker without SOL for gas gets errorCode 3 below ~$10, else 2.
      return route.inUsd < 10 ? refusal(3, 'Minimum `10` for gasless') : refusal(2, `Top up \`${(Number(fees - lamports) / 1e9).toFixed(6)}\` SOL for gas`);
    }
    const { instructions, payOutIndex } = orderedInstructions(set);
    const { tx } = v.chain.buildTransaction(taker, instructions);
    const expiresAtMs = now + ORDER_TTL_MS;
    const ticket = swapTicket(set, {
      id: `ultra:${id}`,
      venue: v,
      expiresAtMs,
      record: { kind: 'ultra', wallet: taker.toBase58(), requestId: id, inputMint: input.mint, inputAmount: q.amount, outputMint: output.mint, outputAmount: outAmount },
      preSettle: () => (this.marketNet(input, output, q.amount, feeBps) < threshold ? { failInstruction: payOutIndex, code: 6001 } : undefined),
    });
    v.tickets.add(ticket);
    this.prune(now);
    this.orders.set(id, { requestId: id, taker, expiresAtMs, message: tx.message.serialize(), ticket, input, output, inAmount: q.amount, grossOut: route.outAmount, outAmount, threshold, legs: route.legs });
    return {
      status: 200,
      body: { ...base, rentFeeLamports: Number(set.rentLamports), transaction: Buffer.from(tx.serialize()).toString('base64') },
    };
  }

  /** POST /ultra/v1/execute: idempotent for the same requestId and signed transaction while the order is cached. */
  execute(body: z.output<typeof ultraExecuteBody> | undefined): Reply {
    const now = this.venue.clock.now();
    this.prune(now);
    const signed = body?.signedTransaction;
    const id = body?.requestId;
    if (typeof signed !== 'string' || signed === '') return { status: 400, body: { error: 'Missing signed transaction', code: -5 } };
    if (typeof id !== 'string' || id === '') return { status: 400, body: { error: 'Missing request id', code: -4 } };
    let tx: VersionedTransaction;
    try {
      tx = VersionedTransaction.deserialize(Buffer.from(signed, 'base64'));
    } catch {
      return { status: 400, body: { error: 'Invalid signed transaction', code: -2 } };
    }
    const order = this.orders.get(id);
    const previous = this.executions.get(id);
    if (previous) {
      if (Buffer.compare(tx.message.serialize(), order?.message ?? new Uint8Array()) !== 0) return { status: 400, body: { error: 'Invalid message bytes', code: -3 } };
      return previous.reply;
    }
    if (!order) return { status: 400, body: { error: 'Order not found, it might have expired', code: -1 } };
    if (Buffer.compare(tx.message.serialize(), order.message) !== 0) return { status: 400, body: { error: 'Invalid message bytes', code: -3 } };
    const takerSig = tx.signatures[0];
    if (!takerSig || takerSig.every((b) => b === 0)) {
      return { status: 200, body: { status: 'Failed', signature: '', slot: '0', code: -1003, error: 'Transaction not fully signed' } };
    }
    if (!this.venue.chain.hasValidSignature(tx, order.taker)) return { status: 400, body: { error: 'Invalid signed transaction', code: -2 } };
    const reply = this.replyFor(order, this.venue.settle(tx, order.ticket));
    this.executions.set(id, { signature: signatureOf(tx), reply, expiresAtMs: now + ORDER_TTL_MS });
    return reply;
  }

  private replyFor(order: StoredOrder, outcome: SubmitOutcome): Reply {
    const amounts = {
      totalInputAmount: order.inAmount.toString(),
      totalOutputAmount: order.outAmount.toString(),
      inputAmountResult: order.inAmount.toString(),
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
        if (outcome.err === 'BlockhashNotFound') return { status: 200, body: { status: 'Failed', signature: outcome.signature, slot: '0', code: -1005, error: 'Transaction expired' } };
        return { status: 200, body: { status: 'Failed', signature: outcome.signature, slot: '0', code: -1000, error: `Failed to land: ${describeTxError(outcome.err)}` } };
    }
  }

  /** What the taker would get for the same input at the market now, after the fee. */
  private marketNet(input: SimToken, output: SimToken, amount: bigint, feeBps: number): bigint {
    try {
      const r = this.venue.router.quoteExactIn(input.mint, output.mint, amount);
      return r.outAmount - (r.outAmount * BigInt(feeBps)) / 10_000n;
    } catch {
      return 0n;
    }
  }

  private prune(now: number): void {
    // At most once a simulated second: a full sweep per request would grow with the number of orders.
    if (now - this.prunedAt < 1_000) return;
    this.prunedAt = now;
    for (const [id, o] of this.orders) if (o.expiresAtMs < now && !this.executions.has(id)) this.orders.delete(id);
    for (const [id, e] of this.executions) {
      if (e.expiresAtMs < now) {
        this.executions.delete(id);
        this.orders.delete(id);
      }
    }
  }
}

function signatureOf(tx: VersionedTransaction): string {
  return Buffer.from(tx.signatures[0] ?? []).toString('base64');
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
