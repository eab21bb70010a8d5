import { PublicKey } from '@solana/web3.js';
import { WSOL_MINT } from '../../lib/mints.js';
import type { SimToken } from '../catalog.js';
import { LAMPORTS_PER_SIGNATURE, transactionBytes, type LedgerFee } from '../chain/chain.js';
import { autoSlippageBps, feeSide, NoRouteError, ultraFeeBps, type RouteConstraints, type RouteQuote } from '../market/quote.js';
import type { Venue } from '../venue.js';
import type { UltraExecuteBody, UltraOrderQuery } from '../http/requests/ultra.js';
import { ratioString, requestId, type Reply } from './common.js';
import { chooseGasless, GasWallet, gaslessFeeBps } from './gasless.js';
import { referralFeeFor, splitIntegratorFee, type ReferralFee } from './referral.js';
import { creationRent, DEFAULT_MICRO_LAMPORTS, installAggregator, MAX_TRANSACTION_BYTES, orderedInstructions, SWAP_COMPUTE_UNITS, swapInstructionSet, swapTicket, transactionSize } from './swapTx.js';
import { decodeSigned, settleOrder, type ExecuteOutcome, type StoredOrder } from './ultraExecute.js';
import { buildRfq, RFQ_EXPIRY_MS, RfqMaker, rfqBody, rfqQuote, rfqTicket } from './ultraRfq.js';

/** How long an order's requestId is accepted by execute, and how long an execute result is replayed (sim ms). */
export const ORDER_TTL_MS = 120_000;

interface Execution {
  reply: Reply;
  expiresAtMs: number;
}

/** A route with Ultra's fee applied on the side its fee mint is on. */
interface Priced {
  route: RouteQuote;
  feeBps: number;
  /** The fee, in base units of the fee mint. */
  fee: bigint;
  /** What the taker receives. */
  outAmount: bigint;
}

/** The routers the simulator runs: Metis (the aggregator, with gasless support) and JupiterZ (RFQ). */
export const SIM_ROUTERS = ['metis', 'jupiterz'] as const;
/** A router the simulator runs. */
export type SimRouter = (typeof SIM_ROUTERS)[number];

/** Which routes the venue offers, best first, and how long an RFQ quote stays landable (POST /__sim/ultra/route). */
export interface UltraRouting {
  /** The first one `excludeRouters` and the order's parameters allow wins. Default `['metis']`: no RFQ. */
  routers: SimRouter[];
  /** Ms an RFQ quote stays landable (default RFQ_EXPIRY_MS, the real 55 s). */
  rfqExpiryMs: number;
}

/** The Ultra product of the simulator: orders become real transactions, execute settles them once. */
export class UltraDesk {
  private readonly orders = new Map<string, StoredOrder>();
  private readonly executions = new Map<string, Execution>();
  private readonly gas: GasWallet;
  private readonly maker: RfqMaker;
  private routes: UltraRouting = { routers: ['metis'], rfqExpiryMs: RFQ_EXPIRY_MS };
  private prunedAt = Number.NEGATIVE_INFINITY;

  constructor(private readonly venue: Venue) {
    this.gas = new GasWallet(venue);
    this.maker = new RfqMaker(venue);
    installAggregator(venue);
  }

  /** Jupiter Ultra's gas wallet: the fee payer of gasless orders, and the rent payer of an RFQ's new output account. */
  gasWallet(): PublicKey {
    return this.gas.keypair.publicKey;
  }

  /** The JupiterZ market maker: the fee payer of RFQ orders, which signs at execute. Not a declared co-signer. */
  rfqMaker(): PublicKey {
    return this.maker.publicKey;
  }

  /** Which routes orders take (the RFQ route is offered only once listed here). */
  routing(): UltraRouting {
    return { ...this.routes, routers: [...this.routes.routers] };
  }

  /** Sets which routes orders take, best first, and the RFQ quotes' lifetime. */
  setRouting(r: Partial<UltraRouting>): UltraRouting {
    this.routes = { routers: r.routers ? [...new Set(r.routers)] : this.routes.routers, rfqExpiryMs: r.rfqExpiryMs ?? this.routes.rfqExpiryMs };
    return this.routing();
  }

  /** GET /ultra/v1/order. `hostile` is the hostile-order fault. */
  order(q: UltraOrderQuery, hostile: boolean): Reply {
    const v = this.venue;
    if (q.payer !== undefined && (q.referralAccount === undefined || q.referralFee === undefined)) {
      return { status: 400, body: { error: 'payer requires referralAccount and referralFee' } };
    }
    if ((q.referralAccount === undefined) !== (q.referralFee === undefined)) {
      return { status: 400, body: { error: 'referralAccount and referralFee must be used together' } };
    }
    if (q.closeAuthority !== undefined && q.payer === undefined) return { status: 400, body: { error: 'closeAuthority requires payer' } };
    const excluded: readonly string[] = q.excludeRouters ?? [];
    const input = v.token(q.inputMint);
    const output = v.token(q.outputMint);
    if (!input || !output || input.mint === output.mint) return noQuotes();
    // The best route the request allows: RFQ is not offered with an integrator's payer or referral fee.
    const router = this.routes.routers.find((r) => !excluded.includes(r) && (r !== 'jupiterz' || (q.payer === undefined && q.referralAccount === undefined)));
    if (router === 'jupiterz') return this.rfqOrder(q, input, output, hostile);
    if (router !== 'metis') return noQuotes();
    const now = v.clock.now();
    const feeToken = feeSide(input, output) === 'input' ? input : output;
    // An integrator fee replaces Ultra's fee, but only when its referral token account for the fee mint exists.
    const referral = q.referralAccount !== undefined && q.referralFee !== undefined ? referralFeeFor(v, q.referralAccount, q.referralFee, feeToken) : undefined;
    const baseBps = referral?.feeBps ?? ultraFeeBps(input, output, now, v.clock.startMs);
    const constraints: RouteConstraints = { excludeDexes: q.excludeDexes?.split(',').map((d) => d.replace(/\+/g, ' ')) };
    const first = this.priced(input, output, q.amount, baseBps, constraints);
    if (!first) return noQuotes();
    let p: Priced = first;
    const manual = [q.slippageBps, q.broadcastFeeType, q.priorityFeeLamports, q.jitoTipLamports, q.referralAccount, q.payer].some((x) => x !== undefined);
    const slippageBps = q.slippageBps ?? autoSlippageBps(input, output);
    const microLamports = q.priorityFeeLamports !== undefined ? (BigInt(q.priorityFeeLamports) * 1_000_000n) / BigInt(SWAP_COMPUTE_UNITS) : DEFAULT_MICRO_LAMPORTS;
    const priorityLamports = (BigInt(SWAP_COMPUTE_UNITS) * microLamports + 999_999n) / 1_000_000n;
    const id = requestId(now);
    const inUsd = this.usdOf(input, q.amount);
    if (q.taker === undefined) return { status: 200, body: { ...this.body(q, p, { input, output, feeToken, slippageBps, priorityLamports, id, inUsd, manual, feePayer: null, gasless: false }), transaction: null } };

    const taker = new PublicKey(q.taker);
    const payer = q.payer !== undefined ? new PublicKey(q.payer) : undefined;
    const rent = creationRent(v, taker, output);
    const signers = payer ? 3n : 2n;
    const ownGas = LAMPORTS_PER_SIGNATURE * signers + priorityLamports + rent;
    const fields = (gasless: boolean, feePayer: string) => ({ input, output, feeToken, slippageBps, priorityLamports, id, inUsd, manual, feePayer, gasless, rent });
    const refusal = (errorCode: 1 | 2 | 3, errorMessage: string): Reply => ({ status: 200, body: { ...this.body(q, p, fields(false, q.taker!)), transaction: '', errorCode, errorMessage } });
    if (v.balance(taker, input.mint) < q.amount + (v.isSol(input.mint) && !payer ? ownGas : 0n)) return refusal(1, 'Insufficient funds');
    const lamports = v.chain.lamports(taker);
    let gasless = false;
    if (!payer) {
      const choice = chooseGasless({ takerLamports: lamports, gasLamports: ownGas, tradeUsd: inUsd, eligibleParams: !manual && excluded.length === 0 });
      if (choice.refusal === 3) return refusal(3, 'Minimum `10` for gasless');
      if (choice.refusal === 2) return refusal(2, `Top up \`${(Number(ownGas - lamports) / 1e9).toFixed(6)}\` SOL for gas`);
      gasless = choice.gasless;
    }
    if (gasless) {
      // The gas wallet pays every signature (its own, the taker's, the vault's), the priority fee and the rent: the
      // fee grows by what that costs at SOL's price now, on this trade's size.
      const gasCost = LAMPORTS_PER_SIGNATURE * 3n + priorityLamports + rent;
      const recouped = this.priced(input, output, q.amount, baseBps + gaslessFeeBps(gasCost, v.prices.usd(WSOL_MINT) ?? 0, inUsd), constraints);
      if (!recouped) return noQuotes();
      p = recouped;
    }
    const feePayer = gasless ? this.gas.keypair.publicKey : (payer ?? taker);
    const memo = `jup-keeper-sim ultra ${id}`;
    // Build, and while the transaction exceeds 1,232 bytes route again with fewer accounts, as Ultra does for its
    // own transactions (callers of Ultra never see maxAccounts).
    for (;;) {
      const vaultPayments = referral ? [{ token: feeToken, to: referral.tokenAccount, amount: splitIntegratorFee(p.fee).integrator }].filter((x) => x.amount > 0n) : [];
      const set = swapInstructionSet(v, { taker, input, output, inAmount: q.amount, outAmount: p.outAmount, computeUnitPriceMicroLamports: microLamports, memo, hostile, feePayer, closeAuthority: q.closeAuthority !== undefined ? new PublicKey(q.closeAuthority) : undefined, ammKeys: p.route.legs.map((l) => l.ammKey), vaultPayments });
      const { instructions, payOutIndex } = orderedInstructions(set);
      const { tx } = v.chain.buildTransaction(feePayer, instructions);
      if (transactionSize(tx) > MAX_TRANSACTION_BYTES) {
        const fewer: RouteConstraints = { ...constraints, maxAccounts: p.route.accounts - 1 };
        const next: Priced | undefined = p.route.accounts > 1 ? this.priced(input, output, q.amount, p.feeBps, fewer) : undefined;
        if (!next) return noQuotes();
        Object.assign(constraints, fewer);
        p = next;
        continue;
      }
      const expiresAtMs = now + ORDER_TTL_MS;
      const threshold = (p.outAmount * BigInt(10_000 - slippageBps)) / 10_000n;
      const priced = p;
      const ledgerFee = this.ledgerFee(priced, feeToken, referral, feePayer, gasless);
      const ticket = swapTicket(set, {
        id: `ultra:${id}`,
        venue: v,
        expiresAtMs,
        record: { kind: 'ultra', wallet: taker.toBase58(), requestId: id, inputMint: input.mint, inputAmount: q.amount, outputMint: output.mint, outputAmount: priced.outAmount, fee: ledgerFee },
        preSettle: () => ((this.priced(input, output, q.amount, priced.feeBps, { ...constraints })?.outAmount ?? 0n) < threshold ? { failInstruction: payOutIndex, code: 6001 } : undefined),
      });
      v.tickets.add(ticket);
      this.prune(now);
      const routeIn = feeToken === input ? q.amount - priced.fee : q.amount;
      const message = tx.message.serialize();
      this.orders.set(id, { requestId: id, taker, payer, gasWallet: gasless ? this.gas.keypair : undefined, expiresAtMs, message, ticket, input, output, inAmount: q.amount, routeIn, grossOut: priced.route.outAmount, outAmount: priced.outAmount, threshold, legs: priced.route.legs, usd: inUsd });
      return { status: 200, body: { ...this.body(q, priced, fields(gasless, feePayer.toBase58())), transaction: Buffer.from(transactionBytes(tx, message)).toString('base64') } };
    }
  }

  /** An order through JupiterZ (see ultraRfq.ts): the maker's firm quote, its fill, the maker as fee payer. */
  private rfqOrder(q: UltraOrderQuery, input: SimToken, output: SimToken, hostile: boolean): Reply {
    const v = this.venue;
    const now = v.clock.now();
    const quote = rfqQuote(v, input, output, q.amount);
    if (!quote) return noQuotes();
    const id = requestId(now);
    const expiresAtMs = now + this.routes.rfqExpiryMs;
    const maker = this.maker.publicKey.toBase58();
    const inUsd = this.usdOf(input, q.amount);
    const body = (rentPayer: string | null, rentLamports: bigint) => rfqBody({ inputMint: input.mint, outputMint: output.mint, amount: q.amount, taker: q.taker }, { maker, quote, id, expiresAtMs, inUsd, outUsd: this.usdOf(output, quote.outAmount), rentPayer, rentLamports });
    if (q.taker === undefined) return { status: 200, body: { ...body(null, 0n), transaction: null } };
    const taker = new PublicKey(q.taker);
    // The taker pays no gas; a SOL input may not leave it holding less than an account's rent (it could not land).
    const left = v.balance(taker, input.mint) - q.amount;
    if (left < 0n || (v.isSol(input.mint) && left > 0n && left < v.chain.rentExempt(0))) {
      return { status: 200, body: { ...body(null, 0n), transaction: '', errorCode: 1, errorMessage: 'Insufficient funds' } };
    }
    const build = buildRfq(v, this.maker, this.gas, { taker, input, output, inAmount: q.amount, outAmount: quote.outAmount, feeBps: quote.feeBps, expiresAtMs, memo: `jup-keeper-sim ultra ${id}`, hostile });
    const fee: LedgerFee = { mint: output.mint, bps: quote.feeBps, amount: quote.fee, referralAccount: null, referralAmount: 0n, operatorAmount: quote.fee, feePayer: maker, gasless: true };
    const ticket = rfqTicket(build, this.maker, { id: `ultra:${id}`, expiresAtMs, record: { kind: 'ultra', wallet: q.taker, requestId: id, inputMint: input.mint, inputAmount: q.amount, outputMint: output.mint, outputAmount: quote.outAmount, fee } });
    v.tickets.add(ticket);
    this.prune(now);
    const leg = { ...quote.route.legs[0]!, ammKey: maker, label: 'JupiterZ', inputMint: input.mint, outputMint: output.mint, inAmount: q.amount, outAmount: quote.outAmount, percent: 100, bps: 10_000 };
    const message = build.tx.message.serialize();
    this.orders.set(id, { requestId: id, taker, payer: undefined, gasWallet: build.gasSigns ? this.gas.keypair : undefined, expiresAtMs: now + ORDER_TTL_MS, message, ticket, input, output, inAmount: q.amount, routeIn: q.amount, grossOut: quote.route.outAmount, outAmount: quote.outAmount, threshold: quote.outAmount, legs: [leg], usd: inUsd, rfqExpiresAtMs: expiresAtMs });
    const rentPayer = build.gasSigns ? this.gas.keypair.publicKey.toBase58() : null;
    return { status: 200, body: { ...body(rentPayer, build.rentLamports), transaction: Buffer.from(transactionBytes(build.tx, message)).toString('base64') } };
  }

  /** POST /ultra/v1/execute: idempotent for the same requestId and signed transaction while the order is cached. */
  execute(body: UltraExecuteBody): ExecuteOutcome {
    const now = this.venue.clock.now();
    this.prune(now);
    const { signedTransaction: signed, requestId: id } = body;
    const answer = (reply: Reply): ExecuteOutcome => ({ reply, executedUsd: 0 });
    const tx = decodeSigned(signed);
    if (!tx) return answer({ status: 400, body: { error: 'Invalid signed transaction', code: -2 } });
    const order = this.orders.get(id);
    const previous = this.executions.get(id);
    const message = tx.message.serialize();
    const sameMessage = (o: StoredOrder | undefined): boolean => Buffer.compare(message, o?.message ?? new Uint8Array()) === 0;
    if (previous) return answer(sameMessage(order) ? previous.reply : { status: 400, body: { error: 'Invalid message bytes', code: -3 } });
    if (!order) return answer({ status: 400, body: { error: 'Order not found, it might have expired', code: -1 } });
    if (!sameMessage(order)) return answer({ status: 400, body: { error: 'Invalid message bytes', code: -3 } });
    const outcome = settleOrder(this.venue, order, tx);
    // A refusal before settlement (an unsigned or badly signed transaction) may be corrected and sent again.
    if (outcome.reply.status === 200 && (outcome.reply.body as { code?: number }).code !== -1003) this.executions.set(id, { reply: outcome.reply, expiresAtMs: now + ORDER_TTL_MS });
    return outcome;
  }

  /** The route for `amount` with `feeBps` taken on the fee mint's side; undefined when there is none. */
  private priced(input: SimToken, output: SimToken, amount: bigint, feeBps: number, c: RouteConstraints): Priced | undefined {
    try {
      if (feeSide(input, output) === 'input') {
        const fee = (amount * BigInt(feeBps)) / 10_000n;
        if (amount - fee <= 0n) return undefined;
        const route = this.venue.router.quoteExactIn(input.mint, output.mint, amount - fee, c);
        return { route, feeBps, fee, outAmount: route.outAmount };
      }
      const route = this.venue.router.quoteExactIn(input.mint, output.mint, amount, c);
      const fee = (route.outAmount * BigInt(feeBps)) / 10_000n;
      return route.outAmount - fee > 0n ? { route, feeBps, fee, outAmount: route.outAmount - fee } : undefined;
    } catch (err) {
      if (err instanceof NoRouteError) return undefined;
      throw err;
    }
  }

  /** The order body of jupiter-api.md §1.2, without `transaction`. */
  private body(q: UltraOrderQuery, p: Priced, o: { input: SimToken; output: SimToken; feeToken: SimToken; slippageBps: number; priorityLamports: bigint; id: string; inUsd: number; manual: boolean; feePayer: string | null; gasless: boolean; rent?: bigint }): Record<string, unknown> {
    const outUsd = this.usdOf(o.output, p.outAmount);
    return {
      mode: o.manual ? 'manual' : 'ultra',
      inputMint: o.input.mint,
      outputMint: o.output.mint,
      inAmount: q.amount.toString(),
      outAmount: p.outAmount.toString(),
      otherAmountThreshold: ((p.outAmount * BigInt(10_000 - o.slippageBps)) / 10_000n).toString(),
      swapMode: 'ExactIn',
      slippageBps: o.slippageBps,
      priceImpactPct: ratioString(-p.route.impact),
      priceImpact: -p.route.impact * 100,
      inUsdValue: o.inUsd,
      outUsdValue: outUsd,
      swapUsdValue: o.inUsd,
      routePlan: p.route.legs.map((l) => ({
        swapInfo: { ammKey: l.ammKey, label: l.label, inputMint: l.inputMint, outputMint: l.outputMint, inAmount: l.inAmount.toString(), outAmount: l.outAmount.toString() },
        percent: l.percent,
        bps: l.bps,
        usdValue: (o.inUsd * l.bps) / 10_000,
      })),
      ...(q.referralAccount ? { referralAccount: q.referralAccount } : {}),
      feeMint: o.feeToken.mint,
      feeBps: p.feeBps,
      platformFee: { amount: p.fee.toString(), feeBps: p.feeBps },
      signatureFeeLamports: 5000,
      signatureFeePayer: o.feePayer,
      prioritizationFeeLamports: Number(o.priorityLamports),
      prioritizationFeePayer: o.feePayer,
      rentFeeLamports: Number(o.rent ?? 0n),
      rentFeePayer: o.feePayer,
      swapType: 'aggregator',
      router: 'metis',
      gasless: o.gasless,
      requestId: o.id,
      totalTime: 40 + Math.round(Math.random() * 60),
      taker: q.taker ?? null,
    };
  }

  private ledgerFee(p: Priced, feeToken: SimToken, referral: ReferralFee | undefined, feePayer: PublicKey, gasless: boolean): LedgerFee {
    const split = referral ? splitIntegratorFee(p.fee) : { integrator: 0n, operator: p.fee };
    return {
      mint: feeToken.mint,
      bps: p.feeBps,
      amount: p.fee,
      referralAccount: referral?.referralAccount.toBase58() ?? null,
      referralAmount: split.integrator,
      operatorAmount: split.operator,
      feePayer: feePayer.toBase58(),
      gasless,
    };
  }

  private usdOf(token: SimToken, amount: bigint): number {
    return (Number(amount) / 10 ** token.decimals) * (this.venue.prices.usd(token.mint) ?? 0);
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

function noQuotes(): Reply {
  return { status: 400, body: { error: 'Failed to get quotes' } };
}
