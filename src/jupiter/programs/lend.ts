import { Connection, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { lendingPda, lendingRewardRateModelPda, liquidityPda } from '@jup-ag/lend';
import { getLendingProgram } from '@jup-ag/lend/earn';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from './instruction.js';

/*
 * The Jupiter Lend Earn program (jup3YeL8…) as the simulator writes it and the guard reads it. Nothing here is a hand-copied layout: the
 * instructions and the `lending` account are encoded from the Anchor IDL that @jup-ag/lend ships (field order, types
 * and discriminators), the accounts of each user instruction are the ones the SDK's own getDepositContext and
 * getWithdrawContext pick, and every address comes from the SDK's PDA helpers (the program's published seeds).
 * test/sim/lend-program.test.ts checks the bytes against the SDK's Anchor coder.
 */

/** The Earn program id. */
export const LEND_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterLendEarn);
/** Precision of the program's exchange prices (LENDING_CONSTANTS.EXCHANGE_PRICES_PRECISION in the SDK). */
export const EXCHANGE_PRICE_PRECISION = 1_000_000_000_000n;

/** One IDL instruction, as much of it as encoding needs. */
interface IdlInstruction {
  readonly name: string;
  readonly discriminator: readonly number[];
  readonly accounts: ReadonlyArray<{ readonly name: string; readonly writable?: boolean; readonly signer?: boolean; readonly pda?: IdlPda }>;
  readonly args: ReadonlyArray<{ readonly name: string; readonly type: unknown }>;
}
interface IdlPda {
  readonly seeds: ReadonlyArray<{ readonly kind: string; readonly value?: readonly number[]; readonly path?: string }>;
}
interface IdlStruct {
  readonly name: string;
  readonly type: { readonly kind: string; readonly fields?: ReadonlyArray<{ readonly name: string; readonly type: unknown }> };
}
/** As much of the Earn IDL as the codec and the decoder read. */
export interface LendIdl {
  readonly instructions: readonly IdlInstruction[];
  readonly accounts?: ReadonlyArray<{ readonly name: string; readonly discriminator: readonly number[] }>;
  readonly types?: readonly IdlStruct[];
}

/** A value of an IDL field the simulator writes: integers as bigint or number, keys as PublicKey. */
export type IdlValue = bigint | number | PublicKey;

/** The addresses of one Earn market (one underlying asset), all derived by the SDK's PDA helpers. */
export interface LendMarketAddresses {
  asset: PublicKey;
  /** The jlToken mint (PDA ["f_token_mint", asset]). */
  fTokenMint: PublicKey;
  /** The market's `lending` account. */
  lending: PublicKey;
  /** The liquidity program's `liquidity` PDA: the authority of the vault. */
  liquidity: PublicKey;
  /** The vault: the asset's associated token account of `liquidity`. */
  vault: PublicKey;
  rewardsRateModel: PublicKey;
  tokenReserve: PublicKey;
  supplyPosition: PublicKey;
}

/** The addresses of the market of `asset` (whose mint is owned by `tokenProgram`). */
export function marketAddresses(asset: PublicKey, tokenProgram: PublicKey): LendMarketAddresses {
  const lending = lendingPda.getLending(asset);
  const liquidity = liquidityPda.getLiquidity();
  return {
    asset,
    fTokenMint: lendingPda.getLendingToken(asset),
    lending,
    liquidity,
    vault: getAssociatedTokenAddressSync(asset, liquidity, true, tokenProgram),
    rewardsRateModel: lendingRewardRateModelPda.getLendingRewardsRateModel(asset),
    tokenReserve: liquidityPda.getTokenReserveFromAsset(asset),
    supplyPosition: liquidityPda.getUserSupplyPosition(asset, lending),
  };
}

let loaded: LendIdl | undefined;

/**
 * The Earn program's IDL as @jup-ag/lend ships it (camelCase, as Anchor presents it). The SDK hands it out only
 * wrapped in an Anchor Program, which wants a connection: building it reads nothing from the chain, so the
 * connection given is never contacted.
 */
export function lendIdl(): LendIdl {
  loaded ??= getLendingProgram({ connection: new Connection('http://127.0.0.1:1') }).idl;
  return loaded;
}

/** The Earn program's IDL (camelCase, as Anchor presents it) and encoders driven by it. */
export class LendProgramCodec {
  private readonly idl: LendIdl = lendIdl();

  /**
   * The program's instruction `name` with the accounts the IDL lists, taken by name from `accounts` (an SDK
   * context), and its arguments encoded in IDL order.
   */
  instruction(name: string, accounts: Readonly<Record<string, PublicKey>>, args: Readonly<Record<string, IdlValue>> = {}): TransactionInstruction {
    const ix = this.idl.instructions.find((i) => i.name === name);
    if (!ix) throw new Error(`the lend IDL has no instruction ${name}`);
    const keys = ix.accounts.map((a) => {
      const pubkey = accounts[a.name];
      if (!pubkey) throw new Error(`lend ${name}: no address for account ${a.name}`);
      return { pubkey, isSigner: a.signer === true, isWritable: a.writable === true };
    });
    const data = Buffer.concat([Buffer.from(ix.discriminator), ...ix.args.map((a) => encodeField(a.type, args[a.name], `${name}.${a.name}`))]);
    return new TransactionInstruction({ programId: LEND_PROGRAM, keys, data });
  }

  /**
   * The bump of a PDA the IDL declares (account `account` of instruction `ixName`), its seeds filled from
   * `accounts`; throws unless the derived address is `expected`.
   */
  bump(ixName: string, account: string, accounts: Readonly<Record<string, PublicKey>>, expected: PublicKey): number {
    const pda = this.idl.instructions.find((i) => i.name === ixName)?.accounts.find((a) => a.name === account)?.pda;
    if (!pda) throw new Error(`the lend IDL declares no seeds for ${ixName}.${account}`);
    const seeds = pda.seeds.map((s) => {
      if (s.kind === 'const' && s.value) return Buffer.from(s.value);
      const key = s.path === undefined ? undefined : accounts[s.path];
      if (s.kind !== 'account' || !key) throw new Error(`lend IDL seed of ${ixName}.${account}: cannot resolve ${JSON.stringify(s)}`);
      return key.toBuffer();
    });
    const [address, bump] = PublicKey.findProgramAddressSync(seeds, LEND_PROGRAM);
    if (!address.equals(expected)) throw new Error(`lend IDL seeds of ${ixName}.${account} give ${address.toBase58()}, not ${expected.toBase58()}`);
    return bump;
  }

  /** Account data of `account` (e.g. `lending`): the IDL's discriminator, then its fields in IDL order. */
  account(account: string, values: Readonly<Record<string, IdlValue>>): Buffer {
    const disc = this.idl.accounts?.find((a) => a.name === account);
    const struct = this.idl.types?.find((t) => t.name === account);
    if (!disc || !struct?.type.fields) throw new Error(`the lend IDL has no account ${account}`);
    return Buffer.concat([Buffer.from(disc.discriminator), ...struct.type.fields.map((f) => encodeField(f.type, values[f.name], `${account}.${f.name}`))]);
  }
}

/** The fields of a `lending` account the guard reads: its asset, its share mint and the exchange price between them. */
export interface LendingAccount {
  mint: PublicKey;
  fTokenMint: PublicKey;
  /** Assets per share with rewards, EXCHANGE_PRICE_PRECISION scale (what a share is worth when it is redeemed). */
  tokenExchangePrice: bigint;
  /** Unix seconds of the last update of the prices. */
  lastUpdateTimestamp: bigint;
}

/** Reads a `lending` account by the SDK's IDL; undefined when the bytes are not one. */
export function decodeLendingAccount(data: Uint8Array): LendingAccount | undefined {
  const idl = lendIdl();
  const disc = idl.accounts?.find((a) => a.name === 'lending')?.discriminator;
  const fields = idl.types?.find((t) => t.name === 'lending')?.type.fields;
  if (!disc || !fields || !hasDiscriminator(data, disc)) return undefined;
  const b = Buffer.from(data);
  const widths: Record<string, number> = { pubkey: 32, u8: 1, u16: 2, u32: 4, u64: 8 };
  const values: Record<string, PublicKey | bigint> = {};
  let at = disc.length;
  for (const f of fields) {
    const width = typeof f.type === 'string' ? widths[f.type] : undefined;
    if (width === undefined || at + width > b.length) return undefined;
    values[f.name] = f.type === 'pubkey' ? new PublicKey(b.subarray(at, at + width)) : readUint(b, at, width);
    at += width;
  }
  const { mint, fTokenMint, tokenExchangePrice, lastUpdateTimestamp } = values;
  if (!(mint instanceof PublicKey) || !(fTokenMint instanceof PublicKey) || typeof tokenExchangePrice !== 'bigint' || typeof lastUpdateTimestamp !== 'bigint') return undefined;
  return { mint, fTokenMint, tokenExchangePrice, lastUpdateTimestamp };
}

function readUint(b: Buffer, at: number, width: number): bigint {
  let n = 0n;
  for (let i = width - 1; i >= 0; i -= 1) n = (n << 8n) | BigInt(b[at + i]!);
  return n;
}

/** Borsh encoding of the IDL's scalar types (the only ones the simulator writes). */
function encodeField(type: unknown, value: IdlValue | undefined, what: string): Buffer {
  if (value === undefined) throw new Error(`lend IDL: no value for ${what}`);
  if (type === 'pubkey') {
    if (!(value instanceof PublicKey)) throw new Error(`lend IDL: ${what} must be a public key`);
    return value.toBuffer();
  }
  if (value instanceof PublicKey) throw new Error(`lend IDL: ${what} must be an integer`);
  const n = BigInt(value);
  const widths: Record<string, number> = { u8: 1, u16: 2, u32: 4, u64: 8 };
  const width = typeof type === 'string' ? widths[type] : undefined;
  if (width === undefined) throw new Error(`lend IDL: ${what} has type ${JSON.stringify(type)}, which the simulator does not write`);
  if (n < 0n || n >= 1n << BigInt(width * 8)) throw new Error(`lend IDL: ${what} = ${n} does not fit in ${String(type)}`);
  const out = Buffer.alloc(width);
  for (let i = 0; i < width; i += 1) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}

/** Accounts of the Earn `deposit` and `mint` instructions (and their bounded variants), in the IDL's order (checked against the IDL when read). */
export const DEPOSIT_ACCOUNTS = ['signer', 'depositorTokenAccount', 'recipientTokenAccount', 'mint', 'lendingAdmin', 'lending', 'fTokenMint', 'supplyTokenReservesLiquidity', 'lendingSupplyPositionOnLiquidity', 'rateModel', 'vault', 'liquidity', 'liquidityProgram', 'rewardsRateModel', 'tokenProgram', 'associatedTokenProgram', 'systemProgram'] as const;
/** Accounts of the Earn `withdraw` and `redeem` instructions (and their bounded variants), in the IDL's order (checked likewise). */
export const WITHDRAW_ACCOUNTS = ['signer', 'ownerTokenAccount', 'recipientTokenAccount', 'lendingAdmin', 'lending', 'mint', 'fTokenMint', 'supplyTokenReservesLiquidity', 'lendingSupplyPositionOnLiquidity', 'rateModel', 'vault', 'claimAccount', 'liquidity', 'liquidityProgram', 'rewardsRateModel', 'tokenProgram', 'associatedTokenProgram', 'systemProgram'] as const;

/**
 * The user instructions of the Earn IDL, each with the operation it is and, for the four bounded variants, the name
 * of their second u64 argument (the bound the program enforces against the exchange price it computes on chain):
 * `depositWithMinAmountOut(assets, minAmountOut)`: at least that many shares or it fails; `mintWithMaxAssets(shares,
 * maxAssets)`: at most that much of the asset; `withdrawWithMaxSharesBurn(amount, maxSharesBurn)`: at most that many
 * shares burnt; `redeemWithMinAmountOut(shares, minAmountOut)`: at least that much of the asset paid.
 */
export const LEND_USER_INSTRUCTIONS = Object.freeze({
  deposit: { op: 'deposit', bound: null },
  depositWithMinAmountOut: { op: 'deposit', bound: 'minAmountOut' },
  mint: { op: 'mint', bound: null },
  mintWithMaxAssets: { op: 'mint', bound: 'maxAssets' },
  withdraw: { op: 'withdraw', bound: null },
  withdrawWithMaxSharesBurn: { op: 'withdraw', bound: 'maxSharesBurn' },
  redeem: { op: 'redeem', bound: null },
  redeemWithMinAmountOut: { op: 'redeem', bound: 'minAmountOut' },
} as const);
/** An Earn user instruction's IDL name (a plain operation or its bounded variant). */
export type LendUserInstruction = keyof typeof LEND_USER_INSTRUCTIONS;
/** The bound a bounded variant carries: its IDL argument name and value (base units of the shares or the asset). */
export interface LendBound {
  arg: 'minAmountOut' | 'maxAssets' | 'maxSharesBurn';
  value: bigint;
}

/** An instruction of the Earn program, read with its IDL: accounts by name (base58), the amount, the bound of a bounded variant. */
export type LendInstruction =
  /** `deposit` (argument `assets`) or `mint` (argument `shares`), or their bounded variants: asset in, jlTokens minted to `recipientTokenAccount`. */
  | { name: 'deposit' | 'mint'; idlName: LendUserInstruction; accounts: Record<(typeof DEPOSIT_ACCOUNTS)[number], string>; amount: bigint; bound: LendBound | null }
  /** `withdraw` (argument `amount`, of the asset) or `redeem` (argument `shares`), or their bounded variants: jlTokens burnt, asset paid to `recipientTokenAccount`. */
  | { name: 'withdraw' | 'redeem'; idlName: LendUserInstruction; accounts: Record<(typeof WITHDRAW_ACCOUNTS)[number], string>; amount: bigint; bound: LendBound | null }
  /** Another instruction of the IDL (an admin's, a rebalance): the guard never expects one. */
  | { name: 'other'; idlName: string };

/**
 * Reads an instruction of the Earn program with the SDK's IDL: undefined when it is another program's or no IDL
 * instruction has its discriminator; throws ProgramLayoutError when its data or accounts are too short for the IDL's
 * layout, or its data is longer (bytes no argument accounts for).
 */
export function decodeLendInstruction(ix: RawInstruction): LendInstruction | undefined {
  if (ix.programId !== LEND_PROGRAM.toBase58()) return undefined;
  const def = lendIdl().instructions.find((i) => hasDiscriminator(ix.data, i.discriminator));
  if (!def) return undefined;
  const user = def.name in LEND_USER_INSTRUCTIONS ? LEND_USER_INSTRUCTIONS[def.name as LendUserInstruction] : undefined;
  if (!user) return { name: 'other', idlName: def.name };
  const idlName = def.name as LendUserInstruction;
  const layout = user.op === 'deposit' || user.op === 'mint' ? DEPOSIT_ACCOUNTS : WITHDRAW_ACCOUNTS;
  if (def.accounts.map((a) => a.name).join(',') !== layout.join(',')) throw new Error(`the lend IDL's ${def.name} accounts are not the layout this module reads`);
  const width = user.bound === null ? 1 : 2;
  if (def.args.length !== width || def.args.some((a) => a.type !== 'u64') || (user.bound !== null && def.args[1]!.name !== user.bound)) {
    throw new Error(`the lend IDL's ${def.name} arguments are not the layout this module reads`);
  }
  const size = 8 + 8 * width;
  if (ix.data.length !== size) throw new ProgramLayoutError(ix.programId, def.name, `expected ${width} u64 argument${width === 1 ? '' : 's'} after the discriminator (${size} bytes); the data is ${ix.data.length} bytes`);
  const data = Buffer.from(ix.data);
  const amount = data.readBigUInt64LE(8);
  const bound = user.bound === null ? null : { arg: user.bound, value: data.readBigUInt64LE(16) };
  if (user.op === 'deposit' || user.op === 'mint') return { name: user.op, idlName, accounts: namedAccounts(ix, def.name, DEPOSIT_ACCOUNTS), amount, bound };
  return { name: user.op, idlName, accounts: namedAccounts(ix, def.name, WITHDRAW_ACCOUNTS), amount, bound };
}
