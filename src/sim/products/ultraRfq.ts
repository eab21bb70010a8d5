import { randomUUID } from 'node:crypto';
import { ComputeBudgetProgram, Keypair, PublicKey, SystemProgram, TransactionInstruction, type VersionedTransaction } from '@solana/web3.js';
import { ACCOUNT_SIZE, createAssociatedTokenAccountIdempotentInstruction, createTransferCheckedInstruction, ExtensionType, getAccountLen } from '@solana/spl-token';
import { fillInstruction } from '../../jupiter/ultra/orderEngine.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { tokenProgramId, type SimToken } from '../catalog.js';
import { noopProgramElf } from '../chain/noopProgram.js';
import { instructionHash, type Ticket } from '../chain/tickets.js';
import type { LedgerRecord } from '../chain/types.js';
import { NoRouteError, ultraFeeBps, type RouteQuote } from '../market/quote.js';
import { seedBytes } from '../rng.js';
import type { Venue } from '../venue.js';
import { ratioString } from './common.js';
import type { GasWallet } from './gasless.js';
import { MEMO_PROGRAM_ID, swapInstructionSet } from './swapTx.js';

/**
 * JupiterZ, Ultra's RFQ route, as the real service builds it (DOCS `ultra/response.mdx`'s RFQ transaction, decoded
 * in src/jupiter/ultra/orderEngine.ts): the market maker quotes a firm price and is the fee payer (the first
 * signature), the taker signs second, and the order engine's `fill` names both and the quote's terms (amounts,
 * `expire_at`, Ultra's fee). The maker signs at execute, after the taker. A missing output token account is opened
 * by Jupiter's gas wallet, a third signer (DOCS `ultra/gasless.mdx`). As everywhere in the simulator, the program
 * runs as a no-op at its real id and the moves it would make by CPI are top-level instructions beside it, each
 * co-signed through a ticket: taker to maker for the input, maker to taker for the output.
 */

/** How long a JupiterZ quote stays landable: 55 s in all (DOCS `swap/routing/rfq-integration.mdx`, "Expiry"). */
export const RFQ_EXPIRY_MS = 55_000;
/** Compute-unit limit and price of the real RFQ transaction of DOCS `ultra/response.mdx` (37,088 units, 6,669 micro-lamports). */
const RFQ_COMPUTE_UNITS = 37_088;
const RFQ_MICRO_LAMPORTS = 6_669n;
/** SOL the simulated market maker starts with, lamports (it pays every RFQ fee). */
const MAKER_LAMPORTS = 100_000n * 1_000_000_000n;
/** Inventory the maker tops a token up to beyond the trade at hand, in multiples of the trade. */
const RESTOCK_MULTIPLE = 10n;

/** The simulated JupiterZ market maker: a key of its own, not one of the venue's declared co-signers. */
export class RfqMaker {
  readonly keypair: Keypair;

  constructor(private readonly venue: Venue) {
    this.keypair = Keypair.fromSeed(seedBytes('ultra-rfq-maker'));
    if (venue.chain.lamports(this.keypair.publicKey) === 0n) venue.chain.airdropLamports(this.keypair.publicKey, MAKER_LAMPORTS);
    const engine = new PublicKey(PROGRAM_IDS.jupiterOrderEngine);
    if (!venue.chain.account(engine)?.executable) venue.chain.addProgram(engine, noopProgramElf());
  }

  get publicKey(): PublicKey {
    return this.keypair.publicKey;
  }

  /** The maker's token account of `token`, opened empty when it has none (it receives inputs there). */
  account(token: SimToken): PublicKey {
    const ata = this.venue.ata(this.publicKey, token);
    if (!this.venue.chain.account(ata)) this.venue.chain.createTokenAccount(ata, { mint: new PublicKey(token.mint), owner: this.publicKey, amount: 0n, program: tokenProgramId(token) });
    return ata;
  }

  /** Makes sure the maker holds `amount` of `token` to pay out (stocked from the treasury, a real transfer). */
  stock(token: SimToken, amount: bigint): void {
    if (this.venue.isSol(token.mint)) {
      if (this.venue.chain.lamports(this.publicKey) < amount + MAKER_LAMPORTS / 10n) this.venue.chain.airdropLamports(this.publicKey, amount * RESTOCK_MULTIPLE);
      return;
    }
    this.account(token);
    if (this.venue.balance(this.publicKey, token.mint) < amount) this.venue.airdrop(this.publicKey, token.mint, amount * RESTOCK_MULTIPLE);
  }
}

/** An RFQ order to build: who trades what, at the maker's firm price. */
export interface RfqPlan {
  taker: PublicKey;
  input: SimToken;
  output: SimToken;
  inAmount: bigint;
  /** What the maker pays the taker (Ultra's fee already taken from it). */
  outAmount: bigint;
  feeBps: number;
  /** Unix ms after which the order engine refuses the fill. */
  expiresAtMs: number;
  /** Names the request (makes each transaction unique, as every simulated venue transaction). */
  memo: string;
  /** The hostile-order fault: the taker is also drained to the attacker. */
  hostile: boolean;
}

/** An RFQ transaction and what settling it needs. */
export interface RfqBuild {
  tx: VersionedTransaction;
  /** The maker's ticket: it co-signs only this fill, before it expires. */
  required: string[];
  /** Jupiter's gas wallet opens the taker's output account: it signs too. */
  gasSigns: boolean;
  rentLamports: bigint;
}

/** The RFQ transaction of a plan (fee payer: the maker), unsigned. */
export function buildRfq(venue: Venue, maker: RfqMaker, gas: GasWallet, plan: RfqPlan): RfqBuild {
  const { taker, input, output } = plan;
  const m = maker.publicKey;
  maker.stock(output, plan.outAmount);
  const setup: TransactionInstruction[] = [];
  let rentLamports = 0n;
  const takerOutput = venue.isSol(output.mint) ? null : venue.ata(taker, output);
  if (takerOutput && !venue.chain.account(takerOutput)) {
    setup.push(createAssociatedTokenAccountIdempotentInstruction(gas.keypair.publicKey, takerOutput, taker, new PublicKey(output.mint), new PublicKey(tokenProgramId(output))));
    rentLamports = venue.chain.rentExempt(output.program === 'token2022' ? getAccountLen([ExtensionType.ImmutableOwner]) : ACCOUNT_SIZE);
  }
  const takerInput = venue.isSol(input.mint) ? null : venue.ata(taker, input);
  const makerInput = venue.isSol(input.mint) ? null : maker.account(input);
  const makerOutput = venue.isSol(output.mint) ? null : maker.account(output);
  const payIn = takerInput && makerInput ? tokenTransfer(input, takerInput, makerInput, taker, plan.inAmount) : SystemProgram.transfer({ fromPubkey: taker, toPubkey: m, lamports: plan.inAmount });
  const payOut = makerOutput && takerOutput ? tokenTransfer(output, makerOutput, takerOutput, m, plan.outAmount) : SystemProgram.transfer({ fromPubkey: m, toPubkey: taker, lamports: plan.outAmount });
  const fill = fillInstruction(
    {
      taker,
      maker: m,
      takerInput,
      makerInput,
      takerOutput,
      makerOutput,
      inputMint: new PublicKey(input.mint),
      inputTokenProgram: new PublicKey(tokenProgramId(input)),
      outputMint: new PublicKey(output.mint),
      outputTokenProgram: new PublicKey(tokenProgramId(output)),
      systemProgram: SystemProgram.programId,
    },
    { inputAmount: plan.inAmount, outputAmount: plan.outAmount, expireAt: BigInt(Math.floor(plan.expiresAtMs / 1000)), feeBps: plan.feeBps, exactOut: false },
  );
  const memo = new TransactionInstruction({ programId: MEMO_PROGRAM_ID, keys: [], data: Buffer.from(plan.memo, 'utf8') });
  // The hostile-order fault drains the taker as it does on the aggregator route (the same instructions).
  const hostile = plan.hostile ? swapInstructionSet(venue, { taker, input, output, inAmount: plan.inAmount, outAmount: plan.outAmount, computeUnitPriceMicroLamports: 0n, memo: '', hostile: true }).hostile : [];
  const computeBudget = [ComputeBudgetProgram.setComputeUnitPrice({ microLamports: RFQ_MICRO_LAMPORTS }), ComputeBudgetProgram.setComputeUnitLimit({ units: RFQ_COMPUTE_UNITS })];
  // The taker's payment first: it is the second signer, as on the real service (the gas wallet, when it signs, third).
  const { tx } = venue.chain.buildTransaction(m, [...computeBudget, payIn, ...setup, payOut, fill, ...hostile, memo]);
  return { tx, required: [payIn, payOut, fill, memo].map(instructionHash), gasSigns: setup.length > 0, rentLamports };
}

/** The maker's ticket for an RFQ build: it co-signs (as fee payer) only that fill, until the quote expires. */
export function rfqTicket(build: RfqBuild, maker: RfqMaker, o: { id: string; expiresAtMs: number; record: LedgerRecord }): Ticket {
  return { id: o.id, cosigner: maker.keypair, required: build.required, expiresAtMs: o.expiresAtMs, record: o.record };
}

/** The maker's firm quote: the route's output for the whole input, less Ultra's fee on the output side. */
export function rfqQuote(venue: Venue, input: SimToken, output: SimToken, amount: bigint): { route: RouteQuote; feeBps: number; fee: bigint; outAmount: bigint } | undefined {
  let route: RouteQuote;
  try {
    route = venue.router.quoteExactIn(input.mint, output.mint, amount, {});
  } catch (err) {
    if (err instanceof NoRouteError) return undefined;
    throw err;
  }
  // JupiterZ takes its fee out of what the maker pays (DOCS `swap/routing/rfq-integration.mdx`, "Fee Calculation").
  const feeBps = ultraFeeBps(input, output, venue.clock.now(), venue.clock.startMs);
  const fee = (route.outAmount * BigInt(feeBps)) / 10_000n;
  return route.outAmount - fee > 0n ? { route, feeBps, fee, outAmount: route.outAmount - fee } : undefined;
}

/** The /order body of an RFQ quote (DOCS `ultra/response.mdx`, JupiterZ tab), without `transaction`. */
export function rfqBody(q: { inputMint: string; outputMint: string; amount: bigint; taker: string | undefined }, o: { maker: string; quote: NonNullable<ReturnType<typeof rfqQuote>>; id: string; expiresAtMs: number; inUsd: number; outUsd: number; rentPayer: string | null; rentLamports: bigint }): Record<string, unknown> {
  const { quote } = o;
  return {
    mode: 'ultra',
    inputMint: q.inputMint,
    outputMint: q.outputMint,
    inAmount: q.amount.toString(),
    outAmount: quote.outAmount.toString(),
    otherAmountThreshold: quote.outAmount.toString(),
    swapMode: 'ExactIn',
    slippageBps: 0,
    priceImpactPct: ratioString(-quote.route.impact),
    routePlan: [{ swapInfo: { ammKey: o.maker, label: 'JupiterZ', inputMint: q.inputMint, outputMint: q.outputMint, inAmount: q.amount.toString(), outAmount: quote.outAmount.toString(), feeAmount: '0', feeMint: '11111111111111111111111111111111' }, percent: 100, bps: 10_000 }],
    feeBps: quote.feeBps,
    gasless: true,
    signatureFeeLamports: 0,
    signatureFeePayer: o.maker,
    prioritizationFeeLamports: 0,
    prioritizationFeePayer: o.maker,
    rentFeeLamports: Number(o.rentLamports),
    rentFeePayer: o.rentPayer,
    requestId: o.id,
    swapType: 'rfq',
    router: 'jupiterz',
    quoteId: randomUUID(),
    maker: o.maker,
    taker: q.taker ?? null,
    expireAt: String(Math.floor(o.expiresAtMs / 1000)),
    platformFee: { amount: quote.fee.toString(), feeBps: quote.feeBps },
    inUsdValue: o.inUsd,
    outUsdValue: o.outUsd,
    priceImpact: -quote.route.impact * 100,
    swapUsdValue: o.inUsd,
    totalTime: 40 + Math.round(Math.random() * 60),
  };
}

function tokenTransfer(token: SimToken, from: PublicKey, to: PublicKey, owner: PublicKey, amount: bigint): TransactionInstruction {
  return createTransferCheckedInstruction(from, new PublicKey(token.mint), to, owner, amount, token.decimals, [], new PublicKey(tokenProgramId(token)));
}
