import type { Intent, IntentKind } from '../sdk/intents.js';
import type { IntentState } from './states.js';

/** The ports through which the keeper jobs (src/keeper) reach the venue, the ledger and their own records. */

/**
 * The strategy-instance id under which the keeper jobs record their intents (claims, stale-order closes, the kill
 * switch's cancels). A configured instance can never have it (instance ids start with a letter or digit), so an
 * intent recorded under it was issued by the keeper itself, never decided by a strategy.
 */
export const KEEPER_INSTANCE = '_keeper';
/** The `strategy` the keeper's intents are recorded with. */
export const KEEPER_STRATEGY = 'keeper@1';

/**
 * The keeper's periodic jobs (besides the intent reconciler): claim settled winnings, reconcile the ledger with the
 * venue's orders, close prediction orders left unfilled too long, report stranded escrows, carry out the kill
 * switch's cancel-resting request.
 */
export const KEEPER_TASKS = ['claims', 'venue-reconcile', 'stale-orders', 'sweep', 'cancel-resting'] as const;
/** A keeper job. */
export type KeeperTask = (typeof KEEPER_TASKS)[number];

/** The products whose orders rest on the venue. */
export type VenueProduct = 'trigger' | 'recurring' | 'prediction';
/** Every venue product. */
export const VENUE_PRODUCTS: readonly VenueProduct[] = ['trigger', 'recurring', 'prediction'];

/** Where a venue order stands: live (`open`, `partially-filled`) or ended (`filled`, `cancelled`, `expired`). */
export const VENUE_ORDER_STATUSES = ['open', 'partially-filled', 'filled', 'cancelled', 'expired'] as const;
/** A venue order's status. */
export type VenueOrderStatus = (typeof VENUE_ORDER_STATUSES)[number];

/** Whether a venue order in this status still rests on the venue. */
export function isLiveOrder(status: VenueOrderStatus): boolean {
  return status === 'open' || status === 'partially-filled';
}

/** One of the wallet's orders as the venue reports it. */
export interface VenueOrder {
  product: VenueProduct;
  /** The order account (base58). */
  order: string;
  status: VenueOrderStatus;
  /** Signature of the transaction that opened it, when the venue reports one. */
  openTx: string | null;
  /** Prediction orders: the position account the order trades. */
  position: string | null;
  /** Unix ms when it opened, when known. */
  createdAt: number | null;
  /**
   * Its fills as the venue lists them (trigger and recurring orders carry their trades), oldest first; undefined
   * where the listing has none (prediction orders: their fills are read with `predictionFills`).
   */
  fills?: VenueFill[] | undefined;
}

/** One token amount of a fill, in base units; `decimals` when the venue or the known mints tell them. */
export interface VenueAmount {
  mint: string;
  amount: bigint;
  decimals: number | null;
}

/** One fill of a resting order, as the venue reports it: what the order paid and received, and the venue's fee. */
export type VenueFill =
  | {
      product: 'trigger' | 'recurring';
      /** The fill's transaction (the venue's keeper signs it). */
      signature: string;
      /** Unix ms, when the venue says. */
      at: number | null;
      paid: VenueAmount;
      received: VenueAmount;
      /** The venue's fee, taken out of what the order received (null when the venue reports none). */
      fee: VenueAmount | null;
    }
  | {
      product: 'prediction';
      signature: string;
      at: number | null;
      side: 'buy' | 'sell';
      marketId: string;
      isYes: boolean;
      /** Contracts filled, micro-contracts (1,000,000 = one). */
      contractsMicro: bigint;
      /** What the fill cost with its fee (a buy) or paid out net of it (a sell), micro-USD. */
      usdMicro: bigint;
      /** The fill's average price per contract, micro-USD. */
      priceMicroUsd: bigint | null;
      /** The venue's fee, micro-USD. */
      feeMicroUsd: bigint | null;
    };

/** One of the wallet's prediction positions as the venue reports it. */
export interface VenuePosition {
  position: string;
  marketId: string;
  isYes: boolean;
  /** Micro-contracts held (1,000,000 = one contract). */
  contractsMicro: bigint;
  /** The market settled the position's way and it may be claimed now. */
  claimable: boolean;
  claimed: boolean;
  /** What a claim pays (contracts x $1), micro-USD. */
  payoutMicroUsd: bigint;
}

/** A token account owned by an address (an order's escrow), and what it holds in base units. */
export interface EscrowHolding {
  account: string;
  mint: string;
  amount: bigint;
}

/** The venue, read for the wallet the keeper trades (execution/venueReader.ts implements it). */
export interface VenuePort {
  /** The wallet's open orders of these products (every page). */
  openOrders(products: readonly VenueProduct[]): Promise<VenueOrder[]>;
  /**
   * The wallet's ended trigger or recurring orders that `wanted` picks, newest pages first; stops reading pages once
   * `count` of them are found (or the history runs out).
   */
  endedOrders(product: 'trigger' | 'recurring', wanted: (o: VenueOrder) => boolean, count: number): Promise<VenueOrder[]>;
  /** A prediction order's status by its history (ended ones too); undefined when the venue has none yet. */
  predictionOrder(order: string): Promise<VenueOrder | undefined>;
  /**
   * The fills of these prediction orders from the wallet's history, oldest first by order; reads back no further
   * than `since` (unix ms).
   */
  predictionFills(orders: ReadonlySet<string>, since: number): Promise<Map<string, VenueFill[]>>;
  /** The wallet's prediction positions the venue still lists (every page). */
  positions(): Promise<VenuePosition[]>;
  /** Token accounts whose owner is `authority` (an order account's escrows), with what they hold. */
  escrowHoldings(authority: string): Promise<EscrowHolding[]>;
}

/** What the ledger records about an intent's order on the venue (written by the venue reconciliation). */
export interface VenueOrderRecord {
  product: VenueProduct;
  /** The order account; null until known (a recurring order is found by its opening signature). */
  order: string | null;
  /** Prediction: the position account. */
  position: string | null;
  /** Null until the reconciliation first saw the order on the venue. */
  status: VenueOrderStatus | null;
  /** Unix ms of the reconciliation that last read it. */
  checkedAt: number | null;
  /** Unix ms when its status last changed. */
  changedAt: number | null;
  /** Signatures of the order's fills already announced (a console line and a log record each); absent on older records. */
  fills?: string[] | undefined;
}

/** An intent record as the keeper jobs read it. */
export interface KeeperIntentRecord {
  id: string;
  instance: string;
  kind: IntentKind;
  intent: Intent;
  state: IntentState;
  /** Signatures of every attempt, oldest first. */
  signatures: string[];
  quote: Record<string, unknown> | null;
  createdAt: number;
  updatedAt: number;
  venueOrder: VenueOrderRecord | null;
  /** Why it failed, expired or was rejected (`rule`: the risk-gate or guard rules that refused it). */
  error: { code: string; message: string; rule?: string | undefined } | null;
}

/** The intent ledger as the keeper jobs use it. */
export interface KeeperLedgerPort {
  /** Records a keeper intent in `planned` unless its id exists; returns the state it is in now. */
  record(rec: { id: string; intent: Intent; createdAt: number; deadline: number }): Promise<{ created: boolean; state: IntentState }>;
  /** The records of `ids` that exist and parse, in that order. */
  read(ids: readonly string[]): Promise<KeeperIntentRecord[]>;
  /** Ids of landed intents of these kinds created at or after `since` (unix ms). */
  landedSince(since: number, kinds: readonly IntentKind[]): Promise<string[]>;
  /** Writes what the venue says about an intent's order onto its record (nothing if the record is gone). */
  setVenueOrder(id: string, venue: VenueOrderRecord): Promise<void>;
}

/** How one keeper job run ended, as status shows it. */
export interface KeeperRun {
  /** Unix ms when it started. */
  at: number;
  durationMs: number;
  outcome: 'ok' | 'error' | 'skipped';
  /** One line on what it did. */
  summary: string;
  /** Numbers status and tests read (claims made, orders updated, ...). */
  counts: Record<string, number>;
  error: string | null;
}

/** Escrowed funds with no live order behind them, or winnings nobody claimed, as the last sweep found them. */
export interface SweepReport {
  at: number;
  stranded: Array<{ intent: string; product: VenueProduct; order: string; account: string; mint: string; amount: bigint }>;
  unclaimed: Array<{ position: string; marketId: string; payoutMicroUsd: bigint }>;
  unclaimedMicroUsd: bigint;
}

/**
 * Where one subject's keeper intents stand (src/keeper/intents.ts): what its generations before `generation` came
 * to. A cache of a fold over those intents' records, which never change once ended: lost, it is rebuilt by reading
 * them again from the first generation.
 */
export interface SubjectGenerations {
  /** The generation to record (or find recorded) now; 1 for a subject never tried. */
  generation: number;
  /** Earlier generations that ended without effect for a reason other than a refusal of the pre-sign guard. */
  spent: number;
  /** Pre-sign guard refusals in a row just before `generation`. */
  refusedInRow: number;
  /** The guard rules those refusals named, first named first. */
  rules: string[];
}

/** The keeper jobs' own records in Redis: what they track, their runs, locks and reports. */
export interface KeeperStatePort {
  /** Where the subject of `key` (its first intent's id) stands; generation 1, nothing spent, when never advanced. */
  generations(key: string): Promise<SubjectGenerations>;
  /**
   * Moves the subject of `key` from generation `from` to `next`, unless another keeper moved it already (then
   * nothing is written); returns where it stands now, either way.
   */
  advanceGenerations(key: string, from: number, next: SubjectGenerations): Promise<SubjectGenerations>;
  /** Ids of landed order-opening intents whose venue order has not ended yet. */
  tracked(): Promise<string[]>;
  track(ids: readonly string[]): Promise<void>;
  /** Stops tracking an intent whose order ended at `at` (kept for the sweep). */
  ended(id: string, at: number): Promise<void>;
  /** Ids of intents whose order ended at or after `since`. */
  endedSince(since: number): Promise<string[]>;
  /** Unix ms up to which the ledger was scanned for new intents; null before the first scan. */
  cursor(): Promise<number | null>;
  setCursor(at: number): Promise<void>;
  /** Notes a claim intent the keeper recorded (status lists the latest). */
  noteClaim(id: string, at: number): Promise<void>;
  /** Takes a task's run lock for `ttlMs`; returns its token, or null when another run holds it. */
  lock(task: string, ttlMs: number): Promise<string | null>;
  unlock(task: string, token: string): Promise<void>;
  recordRun(task: string, run: KeeperRun): Promise<void>;
  writeSweep(report: SweepReport): Promise<void>;
  /** The last sweep's report, if any. */
  lastSweep(): Promise<SweepReport | null>;
}
