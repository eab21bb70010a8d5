import { createHash } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, TOKEN_PROGRAM_ID, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { BorshReader, BorshWriter } from './borsh.js';

/*
 * Jupiter's Prediction Market program (3ZZuTbw…), as the simulator lays it out. The simulator runs a no-op program
 * at that id and the venue writes the accounts itself, so what matters is that the bytes are the real program's.
 * Every layout, discriminator, account order and signer/writable flag below is from the program's generated client
 * (a public Codama client of `prediction`: instructions/{createOrder,fillBuyOrder,fillSellOrder,cancelOrder,
 * closeOrder,claimPayout,closePosition,closeLostPosition}.ts, accounts/{order,position,vault,marketResult}.ts,
 * types/{orderType,orderStatus}.ts, pdas/{vault,orderAta}.ts), with these exceptions, each marked where it is:
 * the seeds of the order, position and market-result accounts and of the vault's token account, and the market id
 * hash, are the simulator's guesses (the client does not publish them); cancel_order's flags come from an older
 * generation of the client than the rest. The Borsh reading and writing is in ./borsh.ts.
 */

/** The program id. */
export const PREDICTION_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterPrediction);

const hex = (h: string): Buffer => Buffer.from(h, 'hex');
/**
 * Anchor discriminators, copied from the generated client (test/sim/prediction-program.test.ts checks each against
 * sha256("global:<snake_name>") or sha256("account:<PascalName>")).
 */
export const DISCRIMINATORS = Object.freeze({
  instructions: Object.freeze({
    createOrder: hex('8d3625cfedd2fad7'),
    fillBuyOrder: hex('b3c9dd165b10d004'),
    fillSellOrder: hex('fba919470d78147e'),
    cancelOrder: hex('5f81edf00831df84'),
    closeOrder: hex('5a67d11c073fa804'),
    claimPayout: hex('7ff0843ee3c69285'),
    claimPayout2: hex('8dcd63cb8ee757e2'),
    closePosition: hex('7b86510031446262'),
    closeLostPosition: hex('eb9dbf82e3d668b2'),
  }),
  accounts: Object.freeze({ order: hex('86addfb94d561c33'), position: hex('aabc8fe47a40f7d0'), vault: hex('d308e82b02987577'), marketResult: hex('e474c0ea7d36458e') }),
});
/** An instruction the simulator builds. */
export type PredictionInstructionName = keyof typeof DISCRIMINATORS.instructions;

/** `OrderType` of the client (a u8 enum): index 0 market, 1 limit. */
export const ORDER_TYPES = ['market', 'limit'] as const;
/** How an order fills. */
export type OrderType = (typeof ORDER_TYPES)[number];
/** `OrderStatus` of the client (a u8 enum), in its order. */
export const ORDER_STATUSES = ['pending', 'filled', 'failed', 'partiallyFilled', 'cancelled'] as const;
/** Where an order stands. */
export type OrderStatus = (typeof ORDER_STATUSES)[number];
/** `MarketResult.outcome` (a u8): 0 no, 1 yes, 2 split 50/50, 3 refund at each position's cost basis. */
export const OUTCOMES = ['no', 'yes', 'split', 'refund'] as const;
/** How a market settled. */
export type Outcome = (typeof OUTCOMES)[number];

const sha256 = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();
const pda = (seeds: Buffer[]): { address: PublicKey; bump: number } => {
  const [address, bump] = PublicKey.findProgramAddressSync(seeds, PREDICTION_PROGRAM);
  return { address, bump };
};

/** The vault of a settlement mint: PDA of ["vault", mint] (pdas/vault.ts of the client). */
export function vaultAddress(settlementMint: PublicKey): { address: PublicKey; bump: number } {
  return pda([Buffer.from('vault'), settlementMint.toBuffer()]);
}

/** The order's escrow: its associated token account of the settlement mint, classic token program (pdas/orderAta.ts). */
export function orderAtaAddress(order: PublicKey, settlementMint: PublicKey): PublicKey {
  return getAssociatedTokenAddressSync(settlementMint, order, true, TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID);
}

/** The vault's token account. GUESS: the vault PDA's associated token account (the client takes it as an argument). */
export function vaultTokenAccountAddress(settlementMint: PublicKey): PublicKey {
  return orderAtaAddress(vaultAddress(settlementMint).address, settlementMint);
}

/** An order account. GUESS (the client publishes no seeds): PDA of ["order", owner, sha256(externalOrderId)]. */
export function orderAddress(owner: PublicKey, externalOrderId: string): { address: PublicKey; bump: number } {
  return pda([Buffer.from('order'), owner.toBuffer(), sha256(externalOrderId)]);
}

/** A position account. GUESS (no published seeds): PDA of ["position", owner, sha256(marketId), [isYes ? 1 : 0]]. */
export function positionAddress(owner: PublicKey, marketId: string, isYes: boolean): { address: PublicKey; bump: number } {
  return pda([Buffer.from('position'), owner.toBuffer(), sha256(marketId), Buffer.from([isYes ? 1 : 0])]);
}

/** A market's result account. GUESS (no published seeds): PDA of ["market_result", sha256(marketId)]. */
export function marketResultAddress(marketId: string): { address: PublicKey; bump: number } {
  return pda([Buffer.from('market_result'), sha256(marketId)]);
}

/** A market's id hash, lowercase hex. GUESS: the first 16 bytes of sha256(marketId). */
export function marketIdHash(marketId: string): string {
  return sha256(marketId).subarray(0, 16).toString('hex');
}

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

/** `create_order` arguments (contracts and USD amounts in micro-units). */
export interface CreateOrderArgs {
  externalOrderId: string;
  marketId: string;
  isYes: boolean;
  isBuy: boolean;
  contracts: bigint;
  maxFillPriceUsd: bigint;
  /** Settlement-mint base units moved into the order's escrow. */
  depositAmount: bigint;
  orderType: OrderType;
  integrator: PublicKey | null;
  integratorFeeBps: number | null;
}

/** `create_order`: the owner opens an order, co-signed by the venue's authority; vault and escrow are derived. */
export function createOrderInstruction(a: { payer: PublicKey; owner: PublicKey; authority: PublicKey; position: PublicKey; order: PublicKey; ownerTokenAccount: PublicKey; settlementMint: PublicKey }, p: CreateOrderArgs): TransactionInstruction {
  const data = new BorshWriter().raw(DISCRIMINATORS.instructions.createOrder).str(p.externalOrderId).str(p.marketId).bool(p.isYes).bool(p.isBuy).u64(p.contracts).u64(p.maxFillPriceUsd)
    .u64(p.depositAmount).variant(ORDER_TYPES, p.orderType).optKey(p.integrator).optU16(p.integratorFeeBps).done();
  return ix(data, [meta(a.payer, true, true), meta(a.owner, true, false), meta(a.authority, true, false), meta(vaultAddress(a.settlementMint).address, false, false),
    meta(a.position, false, true), meta(a.order, false, true), meta(a.ownerTokenAccount, false, true), meta(a.settlementMint, false, false),
    meta(orderAtaAddress(a.order, a.settlementMint), false, true), meta(TOKEN_PROGRAM_ID, false, false), meta(ASSOCIATED_TOKEN_PROGRAM_ID, false, false), meta(SystemProgram.programId, false, false)]);
}

/** Reads `create_order` data; undefined when it is not that instruction. */
export function decodeCreateOrderData(data: Uint8Array): CreateOrderArgs | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.instructions.createOrder);
  if (!r) return undefined;
  return { externalOrderId: r.str(), marketId: r.str(), isYes: r.bool(), isBuy: r.bool(), contracts: r.u64(), maxFillPriceUsd: r.u64(), depositAmount: r.u64(),
    orderType: r.variant(ORDER_TYPES), integrator: r.optKey(), integratorFeeBps: r.optU16() };
}

/** Fill arguments: `usd` is `total_cost_usd` of a buy fill, `gross_proceeds_usd` of a sell fill (micro-USD). */
export interface FillOrderArgs {
  filledContracts: bigint;
  usd: bigint;
  venueFeeUsd: bigint;
  orderId: string | null;
}

/** The accounts of both fills, in the client's order (the integrator slot holds the program id when there is none). */
export interface FillOrderAccounts {
  authority: PublicKey;
  secondaryAuthority: PublicKey;
  owner: PublicKey;
  vault: PublicKey;
  position: PublicKey;
  order: PublicKey;
  vaultTokenAccount: PublicKey;
  orderAta: PublicKey;
  integratorTokenAccount: PublicKey | null;
}

/** `fill_buy_order`: the venue's two authorities fill a buy order. */
export function fillBuyOrderInstruction(a: FillOrderAccounts, p: FillOrderArgs): TransactionInstruction {
  return fillInstruction(DISCRIMINATORS.instructions.fillBuyOrder, a, p);
}

/** `fill_sell_order`: the venue's two authorities fill a sell order. */
export function fillSellOrderInstruction(a: FillOrderAccounts, p: FillOrderArgs): TransactionInstruction {
  return fillInstruction(DISCRIMINATORS.instructions.fillSellOrder, a, p);
}

/** Reads either fill's data; undefined when it is neither. */
export function decodeFillOrderData(data: Uint8Array): (FillOrderArgs & { side: 'buy' | 'sell' }) | undefined {
  const buy = BorshReader.of(data, DISCRIMINATORS.instructions.fillBuyOrder);
  const r = buy ?? BorshReader.of(data, DISCRIMINATORS.instructions.fillSellOrder);
  if (!r) return undefined;
  return { side: buy ? 'buy' : 'sell', filledContracts: r.u64(), usd: r.u64(), venueFeeUsd: r.u64(), orderId: r.optStr() };
}

function fillInstruction(discriminator: Buffer, a: FillOrderAccounts, p: FillOrderArgs): TransactionInstruction {
  const data = new BorshWriter().raw(discriminator).u64(p.filledContracts).u64(p.usd).u64(p.venueFeeUsd).optStr(p.orderId).done();
  return ix(data, [meta(a.authority, true, true), meta(a.secondaryAuthority, true, true), meta(a.owner, false, true), meta(a.vault, false, true), meta(a.position, false, true),
    meta(a.order, false, true), meta(a.vaultTokenAccount, false, true), meta(a.orderAta, false, true),
    a.integratorTokenAccount ? meta(a.integratorTokenAccount, false, true) : meta(PREDICTION_PROGRAM, false, false), meta(TOKEN_PROGRAM_ID, false, false)]);
}

/** The accounts of `cancel_order` and `close_order`; vault and escrow are derived. */
export interface CloseOrderAccounts {
  owner: PublicKey;
  authority: PublicKey;
  order: PublicKey;
  rentDestination: PublicKey;
  position: PublicKey;
  ownerTokenAccount: PublicKey;
  settlementMint: PublicKey;
}

/** `cancel_order`: the owner (signing and paying) cancels with the authority's co-signature; no arguments. */
export function cancelOrderInstruction(a: CloseOrderAccounts): TransactionInstruction {
  return closeInstruction(DISCRIMINATORS.instructions.cancelOrder, a, true);
}

/** `close_order`: the authority (signing and paying) closes an order; no arguments. */
export function closeOrderInstruction(a: CloseOrderAccounts): TransactionInstruction {
  return closeInstruction(DISCRIMINATORS.instructions.closeOrder, a, false);
}

function closeInstruction(discriminator: Buffer, a: CloseOrderAccounts, byOwner: boolean): TransactionInstruction {
  return ix(discriminator, [meta(a.owner, byOwner, byOwner), meta(a.authority, true, !byOwner), meta(vaultAddress(a.settlementMint).address, false, false), meta(a.order, false, true),
    meta(a.rentDestination, false, true), meta(a.position, false, true), meta(orderAtaAddress(a.order, a.settlementMint), false, true), meta(a.ownerTokenAccount, false, true),
    meta(a.settlementMint, false, false), meta(TOKEN_PROGRAM_ID, false, false), meta(SystemProgram.programId, false, false), meta(ASSOCIATED_TOKEN_PROGRAM_ID, false, false)]);
}

/** `claim_payout`: the owner claims a settled position's payout from the vault; no arguments. */
export function claimPayoutInstruction(a: { owner: PublicKey; vault: PublicKey; position: PublicKey; marketResult: PublicKey; ownerTokenAccount: PublicKey; vaultTokenAccount: PublicKey }): TransactionInstruction {
  return ix(DISCRIMINATORS.instructions.claimPayout, [meta(a.owner, true, false), meta(a.vault, false, true), meta(a.position, false, true), meta(a.marketResult, false, false),
    meta(a.ownerTokenAccount, false, true), meta(a.vaultTokenAccount, false, true), meta(TOKEN_PROGRAM_ID, false, false)]);
}

/** `claim_payout2`: the authority claims a settled position's payout for its owner (the 24 h auto-claim); no arguments. */
export function claimPayout2Instruction(a: { authority: PublicKey; vault: PublicKey; position: PublicKey; marketResult: PublicKey; ownerTokenAccount: PublicKey; vaultTokenAccount: PublicKey }): TransactionInstruction {
  return ix(DISCRIMINATORS.instructions.claimPayout2, [meta(a.authority, true, false), meta(a.vault, false, true), meta(a.position, false, true), meta(a.marketResult, false, false),
    meta(a.ownerTokenAccount, false, true), meta(a.vaultTokenAccount, false, true), meta(TOKEN_PROGRAM_ID, false, false)]);
}

/** `close_position`: the authority (signing and paying) closes a position; no arguments. */
export function closePositionInstruction(a: { authority: PublicKey; owner: PublicKey; position: PublicKey; rentDestination: PublicKey }): TransactionInstruction {
  return ix(DISCRIMINATORS.instructions.closePosition, [meta(a.authority, true, true), meta(a.owner, false, false), meta(a.position, false, true), meta(a.rentDestination, false, true)]);
}

/** `close_lost_position`: the authority closes a position on the losing side of a settled market; no arguments. */
export function closeLostPositionInstruction(a: { authority: PublicKey; vault: PublicKey; position: PublicKey; marketResult: PublicKey }): TransactionInstruction {
  return ix(DISCRIMINATORS.instructions.closeLostPosition, [meta(a.authority, true, false), meta(a.vault, false, true), meta(a.position, false, true), meta(a.marketResult, false, false)]);
}

/** Which of the simulator's instructions an instruction of the program is; undefined for anything else. */
export function predictionInstructionName(i: TransactionInstruction): PredictionInstructionName | undefined {
  if (!i.programId.equals(PREDICTION_PROGRAM)) return undefined;
  const head = i.data.subarray(0, 8);
  return (Object.keys(DISCRIMINATORS.instructions) as PredictionInstructionName[]).find((name) => DISCRIMINATORS.instructions[name].equals(head));
}

function ix(data: Buffer, keys: AccountMeta[]): TransactionInstruction {
  return new TransactionInstruction({ programId: PREDICTION_PROGRAM, keys, data });
}

function meta(pubkey: PublicKey, isSigner: boolean, isWritable: boolean): AccountMeta {
  return { pubkey, isSigner, isWritable };
}
