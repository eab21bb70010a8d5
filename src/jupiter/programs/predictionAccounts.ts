import { PublicKey } from '@solana/web3.js';
import { BorshReader, BorshWriter } from './borsh.js';
import { DISCRIMINATORS, ORDER_STATUSES, ORDER_TYPES, OUTCOMES, type OrderStatus, type OrderType, type Outcome } from './prediction.js';

/*
 * The Prediction Market program's accounts (Order, Position, Vault, MarketResult) as its generated client lays them
 * out (accounts/{order,position,vault,marketResult}.ts): the simulator writes them, the portfolio and the guard read
 * them. See prediction.ts for the program and its instructions.
 */

/** `Order` account (amounts in USD micro-units, 6 decimals; times unix seconds). */
export interface OrderAccount {
  owner: PublicKey;
  position: PublicKey;
  status: OrderStatus;
  marketId: string;
  isYes: boolean;
  isBuy: boolean;
  createdAt: bigint;
  contracts: bigint;
  maxFillPriceUsd: bigint;
  /** 0 until the first fill. */
  filledAt: bigint;
  filledContracts: bigint;
  avgFillPriceUsd: bigint;
  /** The venue's order id, once it has one (the client leaves the meaning undocumented). */
  orderId: string | null;
  externalOrderId: string;
  bump: number;
  orderType: OrderType;
  payer: PublicKey;
  /** Not an Option here: presumably the default key when the order has no integrator. */
  integrator: PublicKey;
  integratorFeeBps: number;
  /** 0 legacy whole contracts, 1 micro-contracts (as the position's field of that name). */
  unitVersion: number;
}

/** `Position` account (USD amounts in micro-units; times unix seconds). */
export interface PositionAccount {
  owner: PublicKey;
  marketId: string;
  isYes: boolean;
  payoutClaimed: boolean;
  payoutClaimedUsd: bigint;
  openedAt: bigint;
  contracts: bigint;
  /** Cost basis of the contracts held. */
  totalCostUsd: bigint;
  openOrders: number;
  /** Entry fees of the contracts held. */
  feesPaidUsd: bigint;
  realizedPnlUsd: bigint;
  updatedAt: bigint;
  bump: number;
  /** 0 legacy whole contracts, 1 micro-contracts. */
  unitVersion: number;
  payer: PublicKey;
}

/** `Vault` account of a settlement mint (87 bytes: the client's dataSize filter). */
export interface VaultAccount {
  settlementMint: PublicKey;
  currentContracts: bigint;
  /** Legacy, unused by the program (the client says positions keep the count). */
  currentOpenOrders: number;
  globalMaxContracts: bigint;
  positionMaxContracts: bigint;
  positionMaxOrders: number;
  settlementDelaySeconds: bigint;
  depositsDisabled: boolean;
  withdrawalsDisabled: boolean;
  protocolFeeBps: number;
  bump: number;
  tradingDisabled: boolean;
  unitVersion: number;
}

/** `MarketResult` account: a settled market's outcome. */
export interface MarketResultAccount {
  marketId: string;
  outcome: Outcome;
  /** Unix seconds after which claims are allowed. */
  settlementTime: bigint;
  claimsEnabled: boolean;
  createdAt: bigint;
  bump: number;
}

/** The order account's bytes: discriminator then Borsh fields, unpadded (the program's string max lengths are unknown). */
export function encodeOrderAccount(o: OrderAccount): Buffer {
  return new BorshWriter().raw(DISCRIMINATORS.accounts.order).key(o.owner).key(o.position).variant(ORDER_STATUSES, o.status).str(o.marketId).bool(o.isYes).bool(o.isBuy)
    .i64(o.createdAt).u64(o.contracts).u64(o.maxFillPriceUsd).i64(o.filledAt).u64(o.filledContracts).u64(o.avgFillPriceUsd).optStr(o.orderId).str(o.externalOrderId)
    .u8(o.bump).variant(ORDER_TYPES, o.orderType).key(o.payer).key(o.integrator).u16(o.integratorFeeBps).u8(o.unitVersion).done();
}

/** Reads an order account; undefined when the bytes are not one. */
export function decodeOrderAccount(data: Uint8Array): OrderAccount | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.accounts.order);
  if (!r) return undefined;
  return { owner: r.key(), position: r.key(), status: r.variant(ORDER_STATUSES), marketId: r.str(), isYes: r.bool(), isBuy: r.bool(), createdAt: r.i64(), contracts: r.u64(), maxFillPriceUsd: r.u64(),
    filledAt: r.i64(), filledContracts: r.u64(), avgFillPriceUsd: r.u64(), orderId: r.optStr(), externalOrderId: r.str(), bump: r.u8(), orderType: r.variant(ORDER_TYPES), payer: r.key(), integrator: r.key(), integratorFeeBps: r.u16(), unitVersion: r.u8() };
}

/** The position account's bytes (unpadded, as the order's). */
export function encodePositionAccount(p: PositionAccount): Buffer {
  return new BorshWriter().raw(DISCRIMINATORS.accounts.position).key(p.owner).str(p.marketId).bool(p.isYes).bool(p.payoutClaimed).u64(p.payoutClaimedUsd).i64(p.openedAt).u64(p.contracts)
    .u64(p.totalCostUsd).u32(p.openOrders).u64(p.feesPaidUsd).i64(p.realizedPnlUsd).i64(p.updatedAt).u8(p.bump).u8(p.unitVersion).key(p.payer).done();
}

/** Reads a position account; undefined when the bytes are not one. */
export function decodePositionAccount(data: Uint8Array): PositionAccount | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.accounts.position);
  if (!r) return undefined;
  return { owner: r.key(), marketId: r.str(), isYes: r.bool(), payoutClaimed: r.bool(), payoutClaimedUsd: r.u64(), openedAt: r.i64(), contracts: r.u64(), totalCostUsd: r.u64(),
    openOrders: r.u32(), feesPaidUsd: r.u64(), realizedPnlUsd: r.i64(), updatedAt: r.i64(), bump: r.u8(), unitVersion: r.u8(), payer: r.key() };
}

/** The vault account's bytes (always 87). */
export function encodeVaultAccount(v: VaultAccount): Buffer {
  return new BorshWriter().raw(DISCRIMINATORS.accounts.vault).key(v.settlementMint).u64(v.currentContracts).u32(v.currentOpenOrders).u64(v.globalMaxContracts).u64(v.positionMaxContracts)
    .u32(v.positionMaxOrders).u64(v.settlementDelaySeconds).bool(v.depositsDisabled).bool(v.withdrawalsDisabled).u16(v.protocolFeeBps).u8(v.bump).bool(v.tradingDisabled).u8(v.unitVersion).done();
}

/** Reads a vault account; undefined when the bytes are not one. */
export function decodeVaultAccount(data: Uint8Array): VaultAccount | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.accounts.vault);
  if (!r) return undefined;
  return { settlementMint: r.key(), currentContracts: r.u64(), currentOpenOrders: r.u32(), globalMaxContracts: r.u64(), positionMaxContracts: r.u64(), positionMaxOrders: r.u32(),
    settlementDelaySeconds: r.u64(), depositsDisabled: r.bool(), withdrawalsDisabled: r.bool(), protocolFeeBps: r.u16(), bump: r.u8(), tradingDisabled: r.bool(), unitVersion: r.u8() };
}

/** The market result account's bytes. */
export function encodeMarketResultAccount(m: MarketResultAccount): Buffer {
  return new BorshWriter().raw(DISCRIMINATORS.accounts.marketResult).str(m.marketId).variant(OUTCOMES, m.outcome).i64(m.settlementTime).bool(m.claimsEnabled).i64(m.createdAt).u8(m.bump).done();
}

/** Reads a market result account; undefined when the bytes are not one. */
export function decodeMarketResultAccount(data: Uint8Array): MarketResultAccount | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.accounts.marketResult);
  if (!r) return undefined;
  return { marketId: r.str(), outcome: r.variant(OUTCOMES), settlementTime: r.i64(), claimsEnabled: r.bool(), createdAt: r.i64(), bump: r.u8() };
}

/**
 * The longest string the guard expects in an account (market id, order ids), bytes. The program's `max_len`s are not
 * published; market ids run to a few dozen characters (the intent schema allows 128) and order ids are UUID-like.
 */
const MAX_STRING_BYTES = 128;

/** Size of an encoding with every string empty (and no order id) and with every string at MAX_STRING_BYTES. */
function spaceBounds(encode: (s: string, opt: string | null) => Buffer): { min: bigint; max: bigint } {
  const long = 'x'.repeat(MAX_STRING_BYTES);
  return { min: BigInt(encode('', null).length), max: BigInt(encode(long, long).length) };
}

/**
 * Sizes an `Order` account the program creates may have, bytes: its fields with strings between empty and
 * MAX_STRING_BYTES (the guard holds the rent a wallet pays for a new order to these).
 */
export function orderAccountSpace(): { min: bigint; max: bigint } {
  const k = PublicKey.default;
  return spaceBounds((s, opt) => encodeOrderAccount({
    owner: k, position: k, status: 'pending', marketId: s, isYes: true, isBuy: true, createdAt: 0n, contracts: 0n, maxFillPriceUsd: 0n, filledAt: 0n, filledContracts: 0n,
    avgFillPriceUsd: 0n, orderId: opt, externalOrderId: s, bump: 0, orderType: 'market', payer: k, integrator: k, integratorFeeBps: 0, unitVersion: 0,
  }));
}

/** Sizes a `Position` account the program creates may have, bytes (as orderAccountSpace). */
export function positionAccountSpace(): { min: bigint; max: bigint } {
  const k = PublicKey.default;
  return spaceBounds((s) => encodePositionAccount({
    owner: k, marketId: s, isYes: true, payoutClaimed: false, payoutClaimedUsd: 0n, openedAt: 0n, contracts: 0n, totalCostUsd: 0n, openOrders: 0, feesPaidUsd: 0n,
    realizedPnlUsd: 0n, updatedAt: 0n, bump: 0, unitVersion: 0, payer: k,
  }));
}
