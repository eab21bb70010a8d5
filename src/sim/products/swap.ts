import { PublicKey, type TransactionInstruction } from '@solana/web3.js';
import type { SimToken } from '../catalog.js';
import { MAX_ROUTE_ACCOUNTS, NoRouteError, ROUTE_ACCOUNTS_PER_LEG, type RouteConstraints, type RouteQuote } from '../market/quote.js';
import type { Venue } from '../venue.js';
import type { SwapBody, SwapQuoteQuery } from '../http/requests/swap.js';
import { ratioString, requestId, type Reply } from './common.js';
import { DEFAULT_MICRO_LAMPORTS, installAggregator, MAX_TRANSACTION_BYTES, orderedInstructions, SWAP_COMPUTE_UNITS, swapInstructionSet, swapTicket, transactionSize, wireBytes, type SwapInstructionSet } from './swapTx.js';

/** How long a built /swap transaction's ticket is honoured (sim ms); the blockhash expires sooner. */
const SWAP_TICKET_TTL_MS = 120_000;

/** The Metis swap product: quotes, then transactions the caller signs and sends through RPC. */
export class SwapDesk {
  constructor(private readonly venue: Venue) {
    installAggregator(venue);
  }

  /** GET /swap/v1/quote. */
  quote(q: SwapQuoteQuery): Reply {
    const v = this.venue;
    if (q.maxAccounts !== undefined && q.maxAccounts > 64) return routeError('MAX_ACCOUNT_GREATER_THAN_MAX', 'maxAccounts must be 64 or less');
    const constraints: RouteConstraints = { maxAccounts: q.maxAccounts, onlyDirectRoutes: q.onlyDirectRoutes, dexes: q.dexes, excludeDexes: q.excludeDexes };
    let route: RouteQuote;
    try {
      route = q.swapMode === 'ExactIn'
        ? v.router.quoteExactIn(q.inputMint, q.outputMint, q.amount, constraints)
        : v.router.quoteExactOut(q.inputMint, q.outputMint, q.amount, constraints);
    } catch (err) {
      if (err instanceof NoRouteError) return routeError(err.errorCode, err.message);
      throw err;
    }
    const feeBps = q.platformFeeBps ?? 0;
    const start = performance.now();
    let inAmount = route.inAmount;
    let outAmount = route.outAmount;
    let fee = 0n;
    if (q.swapMode === 'ExactIn') {
      fee = (route.outAmount * BigInt(feeBps)) / 10_000n;
      outAmount = route.outAmount - fee;
    } else {
      outAmount = q.amount;
      fee = (route.inAmount * BigInt(feeBps)) / 10_000n;
      inAmount = route.inAmount + fee;
    }
    if (outAmount <= 0n) return routeError('COULD_NOT_FIND_ANY_ROUTE', 'Could not find any route');
    const threshold = q.swapMode === 'ExactIn'
      ? (outAmount * BigInt(10_000 - q.slippageBps)) / 10_000n
      : (inAmount * BigInt(10_000 + q.slippageBps)) / 10_000n;
    return {
      status: 200,
      body: {
        inputMint: q.inputMint,
        inAmount: inAmount.toString(),
        outputMint: q.outputMint,
        outAmount: outAmount.toString(),
        otherAmountThreshold: threshold.toString(),
        swapMode: q.swapMode,
        slippageBps: q.slippageBps,
        platformFee: feeBps > 0 ? { amount: fee.toString(), feeBps } : null,
        priceImpactPct: ratioString(route.impact),
        routePlan: route.legs.map((l) => ({
          swapInfo: { ammKey: l.ammKey, label: l.label, inputMint: l.inputMint, outputMint: l.outputMint, inAmount: l.inAmount.toString(), outAmount: l.outAmount.toString(), feeAmount: '0', feeMint: l.outputMint },
          percent: l.percent,
          bps: l.bps,
        })),
        contextSlot: Number(v.clock.slot()),
        timeTaken: (performance.now() - start) / 1000,
        swapUsdValue: route.inUsd.toFixed(6),
        mostReliableAmmsQuoteReport: { info: Object.fromEntries(route.legs.map((l) => [l.ammKey, l.outAmount.toString()])) },
        instructionVersion: q.instructionVersion ?? null,
      },
    };
  }

  /** POST /swap/v1/swap: one unsigned v0 transaction for the quote, at the market's price now. */
  swap(body: SwapBody, hostile = false): Reply {
    const built = this.build(body, hostile);
    if ('reply' in built) return built.reply;
    const { set, plan } = built;
    const { instructions, payOutIndex } = orderedInstructions(set);
    const { tx, lastValidBlockHeight } = this.venue.chain.buildTransaction(plan.user, instructions);
    // A route whose accounts do not fit is built all the same, as the service does: the caller serializes, finds it
    // over 1,232 bytes and quotes again with a lower maxAccounts (DOCS swap/v1/requote-with-lower-max-accounts.mdx);
    // a node refuses the oversized bytes.
    const oversized = transactionSize(tx) > MAX_TRANSACTION_BYTES;
    if (!oversized) this.venue.tickets.add(swapTicket(set, { ...this.ticketBase(plan), preSettle: () => this.slippageCheck(plan, payOutIndex) }));
    return {
      status: 200,
      body: {
        swapTransaction: (oversized ? wireBytes(tx) : Buffer.from(tx.serialize())).toString('base64'),
        lastValidBlockHeight: Number(lastValidBlockHeight),
        prioritizationFeeLamports: Number(set.priorityFeeLamports),
        computeUnitLimit: SWAP_COMPUTE_UNITS,
        prioritizationType: { computeBudget: { microLamports: Number(plan.microLamports), estimatedMicroLamports: Number(plan.microLamports) } },
        dynamicSlippageReport: null,
        simulationError: null,
      },
    };
  }

  /** POST /swap/v1/swap-instructions: the same swap as instructions; the taker pays in setup, the vault in swap. */
  swapInstructions(body: SwapBody, hostile = false): Reply {
    const built = this.build(body, hostile);
    if ('reply' in built) return built.reply;
    const { set, plan } = built;
    const payOutIndex = set.computeBudget.length + set.setup.length + 1;
    this.venue.tickets.add(swapTicket(set, { ...this.ticketBase(plan), preSettle: () => this.slippageCheck(plan, payOutIndex) }));
    return {
      status: 200,
      body: {
        tokenLedgerInstruction: null,
        computeBudgetInstructions: set.computeBudget.map(instructionJson),
        setupInstructions: [...set.setup, set.payIn, ...set.hostile].map(instructionJson),
        swapInstruction: instructionJson(set.payOut),
        cleanupInstruction: null,
        otherInstructions: [set.route, set.memo].map(instructionJson),
        addressLookupTableAddresses: [],
      },
    };
  }

  private build(body: SwapBody, hostile: boolean): { reply: Reply } | { set: SwapInstructionSet; plan: Plan } {
    const v = this.venue;
    const q = body.quoteResponse;
    const input = v.token(q.inputMint);
    const output = v.token(q.outputMint);
    if (!input || !output) return { reply: routeError('TOKEN_NOT_TRADABLE', 'The token is not tradable') };
    let destination: PublicKey | undefined;
    if (body.destinationTokenAccount) {
      destination = new PublicKey(body.destinationTokenAccount);
      const acc = v.chain.tokenAccount(destination);
      if (!acc || acc.mint !== output.mint) return { reply: { status: 400, body: { error: 'destinationTokenAccount is not a token account of the output mint' } } };
    }
    const exactIn = q.swapMode === 'ExactIn';
    const inAmount = BigInt(q.inAmount);
    const quotedOut = BigInt(q.outAmount);
    // The vault pays what the market gives now for the quoted input (ExactIn), or takes what the quoted output costs
    // now (ExactOut); a fabricated quote cannot buy more than the market. Slippage is judged when it lands.
    let payIn = inAmount;
    let payOut = quotedOut;
    // The market is asked for a route no larger than the quoted one: a quote made with a low maxAccounts stays small.
    const ammKeys = q.routePlan.map((step) => step.swapInfo.ammKey);
    const maxAccounts = Math.min(MAX_ROUTE_ACCOUNTS, Math.max(1, ammKeys.length) * ROUTE_ACCOUNTS_PER_LEG);
    try {
      if (exactIn) payOut = this.netOut(input, output, inAmount, feeBpsOf(q), maxAccounts);
      else payIn = this.inputFor(input, output, quotedOut, feeBpsOf(q), maxAccounts);
    } catch (err) {
      if (err instanceof NoRouteError) return { reply: routeError(err.errorCode, err.message) };
      throw err;
    }
    const microLamports = body.computeUnitPriceMicroLamports !== undefined ? BigInt(body.computeUnitPriceMicroLamports) : microLamportsFrom(body.prioritizationFeeLamports);
    const user = new PublicKey(body.userPublicKey);
    const id = requestId(v.clock.now());
    const plan: Plan = { id, user, input, output, inAmount: payIn, outAmount: payOut, exactIn, threshold: BigInt(q.otherAmountThreshold), microLamports, feeBps: feeBpsOf(q), quotedIn: inAmount, quotedOut, maxAccounts };
    const set = swapInstructionSet(v, { taker: user, input, output, inAmount: payIn, outAmount: payOut, destination, computeUnitPriceMicroLamports: microLamports, memo: `jup-keeper-sim swap ${id}`, hostile, ammKeys });
    return { set, plan };
  }

  private ticketBase(plan: Plan) {
    return {
      id: `swap:${plan.id}`,
      venue: this.venue,
      expiresAtMs: this.venue.clock.now() + SWAP_TICKET_TTL_MS,
      record: { kind: 'swap', wallet: plan.user.toBase58(), requestId: null, inputMint: plan.input.mint, inputAmount: plan.inAmount, outputMint: plan.output.mint, outputAmount: plan.outAmount },
    };
  }

  /** At landing: ExactIn fails when the market now gives less than the threshold; ExactOut when it costs more. */
  private slippageCheck(plan: Plan, payOutIndex: number): { failInstruction: number; code: number } | undefined {
    try {
      const ok = plan.exactIn
        ? this.netOut(plan.input, plan.output, plan.quotedIn, plan.feeBps, plan.maxAccounts) >= plan.threshold
        : this.inputFor(plan.input, plan.output, plan.quotedOut, plan.feeBps, plan.maxAccounts) <= plan.threshold;
      return ok ? undefined : { failInstruction: payOutIndex, code: 6001 };
    } catch {
      return { failInstruction: payOutIndex, code: 6001 };
    }
  }

  private netOut(input: SimToken, output: SimToken, amount: bigint, feeBps: number, maxAccounts: number): bigint {
    const r = this.venue.router.quoteExactIn(input.mint, output.mint, amount, { maxAccounts });
    return r.outAmount - (r.outAmount * BigInt(feeBps)) / 10_000n;
  }

  private inputFor(input: SimToken, output: SimToken, amountOut: bigint, feeBps: number, maxAccounts: number): bigint {
    const r = this.venue.router.quoteExactOut(input.mint, output.mint, amountOut, { maxAccounts });
    return r.inAmount + (r.inAmount * BigInt(feeBps)) / 10_000n;
  }
}

interface Plan {
  id: string;
  user: PublicKey;
  input: SimToken;
  output: SimToken;
  inAmount: bigint;
  outAmount: bigint;
  exactIn: boolean;
  threshold: bigint;
  microLamports: bigint;
  feeBps: number;
  quotedIn: bigint;
  quotedOut: bigint;
  /** Accounts of the quoted route: the market is priced with no larger a route at build and at landing. */
  maxAccounts: number;
}

function feeBpsOf(q: SwapBody['quoteResponse']): number {
  return typeof q.platformFee?.feeBps === 'number' ? q.platformFee.feeBps : 0;
}

function routeError(errorCode: string, error: string): Reply {
  return { status: 400, body: { error, errorCode } };
}

/** Compute-unit price for a prioritization setting: a lamport budget spread over the compute-unit limit. */
function microLamportsFrom(setting: unknown): bigint {
  const budget = (lamports: number): bigint => (BigInt(Math.max(0, Math.floor(lamports))) * 1_000_000n) / BigInt(SWAP_COMPUTE_UNITS);
  if (typeof setting === 'number') return budget(setting);
  if (setting && typeof setting === 'object') {
    const s = setting as { priorityLevelWithMaxLamports?: { maxLamports?: unknown } };
    const max = s.priorityLevelWithMaxLamports?.maxLamports;
    if (typeof max === 'number') return budget(Math.min(max, 100_000));
  }
  return DEFAULT_MICRO_LAMPORTS;
}

function instructionJson(ix: TransactionInstruction): { programId: string; accounts: Array<{ pubkey: string; isSigner: boolean; isWritable: boolean }>; data: string } {
  return {
    programId: ix.programId.toBase58(),
    accounts: ix.keys.map((k) => ({ pubkey: k.pubkey.toBase58(), isSigner: k.isSigner, isWritable: k.isWritable })),
    data: Buffer.from(ix.data).toString('base64'),
  };
}
