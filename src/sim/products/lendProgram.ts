import { Connection, PublicKey, TransactionInstruction } from '@solana/web3.js';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { lendingPda, lendingRewardRateModelPda, liquidityPda } from '@jup-ag/lend';
import { getLendingProgram } from '@jup-ag/lend/earn';
import { silentLogger } from '../../lib/logger.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { dispatchJsonRpc, rpcMethods } from '../rpc/index.js';
import type { Venue } from '../venue.js';

/*
 * The Jupiter Lend Earn program (jup3YeL8…) as the simulator writes it. Nothing here is a hand-copied layout: the
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
interface LendIdl {
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

/**
 * A web3.js Connection whose requests the simulator's own JSON-RPC methods answer in-process: the SDK's builders
 * read the chain through it exactly as they would read a validator (they ask for the asset mint's owner).
 */
export function chainConnection(venue: Venue): Connection {
  const env = { venue, logger: silentLogger };
  const onInternalError = (): void => undefined;
  return new Connection('http://simulator.invalid/rpc', {
    commitment: 'confirmed',
    fetch: async (_input, init) => {
      const text = typeof init?.body === 'string' ? init.body : '';
      const answer = await dispatchJsonRpc(text, rpcMethods, env, { onInternalError });
      return new Response(answer ?? '', { status: 200, headers: { 'content-type': 'application/json' } });
    },
  });
}

/** The Earn program's IDL (camelCase, as Anchor presents it) and encoders driven by it. */
export class LendProgramCodec {
  private readonly idl: LendIdl;

  constructor(connection: Connection) {
    // The SDK's Program wraps the IDL; building it reads nothing from the chain.
    this.idl = getLendingProgram({ connection }).idl;
  }

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
