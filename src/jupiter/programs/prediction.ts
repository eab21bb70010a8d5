import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, associatedTokenAddress, TOKEN_PROGRAM_ID } from '../../solana/tokenPrograms.js';
import { BorshReader, BorshWriter } from './borsh.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from './instruction.js';

/*
 * Jupiter's Prediction Market program (3ZZuTbw…): the layouts the simulator writes and the guard reads. The
 * simulator runs a no-op program at that id and the venue writes the accounts itself, so what matters is that the
 * bytes are the real program's. Every layout, discriminator, account order and signer/writable flag below is from
 * the program's generated client (a public Codama client of `prediction`: instructions/{createOrder,fillBuyOrder,
 * fillSellOrder,cancelOrder,closeOrder,claimPayout,closePosition,closeLostPosition}.ts, types/{orderType,
 * orderStatus}.ts, pdas/{vault,orderAta}.ts; the accounts are in predictionAccounts.ts); cancel_order's flags come
 * from an older generation of the client than the rest. The client publishes no seeds for the order, position and
 * market-result accounts nor for the vault's token account: those are the simulator's guesses and stay in
 * src/sim/products/predictionSeeds.ts, where nothing else relies on them. The Borsh reading and writing is in
 * ./borsh.ts.
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
/** An instruction of the program the layouts know. */
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
  return associatedTokenAddress(settlementMint, order, TOKEN_PROGRAM_ID, ASSOCIATED_TOKEN_PROGRAM_ID);
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

/** The data of `create_order`: the discriminator, then its arguments in Borsh. */
export function createOrderData(p: CreateOrderArgs): Buffer {
  return new BorshWriter().raw(DISCRIMINATORS.instructions.createOrder).str(p.externalOrderId).str(p.marketId).bool(p.isYes).bool(p.isBuy).u64(p.contracts).u64(p.maxFillPriceUsd)
    .u64(p.depositAmount).variant(ORDER_TYPES, p.orderType).optKey(p.integrator).optU16(p.integratorFeeBps).done();
}

/** `create_order`: the owner opens an order, co-signed by the venue's authority; vault and escrow are derived. */
export function createOrderInstruction(a: { payer: PublicKey; owner: PublicKey; authority: PublicKey; position: PublicKey; order: PublicKey; ownerTokenAccount: PublicKey; settlementMint: PublicKey }, p: CreateOrderArgs): TransactionInstruction {
  const data = createOrderData(p);
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

/** Which of the known instructions an instruction of the program is; undefined for anything else. */
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

/** Accounts of `create_order`, in the client's order (what createOrderInstruction writes). */
export const CREATE_ORDER_ACCOUNTS = ['payer', 'owner', 'authority', 'vault', 'position', 'order', 'ownerTokenAccount', 'settlementMint', 'orderAta', 'tokenProgram', 'associatedTokenProgram', 'systemProgram'] as const;
/** Accounts of `fill_buy_order` and `fill_sell_order`. */
export const FILL_ORDER_ACCOUNTS = ['authority', 'secondaryAuthority', 'owner', 'vault', 'position', 'order', 'vaultTokenAccount', 'orderAta', 'integratorTokenAccount', 'tokenProgram'] as const;
/** Accounts of `cancel_order` and `close_order`. */
export const CLOSE_ORDER_ACCOUNTS = ['owner', 'authority', 'vault', 'order', 'rentDestination', 'position', 'orderAta', 'ownerTokenAccount', 'settlementMint', 'tokenProgram', 'systemProgram', 'associatedTokenProgram'] as const;
/** Accounts of `claim_payout` (`claimer` is the owner) and `claim_payout2` (`claimer` is the venue's authority). */
export const CLAIM_PAYOUT_ACCOUNTS = ['claimer', 'vault', 'position', 'marketResult', 'ownerTokenAccount', 'vaultTokenAccount', 'tokenProgram'] as const;
/** Accounts of `close_position`. */
export const CLOSE_POSITION_ACCOUNTS = ['authority', 'owner', 'position', 'rentDestination'] as const;
/** Accounts of `close_lost_position`. */
export const CLOSE_LOST_POSITION_ACCOUNTS = ['authority', 'vault', 'position', 'marketResult'] as const;

type Named<A extends readonly string[]> = Record<A[number], string>;

/** An instruction of the program, read: its name, accounts by the client's names (base58) and arguments. */
export type PredictionInstruction =
  | { name: 'createOrder'; accounts: Named<typeof CREATE_ORDER_ACCOUNTS>; args: CreateOrderArgs }
  | { name: 'fillBuyOrder' | 'fillSellOrder'; accounts: Named<typeof FILL_ORDER_ACCOUNTS>; args: FillOrderArgs }
  | { name: 'cancelOrder' | 'closeOrder'; accounts: Named<typeof CLOSE_ORDER_ACCOUNTS> }
  | { name: 'claimPayout' | 'claimPayout2'; accounts: Named<typeof CLAIM_PAYOUT_ACCOUNTS> }
  | { name: 'closePosition'; accounts: Named<typeof CLOSE_POSITION_ACCOUNTS> }
  | { name: 'closeLostPosition'; accounts: Named<typeof CLOSE_LOST_POSITION_ACCOUNTS> };

/**
 * Reads an instruction of the Prediction Market program: undefined when it is another program's or its
 * discriminator is none the client lists; throws ProgramLayoutError when its data or accounts are too short.
 */
export function decodePredictionInstruction(ix: RawInstruction): PredictionInstruction | undefined {
  if (ix.programId !== PREDICTION_PROGRAM.toBase58()) return undefined;
  const names = Object.keys(DISCRIMINATORS.instructions) as PredictionInstructionName[];
  const name = names.find((n) => hasDiscriminator(ix.data, DISCRIMINATORS.instructions[n]));
  if (name === undefined) return undefined;
  const read = <T>(f: () => T): T => {
    try {
      return f();
    } catch (err) {
      throw new ProgramLayoutError(ix.programId, name, err instanceof Error ? err.message : String(err));
    }
  };
  switch (name) {
    case 'createOrder':
      return { name, accounts: namedAccounts(ix, name, CREATE_ORDER_ACCOUNTS), args: read(() => decodeCreateOrderData(ix.data)!) };
    case 'fillBuyOrder':
    case 'fillSellOrder': {
      const { side: _side, ...args } = read(() => decodeFillOrderData(ix.data)!);
      return { name, accounts: namedAccounts(ix, name, FILL_ORDER_ACCOUNTS), args };
    }
    case 'cancelOrder':
    case 'closeOrder':
      return { name, accounts: namedAccounts(ix, name, CLOSE_ORDER_ACCOUNTS) };
    case 'claimPayout':
    case 'claimPayout2':
      return { name, accounts: namedAccounts(ix, name, CLAIM_PAYOUT_ACCOUNTS) };
    case 'closePosition':
      return { name, accounts: namedAccounts(ix, name, CLOSE_POSITION_ACCOUNTS) };
    case 'closeLostPosition':
      return { name, accounts: namedAccounts(ix, name, CLOSE_LOST_POSITION_ACCOUNTS) };
  }
}
