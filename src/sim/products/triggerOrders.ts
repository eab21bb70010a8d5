import { PublicKey } from '@solana/web3.js';
import { formatUnits } from '../../lib/amounts.js';
import { tokenProgramId, type SimToken } from '../catalog.js';
import type { EscrowBook } from './escrow.js';
import { encodeOrderAccount, FEE_ACCOUNT, TRIGGER_PROGRAM } from '../../jupiter/programs/trigger.js';

/** Orders per page of GET /trigger/v1/getTriggerOrders. */
export const TRIGGER_PAGE_SIZE = 10;

/**
 * Where an order is. `Pending`: its createOrder transaction was handed out and has not landed (the service does not
 * list it). `Open` (also when partly filled), `Completed` and `Cancelled` are the statuses the service reports; an
 * order past its `expiredAt` is cancelled by the keeper and reported `Cancelled` (the program has no expired state:
 * the keeper closes it with cancel_order, as the maker would).
 */
export type TriggerStatus = 'Pending' | 'Open' | 'Completed' | 'Cancelled';

/** One fill, as `trades[]` reports it. Amounts in base units. */
export interface TriggerFill {
  signature: string;
  keeper: string;
  /** Input sold out of the escrow. */
  inputAmount: bigint;
  /** Output paid to the maker. */
  outputAmount: bigint;
  /** Jupiter's fee, in the output mint, paid by the taker on top of what the maker gets. */
  feeAmount: bigint;
  atMs: number;
}

/** A trigger order the venue keeps. Amounts are base units; times are simulated unix ms unless named seconds. */
export interface SimTriggerOrder {
  key: PublicKey;
  address: string;
  maker: PublicKey;
  input: SimToken;
  output: SimToken;
  uniqueId: bigint;
  bump: number;
  making: bigint;
  taking: bigint;
  remainingMaking: bigint;
  remainingTaking: bigint;
  slippageBps: number;
  /** Jupiter's fee on each fill, bps of the output (0.03 % on stable pairs, 0.1 % otherwise). */
  feeBps: number;
  /** The integrator's fee: bps of each fill's output, paid to a token account of the output mint. */
  integrator: { account: PublicKey; bps: number } | null;
  /** Unix seconds after which the order may no longer fill, or null. */
  expiredAt: number | null;
  createdAtMs: number;
  updatedAtMs: number;
  status: TriggerStatus;
  /** The escrow (the program's "input mint reserve"): the order account's token account of the input mint. */
  escrow: PublicKey;
  openTx: string;
  closeTx: string;
  /** Newest first, as the service lists them. */
  trades: TriggerFill[];
  lastFillMs: number;
  /** Fills and expiry wait until then: a cancel transaction handed out for the order may still land. */
  holdUntilMs: number;
  /** A pending order whose creation never landed is dropped after this (its blockhash has expired). */
  pendingUntilMs: number;
  requestId: string;
}

/** Every trigger order of the venue, by order account and by maker. */
export class TriggerBook {
  private readonly orders = new Map<string, SimTriggerOrder>();
  private readonly byMaker = new Map<string, Set<string>>();

  add(o: SimTriggerOrder): void {
    this.orders.set(o.address, o);
    const maker = o.maker.toBase58();
    let set = this.byMaker.get(maker);
    if (!set) this.byMaker.set(maker, (set = new Set()));
    set.add(o.address);
  }

  get(address: string): SimTriggerOrder | undefined {
    return this.orders.get(address);
  }

  /** A maker's orders (any status), newest first. */
  ofMaker(maker: string): SimTriggerOrder[] {
    return [...(this.byMaker.get(maker) ?? [])].map((a) => this.orders.get(a)!).sort((a, b) => b.createdAtMs - a.createdAtMs);
  }

  /** Orders in a status, oldest first (the keeper serves them in that order). */
  inStatus(status: TriggerStatus): SimTriggerOrder[] {
    return [...this.orders.values()].filter((o) => o.status === status);
  }

  /** Forgets an order that never opened. */
  drop(o: SimTriggerOrder): void {
    this.orders.delete(o.address);
    this.byMaker.get(o.maker.toBase58())?.delete(o.address);
  }
}

/** Writes the order account as the program would after each change (discriminator, IDL layout). */
export function writeOrderAccount(escrows: EscrowBook, o: SimTriggerOrder): void {
  escrows.writeState(
    TRIGGER_PROGRAM,
    o.key,
    encodeOrderAccount({
      maker: o.maker,
      inputMint: new PublicKey(o.input.mint),
      outputMint: new PublicKey(o.output.mint),
      inputTokenProgram: new PublicKey(tokenProgramId(o.input)),
      outputTokenProgram: new PublicKey(tokenProgramId(o.output)),
      inputMintReserve: o.escrow,
      uniqueId: o.uniqueId,
      oriMakingAmount: o.making,
      oriTakingAmount: o.taking,
      makingAmount: o.remainingMaking,
      takingAmount: o.remainingTaking,
      borrowMakingAmount: 0n,
      expiredAt: o.expiredAt === null ? null : BigInt(o.expiredAt),
      feeBps: o.integrator?.bps ?? o.feeBps,
      feeAccount: o.integrator?.account ?? FEE_ACCOUNT,
      createdAt: BigInt(Math.floor(o.createdAtMs / 1000)),
      updatedAt: BigInt(Math.floor(o.updatedAtMs / 1000)),
      bump: o.bump,
    }),
  );
}

/**
 * Ends an order as the program does when it closes it (the last fill, a cancel, an expiry): its status and closing
 * transaction, its order account and its now empty escrow closed, the escrow no longer listed.
 */
export function closeOrder(escrows: EscrowBook, o: SimTriggerOrder, status: 'Completed' | 'Cancelled', signature: string, nowMs: number): void {
  o.status = status;
  o.closeTx = signature;
  o.updatedAtMs = nowMs;
  o.holdUntilMs = 0;
  escrows.closeState(o.key);
  escrows.closeState(o.escrow);
  escrows.forget(o.escrow);
}

/** Jupiter's Trigger fee for a pair (docs FAQ: 0.03 % for stable pairs, 0.1 % for every other pair), bps. */
export function triggerFeeBps(input: SimToken, output: SimToken): number {
  return input.category === 'stable' && output.category === 'stable' ? 3 : 10;
}

/** Time as the service writes it: ISO 8601 to the second, e.g. "2025-03-10T14:40:08Z". */
export function isoSeconds(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** One order in the shape of GET /trigger/v1/getTriggerOrders (DOCS get-trigger-orders examples). */
export function orderView(o: SimTriggerOrder): Record<string, unknown> {
  const ui = (amount: bigint, t: SimToken) => formatUnits(amount, t.decimals);
  return {
    userPubkey: o.maker.toBase58(),
    orderKey: o.address,
    inputMint: o.input.mint,
    outputMint: o.output.mint,
    makingAmount: ui(o.making, o.input),
    takingAmount: ui(o.taking, o.output),
    remainingMakingAmount: ui(o.remainingMaking, o.input),
    remainingTakingAmount: ui(o.remainingTaking, o.output),
    rawMakingAmount: o.making.toString(),
    rawTakingAmount: o.taking.toString(),
    rawRemainingMakingAmount: o.remainingMaking.toString(),
    rawRemainingTakingAmount: o.remainingTaking.toString(),
    slippageBps: String(o.slippageBps),
    // Only null appears in published examples; a set expiry is written like the other times (a guess).
    expiredAt: o.expiredAt === null ? null : isoSeconds(o.expiredAt * 1000),
    createdAt: isoSeconds(o.createdAtMs),
    updatedAt: isoSeconds(o.updatedAtMs),
    status: o.status,
    openTx: o.openTx,
    closeTx: o.closeTx,
    programVersion: TRIGGER_PROGRAM.toBase58(),
    trades: o.trades.map((t) => ({
      orderKey: o.address,
      keeper: t.keeper,
      inputMint: o.input.mint,
      outputMint: o.output.mint,
      inputAmount: ui(t.inputAmount, o.input),
      outputAmount: ui(t.outputAmount, o.output),
      rawInputAmount: t.inputAmount.toString(),
      rawOutputAmount: t.outputAmount.toString(),
      feeMint: o.output.mint,
      feeAmount: ui(t.feeAmount, o.output),
      rawFeeAmount: t.feeAmount.toString(),
      txId: t.signature,
      confirmedAt: isoSeconds(t.atMs),
      action: 'Fill',
      productMeta: null,
    })),
  };
}
