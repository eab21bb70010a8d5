import { PublicKey, SystemProgram, TransactionInstruction, type AccountMeta } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '../../solana/tokenPrograms.js';
import { anchorDiscriminator, BorshReader } from './borsh.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from './instruction.js';

/*
 * The Jupiter Limit Order v2 program (j1o2qRp…), behind the Trigger API: the layouts the simulator writes and the
 * guard reads (one definition for both). Nothing of
 * it is hand-designed: the layouts are the program's Anchor IDL as decoded by sevenlabs-hq/carbon
 * (decoders/jupiter-limit-order-2-decoder: types/initialize_order_params.rs, accounts/order.rs,
 * instructions/{initialize_order,cancel_order,fill_order}.rs), and the seeds were checked against the real
 * createOrder transaction in Jupiter's own spec (DOCS openapi-spec/trigger/v1/trigger.yaml, the 200 example of
 * /createOrder): its order account CX2iPk… is the PDA of ["order", maker, unique_id as u64 LE], its reserve
 * GvHzyN… is the order's associated token account of the input mint, its fee account 27ZASR… is the PDA of
 * ["fee"] and its event authority ArsDfE… the PDA of ["__event_authority"]. That transaction's instruction data
 * is 34 bytes (no slippage field: an older IDL); the current IDL appends `slippage_bps: Option<u16>`, which is
 * what the simulator sends. The order account is 372 bytes on mainnet (the dataSize filter third-party readers
 * use); the IDL's fields fill the first 308 at most, the rest stays zero.
 */

/** The program id. */
export const TRIGGER_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterTrigger);
/** Size of an order account on mainnet, bytes. */
export const ORDER_ACCOUNT_SIZE = 372;
/** The program's fee account (PDA of ["fee"]). */
export const FEE_ACCOUNT = PublicKey.findProgramAddressSync([Buffer.from('fee')], TRIGGER_PROGRAM)[0];
/** Anchor's event authority of the program (PDA of ["__event_authority"]): its events are self-CPIs signed by it. */
export const EVENT_AUTHORITY = PublicKey.findProgramAddressSync([Buffer.from('__event_authority')], TRIGGER_PROGRAM)[0];
/** Jupiter Aggregator v6: the fill instruction names it (a keeper's fill swaps through it). */
const JUPITER_V6 = new PublicKey(PROGRAM_IDS.jupiterV6);

/** Discriminators of the instructions and the account the simulator writes (856e4aaf… is in the captured transaction). */
export const DISCRIMINATORS = Object.freeze({
  initializeOrder: anchorDiscriminator('global', 'initialize_order'),
  cancelOrder: anchorDiscriminator('global', 'cancel_order'),
  fillOrder: anchorDiscriminator('global', 'fill_order'),
  order: anchorDiscriminator('account', 'Order'),
});

/** The order account of a maker's order (PDA of ["order", maker, unique_id u64 LE]) and its bump. */
export function orderAddress(maker: PublicKey, uniqueId: bigint): { address: PublicKey; bump: number } {
  const [address, bump] = PublicKey.findProgramAddressSync([Buffer.from('order'), maker.toBuffer(), u64(uniqueId)], TRIGGER_PROGRAM);
  return { address, bump };
}

/** The `Order` account as the program stores it (amounts in base units, times in unix seconds). */
export interface OrderAccount {
  maker: PublicKey;
  inputMint: PublicKey;
  outputMint: PublicKey;
  inputTokenProgram: PublicKey;
  outputTokenProgram: PublicKey;
  /** The escrow: the order's associated token account of the input mint. */
  inputMintReserve: PublicKey;
  uniqueId: bigint;
  oriMakingAmount: bigint;
  oriTakingAmount: bigint;
  /** What is still for sale. */
  makingAmount: bigint;
  /** What the rest must fetch. */
  takingAmount: bigint;
  borrowMakingAmount: bigint;
  expiredAt: bigint | null;
  feeBps: number;
  feeAccount: PublicKey;
  createdAt: bigint;
  updatedAt: bigint;
  bump: number;
}

/** The account's bytes: discriminator, then the IDL's fields in Borsh, zero-padded to the mainnet size. */
export function encodeOrderAccount(o: OrderAccount): Buffer {
  const parts = [
    DISCRIMINATORS.order,
    ...[o.maker, o.inputMint, o.outputMint, o.inputTokenProgram, o.outputTokenProgram, o.inputMintReserve].map((k) => k.toBuffer()),
    ...[o.uniqueId, o.oriMakingAmount, o.oriTakingAmount, o.makingAmount, o.takingAmount, o.borrowMakingAmount].map(u64),
    optionI64(o.expiredAt),
    u16(o.feeBps),
    o.feeAccount.toBuffer(),
    i64(o.createdAt),
    i64(o.updatedAt),
    Buffer.from([o.bump]),
  ];
  const data = Buffer.alloc(ORDER_ACCOUNT_SIZE);
  Buffer.concat(parts).copy(data);
  return data;
}

/** Reads an order account (tests and tools check what the venue wrote); undefined when it is not one. */
export function decodeOrderAccount(data: Uint8Array): OrderAccount | undefined {
  const b = Buffer.from(data);
  if (b.length < 8 || !b.subarray(0, 8).equals(DISCRIMINATORS.order)) return undefined;
  let at = 8;
  const key = () => new PublicKey(b.subarray(at, (at += 32)));
  const big = () => b.readBigUInt64LE((at += 8) - 8);
  const [maker, inputMint, outputMint, inputTokenProgram, outputTokenProgram, inputMintReserve] = [key(), key(), key(), key(), key(), key()];
  const [uniqueId, oriMakingAmount, oriTakingAmount, makingAmount, takingAmount, borrowMakingAmount] = [big(), big(), big(), big(), big(), big()];
  const expiredAt = b[at++] === 1 ? b.readBigInt64LE((at += 8) - 8) : null;
  const feeBps = b.readUInt16LE((at += 2) - 2);
  const feeAccount = key();
  const createdAt = b.readBigInt64LE((at += 8) - 8);
  const updatedAt = b.readBigInt64LE((at += 8) - 8);
  return { maker, inputMint, outputMint, inputTokenProgram, outputTokenProgram, inputMintReserve, uniqueId, oriMakingAmount, oriTakingAmount, makingAmount, takingAmount, borrowMakingAmount, expiredAt, feeBps, feeAccount, createdAt, updatedAt, bump: b[at]! };
}

/** `InitializeOrderParams` of the IDL. */
export interface InitializeOrderParams {
  uniqueId: bigint;
  makingAmount: bigint;
  takingAmount: bigint;
  expiredAt: bigint | null;
  feeBps: number | null;
  slippageBps: number | null;
}

/** The accounts of `initialize_order`, in the IDL's order (the referral slot holds the program id when there is none). */
export interface InitializeOrderAccounts {
  payer: PublicKey;
  maker: PublicKey;
  order: PublicKey;
  reserve: PublicKey;
  makerInputAccount: PublicKey;
  referral: PublicKey | null;
  inputMint: PublicKey;
  outputMint: PublicKey;
  inputTokenProgram: PublicKey;
  outputTokenProgram: PublicKey;
}

/** The data of `initialize_order`: the discriminator, then InitializeOrderParams in Borsh. */
export function initializeOrderData(p: InitializeOrderParams): Buffer {
  return Buffer.concat([DISCRIMINATORS.initializeOrder, u64(p.uniqueId), u64(p.makingAmount), u64(p.takingAmount), optionI64(p.expiredAt), optionU16(p.feeBps), optionU16(p.slippageBps)]);
}

/** `initialize_order`: opens the order (the maker signs). */
export function initializeOrderInstruction(a: InitializeOrderAccounts, p: InitializeOrderParams): TransactionInstruction {
  const data = initializeOrderData(p);
  const keys: AccountMeta[] = [
    meta(a.payer, true, true),
    meta(a.maker, true, false),
    meta(a.order, false, true),
    meta(a.reserve, false, true),
    meta(a.makerInputAccount, false, true),
    meta(FEE_ACCOUNT, false, false),
    meta(a.referral ?? TRIGGER_PROGRAM, false, false),
    meta(a.inputMint, false, false),
    meta(a.outputMint, false, false),
    meta(a.inputTokenProgram, false, false),
    meta(a.outputTokenProgram, false, false),
    meta(SystemProgram.programId, false, false),
    meta(ASSOCIATED_TOKEN_PROGRAM_ID, false, false),
    meta(EVENT_AUTHORITY, false, false),
    meta(TRIGGER_PROGRAM, false, false),
  ];
  return new TransactionInstruction({ programId: TRIGGER_PROGRAM, keys, data });
}

/** `cancel_order`: closes an order, by its maker, or by a keeper once it expired. No arguments. */
export function cancelOrderInstruction(a: { signer: PublicKey; maker: PublicKey; order: PublicKey; reserve: PublicKey; makerInputAccount: PublicKey | null; inputMint: PublicKey; inputTokenProgram: PublicKey }): TransactionInstruction {
  const keys: AccountMeta[] = [
    meta(a.signer, true, true),
    meta(a.maker, false, true),
    meta(a.order, false, true),
    meta(a.reserve, false, true),
    meta(a.makerInputAccount ?? TRIGGER_PROGRAM, false, a.makerInputAccount !== null),
    meta(a.inputMint, false, false),
    meta(a.inputTokenProgram, false, false),
    meta(EVENT_AUTHORITY, false, false),
    meta(TRIGGER_PROGRAM, false, false),
  ];
  return new TransactionInstruction({ programId: TRIGGER_PROGRAM, keys, data: DISCRIMINATORS.cancelOrder });
}

/** `fill_order` by a keeper (the taker): `input_amount` of the order sold, with no swap data (the venue's vault takes it). */
export function fillOrderInstruction(a: { taker: PublicKey; maker: PublicKey; order: PublicKey; takerInputAccount: PublicKey; takerOutputAccount: PublicKey; makerOutputAccount: PublicKey; reserve: PublicKey; inputMint: PublicKey; inputTokenProgram: PublicKey; outputMint: PublicKey; outputTokenProgram: PublicKey }, inputAmount: bigint): TransactionInstruction {
  const keys: AccountMeta[] = [
    meta(a.taker, true, true),
    meta(a.maker, false, true),
    meta(a.order, false, true),
    meta(a.takerInputAccount, false, true),
    meta(a.takerOutputAccount, false, true),
    meta(a.makerOutputAccount, false, true),
    meta(FEE_ACCOUNT, false, true),
    meta(a.reserve, false, true),
    meta(a.inputMint, false, false),
    meta(a.inputTokenProgram, false, false),
    meta(a.outputMint, false, false),
    meta(a.outputTokenProgram, false, false),
    meta(JUPITER_V6, false, false),
    meta(SystemProgram.programId, false, false),
    meta(EVENT_AUTHORITY, false, false),
    meta(TRIGGER_PROGRAM, false, false),
  ];
  // FillOrderParams { input_amount: u64, swap_data: Vec<u8> }: an empty vector is its u32 length 0.
  return new TransactionInstruction({ programId: TRIGGER_PROGRAM, keys, data: Buffer.concat([DISCRIMINATORS.fillOrder, u64(inputAmount), Buffer.alloc(4)]) });
}

/** Whether an instruction is `initialize_order` of the program, and if so the order account it opens. */
export function initializedOrder(ix: TransactionInstruction): PublicKey | undefined {
  if (!ix.programId.equals(TRIGGER_PROGRAM) || ix.data.length < 8 || !ix.data.subarray(0, 8).equals(DISCRIMINATORS.initializeOrder)) return undefined;
  return ix.keys[2]?.pubkey;
}

function meta(pubkey: PublicKey, isSigner: boolean, isWritable: boolean): AccountMeta {
  return { pubkey, isSigner, isWritable };
}

function u64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
}

function i64(n: bigint): Buffer {
  const b = Buffer.alloc(8);
  b.writeBigInt64LE(n);
  return b;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n);
  return b;
}

function optionI64(n: bigint | null): Buffer {
  return n === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), i64(n)]);
}

function optionU16(n: number | null): Buffer {
  return n === null ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), u16(n)]);
}

/** Accounts of `initialize_order`, in the IDL's order (what initializeOrderInstruction writes). */
export const INITIALIZE_ORDER_ACCOUNTS = ['payer', 'maker', 'order', 'reserve', 'makerInputAccount', 'feeAccount', 'referral', 'inputMint', 'outputMint', 'inputTokenProgram', 'outputTokenProgram', 'systemProgram', 'associatedTokenProgram', 'eventAuthority', 'program'] as const;
/** Accounts of `cancel_order`, in the IDL's order. */
export const CANCEL_ORDER_ACCOUNTS = ['signer', 'maker', 'order', 'reserve', 'makerInputAccount', 'inputMint', 'inputTokenProgram', 'eventAuthority', 'program'] as const;
/** Accounts of `fill_order`, in the IDL's order. */
export const FILL_ORDER_ACCOUNTS = ['taker', 'maker', 'order', 'takerInputAccount', 'takerOutputAccount', 'makerOutputAccount', 'feeAccount', 'reserve', 'inputMint', 'inputTokenProgram', 'outputMint', 'outputTokenProgram', 'jupiterProgram', 'systemProgram', 'eventAuthority', 'program'] as const;

/** An instruction of the program, read: its name, accounts by their IDL names (base58) and arguments. */
export type TriggerInstruction =
  | { name: 'initializeOrder'; accounts: Record<(typeof INITIALIZE_ORDER_ACCOUNTS)[number], string>; params: InitializeOrderParams }
  /** `makerInputAccount` holds the program id when the refund goes to the maker as SOL (the IDL's None). */
  | { name: 'cancelOrder'; accounts: Record<(typeof CANCEL_ORDER_ACCOUNTS)[number], string> }
  | { name: 'fillOrder'; accounts: Record<(typeof FILL_ORDER_ACCOUNTS)[number], string>; inputAmount: bigint };

/**
 * Reads an instruction of the Limit Order v2 program: undefined when it is another program's or its discriminator is
 * none of these; throws ProgramLayoutError when its data or accounts are too short for the layout. `initialize_order`
 * data without the trailing `slippage_bps` (the older IDL of the spec's captured transaction) reads as no slippage.
 */
export function decodeTriggerInstruction(ix: RawInstruction): TriggerInstruction | undefined {
  if (ix.programId !== TRIGGER_PROGRAM.toBase58()) return undefined;
  const d = ix.data;
  if (hasDiscriminator(d, DISCRIMINATORS.initializeOrder)) {
    const accounts = namedAccounts(ix, 'initialize_order', INITIALIZE_ORDER_ACCOUNTS);
    return { name: 'initializeOrder', accounts, params: readParams(ix) };
  }
  if (hasDiscriminator(d, DISCRIMINATORS.cancelOrder)) return { name: 'cancelOrder', accounts: namedAccounts(ix, 'cancel_order', CANCEL_ORDER_ACCOUNTS) };
  if (hasDiscriminator(d, DISCRIMINATORS.fillOrder)) {
    const accounts = namedAccounts(ix, 'fill_order', FILL_ORDER_ACCOUNTS);
    if (d.length < 16) throw new ProgramLayoutError(ix.programId, 'fill_order', `data is ${d.length} bytes`);
    return { name: 'fillOrder', accounts, inputAmount: Buffer.from(d).readBigUInt64LE(8) };
  }
  return undefined;
}

function readParams(ix: RawInstruction): InitializeOrderParams {
  const r = BorshReader.of(ix.data, DISCRIMINATORS.initializeOrder)!;
  try {
    const [uniqueId, makingAmount, takingAmount] = [r.u64(), r.u64(), r.u64()];
    const expiredAt = r.optI64();
    const feeBps = r.optU16();
    const slippageBps = r.left() > 0 ? r.optU16() : null;
    return { uniqueId, makingAmount, takingAmount, expiredAt, feeBps, slippageBps };
  } catch (err) {
    throw new ProgramLayoutError(ix.programId, 'initialize_order', err instanceof Error ? err.message : String(err));
  }
}
