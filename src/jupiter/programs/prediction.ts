import { createHash } from 'node:crypto';
import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID, associatedTokenAddress, TOKEN_PROGRAM_ID } from '../../solana/tokenPrograms.js';
import { anchorDiscriminator, BorshReader, BorshWriter } from './borsh.js';
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
 *
 * `create_order` has two known layouts, one discriminator (sha256("global:create_order")), the same twelve accounts
 * in the same order, and the same arguments up to the third u64:
 * - the IDL v0.10.0 layout (the Codama client above): external_order_id String, market_id String, is_yes, is_buy,
 *   contracts u64, max_fill_price_usd u64, deposit_amount u64, order_type u8, integrator Option<Pubkey>,
 *   integrator_fee_bps Option<u16>; the market field holds the market id (e.g. "POLY-559652");
 * - the market-hash layout, read from a live order a third party captured from Jupiter's API on 2026-09-17
 *   (SeekerAgentConnect/sac, fixtures/jupiter/orders.json and its Kotlin reader PredictionInstructions.kt): the market
 *   field holds the API's `marketIdHash` (the first 16 bytes of sha256("market:" + market id), in lowercase hex: see
 *   marketIdHash below), the
 *   third u64 is the order's cost (what goes into the order's escrow: the same field), and the tail is slippage_bps
 *   u16, max_slippage_bps Option<u16>. That reader also names account 3 the market: in the capture it is the vault
 *   PDA ["vault", settlement mint], as the IDL says. The captured tail was all zeros, which both tails read alike
 *   (a market order with no integrator and no fee; no slippage): which tail the live program has is not settled.
 * decodeCreateOrderLayout tells them apart by the market field's shape and holds each tail to its length exactly;
 * anything else is refused with the reason (ProgramLayoutError).
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

/** `create_order` arguments in the market-hash layout (see the header): the market named by its hash, a slippage tail. */
export interface CreateOrderHashArgs {
  externalOrderId: string;
  /** The API's `marketIdHash`: 32 lowercase hex characters. */
  marketIdHash: string;
  isYes: boolean;
  isBuy: boolean;
  contracts: bigint;
  maxFillPriceUsd: bigint;
  /** The order's cost, settlement-mint base units moved into the order's escrow (the IDL's `deposit_amount`). */
  depositAmount: bigint;
  slippageBps: number;
  maxSlippageBps: number | null;
}

/** A market id hash as the market-hash layout carries it: 32 lowercase hex characters. */
export const MARKET_ID_HASH = /^[0-9a-f]{32}$/;

/**
 * The API's `marketIdHash` of a market id, as live orders name their market: the first 16 bytes of
 * sha256("market:" + marketId), lowercase hex. Found, not published: both live orders of the corpus
 * (test/fixtures/mainnet/prediction/create-order: POLY-2772176 → e5ecff63…cea8, POLY-4797513 → a8bc4552…51f2) name
 * their market by exactly this, and no other digest of the id tried does (md5, sha1/2/3, keccak, blake2/3 of the id
 * and its variants). So the guard derives it from the intent's market id and needs no word of the venue for it.
 */
export function marketIdHash(marketId: string): string {
  return createHash('sha256').update(`market:${marketId}`, 'utf8').digest().subarray(0, 16).toString('hex');
}

/** The data of `create_order` in the market-hash layout. */
export function createOrderHashData(p: CreateOrderHashArgs): Buffer {
  if (!MARKET_ID_HASH.test(p.marketIdHash)) throw new RangeError(`not a market id hash: ${p.marketIdHash}`);
  return new BorshWriter().raw(DISCRIMINATORS.instructions.createOrder).str(p.externalOrderId).str(p.marketIdHash).bool(p.isYes).bool(p.isBuy).u64(p.contracts).u64(p.maxFillPriceUsd)
    .u64(p.depositAmount).u16(p.slippageBps).optU16(p.maxSlippageBps).done();
}

/** A `create_order` read, with the layout it was read in. */
export type CreateOrderLayout = { layout: 'idl-0.10.0'; args: CreateOrderArgs } | { layout: 'market-hash'; args: CreateOrderHashArgs };

/**
 * Reads `create_order` data in whichever known layout it is: the market-hash layout when the market field is a market
 * id hash, else the IDL v0.10.0 layout; each must end exactly where its tail does. Undefined when it is not
 * `create_order`; throws a RangeError naming why when it is in neither layout.
 */
export function decodeCreateOrderLayout(data: Uint8Array): CreateOrderLayout | undefined {
  const r = BorshReader.of(data, DISCRIMINATORS.instructions.createOrder);
  if (!r) return undefined;
  const strictBool = (what: string): boolean => {
    const v = r.u8();
    if (v > 1) throw new RangeError(`${what} is the byte ${v}, not a bool`);
    return v === 1;
  };
  const externalOrderId = r.str();
  const market = r.str();
  const isYes = strictBool('is_yes');
  const isBuy = strictBool('is_buy');
  const contracts = r.u64();
  const maxFillPriceUsd = r.u64();
  const depositAmount = r.u64();
  const rest = Buffer.from(data).subarray(data.length - r.left());
  if (MARKET_ID_HASH.test(market)) {
    const tag = rest[2];
    if (!((rest.length === 3 && tag === 0) || (rest.length === 5 && tag === 1))) {
      throw new RangeError(`its market field is a market id hash (${market}), but its ${rest.length}-byte tail is not the market-hash layout's (slippage_bps u16, max_slippage_bps Option<u16>: 3 or 5 bytes)`);
    }
    const args = { externalOrderId, marketIdHash: market, isYes, isBuy, contracts, maxFillPriceUsd, depositAmount, slippageBps: rest.readUInt16LE(0), maxSlippageBps: tag === 1 ? rest.readUInt16LE(3) : null };
    return { layout: 'market-hash', args };
  }
  const tailError = () => new RangeError(`its market field is a market id (${JSON.stringify(market)}), but its ${rest.length}-byte tail is not the IDL v0.10.0 layout's (order_type u8 enum of 2, integrator Option<Pubkey>, integrator_fee_bps Option<u16>: 3, 5, 35 or 37 bytes)`);
  const orderType = rest[0] === undefined ? undefined : ORDER_TYPES[rest[0]];
  if (orderType === undefined) throw tailError();
  let at = 1;
  let integrator: PublicKey | null = null;
  if (rest[at] === 1 && rest.length >= at + 33) integrator = new PublicKey(rest.subarray(at + 1, at + 33));
  else if (rest[at] !== 0) throw tailError();
  at += integrator ? 33 : 1;
  let integratorFeeBps: number | null = null;
  if (rest[at] === 1 && rest.length >= at + 3) integratorFeeBps = rest.readUInt16LE(at + 1);
  else if (rest[at] !== 0) throw tailError();
  at += integratorFeeBps === null ? 1 : 3;
  if (at !== rest.length) throw tailError();
  return { layout: 'idl-0.10.0', args: { externalOrderId, marketId: market, isYes, isBuy, contracts, maxFillPriceUsd, depositAmount, orderType, integrator, integratorFeeBps } };
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
  /** `create_order` in the market-hash layout (see the header): same accounts, the market named by its hash. */
  | { name: 'createOrderByHash'; accounts: Named<typeof CREATE_ORDER_ACCOUNTS>; args: CreateOrderHashArgs }
  | { name: 'fillBuyOrder' | 'fillSellOrder'; accounts: Named<typeof FILL_ORDER_ACCOUNTS>; args: FillOrderArgs }
  | { name: 'cancelOrder' | 'closeOrder'; accounts: Named<typeof CLOSE_ORDER_ACCOUNTS> }
  | { name: 'claimPayout' | 'claimPayout2'; accounts: Named<typeof CLAIM_PAYOUT_ACCOUNTS> }
  | { name: 'closePosition'; accounts: Named<typeof CLOSE_POSITION_ACCOUNTS> }
  | { name: 'closeLostPosition'; accounts: Named<typeof CLOSE_LOST_POSITION_ACCOUNTS> };

/**
 * Reads an instruction of the Prediction Market program: undefined when it is another program's or its
 * discriminator is none the client lists; throws ProgramLayoutError when its data or accounts are too short, or a
 * `create_order` is in neither known layout (the error says why).
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
    case 'createOrder': {
      const accounts = namedAccounts(ix, name, CREATE_ORDER_ACCOUNTS);
      const order = read(() => decodeCreateOrderLayout(ix.data)!);
      return order.layout === 'idl-0.10.0' ? { name, accounts, args: order.args } : { name: 'createOrderByHash', accounts, args: order.args };
    }
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

/*
 * The aggregator swap a buy may be funded by. A live buy paid in USDC (SeekerAgentConnect/sac,
 * fixtures/jupiter/orders.json) swaps the deposit into the settlement mint (JupUSD) with a top-level `route` of
 * Jupiter's aggregator (JUP6…) before `create_order` spends it. The layouts are the aggregator's IDL as Jupiter
 * publishes it (jup-ag/instruction-parser, src/idl/jupiter.ts): `route` [tokenProgram, userTransferAuthority (signer),
 * userSourceTokenAccount, userDestinationTokenAccount, destinationTokenAccount, destinationMint, platformFeeAccount,
 * eventAuthority, program, ...the route's accounts] (route_plan, in_amount u64, quoted_out_amount u64, slippage_bps
 * u16, platform_fee_bps u8) and `shared_accounts_route` [tokenProgram, programAuthority, userTransferAuthority
 * (signer), sourceTokenAccount, programSourceTokenAccount, programDestinationTokenAccount, destinationTokenAccount,
 * sourceMint, destinationMint, platformFeeAccount, token2022Program, eventAuthority, program, ...] (id u8, then the
 * same). The route plan is a vector of variable-size steps; the four numbers after it end the data, so they are read
 * from its end.
 */

/** Discriminators of the two aggregator routes a funded buy may carry. */
export const AGGREGATOR_ROUTES = Object.freeze({ route: anchorDiscriminator('global', 'route'), sharedAccountsRoute: anchorDiscriminator('global', 'shared_accounts_route') });

/** A route of the aggregator, read: who pays, from and to which accounts, and its amounts. */
export interface AggregatorRoute {
  name: keyof typeof AGGREGATOR_ROUTES;
  /** The signer whose tokens the route takes (base58). */
  authority: string;
  /** The token account the input leaves, and the one the output lands in (base58). */
  source: string;
  destination: string;
  /** The input mint (`shared_accounts_route` names it; `route` does not) and the output mint (base58). */
  sourceMint: string | null;
  destinationMint: string;
  inAmount: bigint;
  quotedOutAmount: bigint;
  slippageBps: number;
  platformFeeBps: number;
}

/**
 * Reads an aggregator instruction as a route; undefined when it is another program's or another instruction of the
 * aggregator; throws ProgramLayoutError when its data or accounts are too short for the route's layout.
 */
export function decodeAggregatorRoute(ix: RawInstruction): AggregatorRoute | undefined {
  if (ix.programId !== PROGRAM_IDS.jupiterV6) return undefined;
  const shared = hasDiscriminator(ix.data, AGGREGATOR_ROUTES.sharedAccountsRoute);
  if (!shared && !hasDiscriminator(ix.data, AGGREGATOR_ROUTES.route)) return undefined;
  const name = shared ? 'sharedAccountsRoute' : 'route';
  const [accounts, least] = shared ? [13, 8 + 1 + 4 + 19] : [9, 8 + 4 + 19];
  if (ix.accounts.length < accounts) throw new ProgramLayoutError(ix.programId, name, `names ${ix.accounts.length} accounts; the layout has ${accounts}`);
  if (ix.data.length < least) throw new ProgramLayoutError(ix.programId, name, `data is ${ix.data.length} bytes; the layout has at least ${least}`);
  const b = Buffer.from(ix.data);
  const end = b.length;
  const a = ix.accounts;
  const amounts = { inAmount: b.readBigUInt64LE(end - 19), quotedOutAmount: b.readBigUInt64LE(end - 11), slippageBps: b.readUInt16LE(end - 3), platformFeeBps: b.readUInt8(end - 1) };
  return shared
    ? { name, authority: a[2]!, source: a[3]!, destination: a[6]!, sourceMint: a[7]!, destinationMint: a[8]!, ...amounts }
    : { name, authority: a[1]!, source: a[2]!, destination: a[3]!, sourceMint: null, destinationMint: a[5]!, ...amounts };
}

/** A `route` of the aggregator with an empty route plan (for tests and the simulator: the moves go beside it). */
export function aggregatorRouteInstruction(a: { authority: PublicKey; source: PublicKey; destination: PublicKey; destinationMint: PublicKey; eventAuthority: PublicKey; inAmount: bigint; quotedOutAmount: bigint; slippageBps: number; platformFeeBps: number }): TransactionInstruction {
  const program = new PublicKey(PROGRAM_IDS.jupiterV6);
  const data = new BorshWriter().raw(AGGREGATOR_ROUTES.route).u32(0).u64(a.inAmount).u64(a.quotedOutAmount).u16(a.slippageBps).u8(a.platformFeeBps).done();
  return new TransactionInstruction({
    programId: program,
    keys: [meta(TOKEN_PROGRAM_ID, false, false), meta(a.authority, true, false), meta(a.source, false, true), meta(a.destination, false, true), meta(program, false, false),
      meta(a.destinationMint, false, false), meta(program, false, false), meta(a.eventAuthority, false, false), meta(program, false, false)],
    data,
  });
}
