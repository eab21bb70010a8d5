import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { DCA_SEED_KEY, IDL } from '@jup-ag/dca-sdk';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '../../solana/tokenPrograms.js';
import { anchorDiscriminator } from './borsh.js';
import { hasDiscriminator, namedAccounts, ProgramLayoutError, type RawInstruction } from './instruction.js';

/**
 * The Jupiter DCA program (DCA265Vj…) behind the Recurring API, as the simulator writes it and the guard reads it: its instructions and its
 * `dca` account encoded from the IDL that @jup-ag/dca-sdk ships (field order and types come from the IDL, the 8-byte
 * discriminators are Anchor's), and the order address derived with the seeds the SDK uses. Nothing here is a
 * hand-copied layout; test/sim/recurring-program.test.ts checks the bytes against the SDK's own Anchor coder and a
 * transaction the real service handed out.
 */

/** The DCA program id. */
export const RECURRING_PROGRAM = new PublicKey(PROGRAM_IDS.jupiterRecurring);
/** Anchor's event authority of the program (`__event_authority`), an account of every instruction. */
export const RECURRING_EVENT_AUTHORITY = PublicKey.findProgramAddressSync([Buffer.from('__event_authority')], RECURRING_PROGRAM)[0];
/** The program's fee on each fill, bps of the output (jupiter-api.md §6: 0.1 %). */
export const RECURRING_FEE_BPS = 10n;

/** A value of an IDL field: integers as bigint, keys as PublicKey, `null` for an empty option. */
type IdlValue = bigint | number | boolean | PublicKey | null;
type IdlType = string | { option: IdlType } | { defined: string };
interface IdlField {
  name: string;
  type: IdlType;
}

/** The `dca` account's fields, as the program stores them (amounts in base units, times in unix seconds). */
export interface DcaAccount {
  user: PublicKey;
  inputMint: PublicKey;
  outputMint: PublicKey;
  idx: bigint;
  nextCycleAt: bigint;
  inDeposited: bigint;
  inWithdrawn: bigint;
  outWithdrawn: bigint;
  inUsed: bigint;
  outReceived: bigint;
  inAmountPerCycle: bigint;
  cycleFrequency: bigint;
  nextCycleAmountLeft: bigint;
  inAccount: PublicKey;
  outAccount: PublicKey;
  minOutAmount: bigint;
  maxOutAmount: bigint;
  keeperInBalanceBeforeBorrow: bigint;
  dcaOutBalanceBeforeSwap: bigint;
  createdAt: bigint;
  bump: number;
}

/** Terms of `openDcaV2`: what the service asks the program to open (out amounts per cycle, 0 or null: none). */
export interface OpenDcaArgs {
  applicationIdx: bigint;
  inAmount: bigint;
  inAmountPerCycle: bigint;
  cycleFrequency: bigint;
  minPrice: bigint | null;
  maxPrice: bigint | null;
  startAt: bigint | null;
}

/** The order account of a user's DCA: seeds `["dca", user, inputMint, outputMint, idx as u64 LE]` (the SDK's). */
export function dcaAddress(user: PublicKey, inputMint: PublicKey, outputMint: PublicKey, idx: bigint): { address: PublicKey; bump: number } {
  const uid = Buffer.alloc(8);
  uid.writeBigUInt64LE(idx);
  const [address, bump] = PublicKey.findProgramAddressSync([Buffer.from(DCA_SEED_KEY), user.toBuffer(), inputMint.toBuffer(), outputMint.toBuffer(), uid], RECURRING_PROGRAM);
  return { address, bump };
}

/**
 * Size of a `dca` account, bytes: Anchor's 8-byte discriminator and the IDL's fields, every one of a fixed size (an
 * order the program opens is this size; the guard holds the rent a wallet pays for one to it).
 */
export const DCA_ACCOUNT_SIZE: bigint = (() => {
  const def = IDL.accounts.find((a) => a.name === 'dca');
  if (!def) throw new Error('the DCA IDL has no dca account');
  const width: Record<string, number> = { u64: 8, i64: 8, u8: 1, bool: 1, publicKey: 32 };
  return BigInt(8 + (def.type.fields as readonly IdlField[]).reduce((sum, f) => {
    const w = typeof f.type === 'string' ? width[f.type] : undefined;
    if (w === undefined) throw new Error(`the DCA IDL's dca.${f.name} is not of a fixed size`);
    return sum + w;
  }, 0));
})();

/** The `dca` account's bytes: Anchor's discriminator, then the IDL's fields in order. */
export function encodeDcaAccount(account: DcaAccount): Buffer {
  const def = IDL.accounts.find((a) => a.name === 'dca');
  if (!def) throw new Error('the DCA IDL has no dca account');
  return Buffer.concat([anchorDiscriminator('account', 'Dca'), encodeFields(def.type.fields, account as unknown as Record<string, IdlValue>)]);
}

/** Reads a `dca` account written by encodeDcaAccount (or the program); undefined when the bytes are not one. */
export function decodeDcaAccount(data: Uint8Array): DcaAccount | undefined {
  const def = IDL.accounts.find((a) => a.name === 'dca');
  const bytes = Buffer.from(data);
  if (!def || bytes.length < 8 || !bytes.subarray(0, 8).equals(anchorDiscriminator('account', 'Dca'))) return undefined;
  const out: Record<string, IdlValue> = {};
  let offset = 8;
  for (const f of def.type.fields as readonly IdlField[]) {
    const [value, next] = decodeValue(f.type, bytes, offset);
    out[f.name] = value;
    offset = next;
  }
  return out as unknown as DcaAccount;
}

/** `openDcaV2`: accounts in the IDL's order (the user pays), data the discriminator and the IDL's args. */
export function openDcaV2Instruction(a: { dca: PublicKey; user: PublicKey; inputMint: PublicKey; outputMint: PublicKey; userAta: PublicKey; inAta: PublicKey; outAta: PublicKey; tokenProgram: PublicKey }, args: OpenDcaArgs): TransactionInstruction {
  return idlInstruction('openDcaV2', { ...a, payer: a.user }, args as unknown as Record<string, IdlValue>);
}

/** The data of `openDcaV2`: its discriminator, then the IDL's args in order. */
export function openDcaV2Data(args: OpenDcaArgs): Buffer {
  const def = IDL.instructions.find((i) => i.name === 'openDcaV2');
  if (!def) throw new Error('the DCA IDL has no openDcaV2 instruction');
  return Buffer.concat([anchorDiscriminator('global', 'open_dca_v2'), encodeFields(def.args, args as unknown as Record<string, IdlValue>)]);
}

/** `closeDca`: the user closes the order and gets back what it holds. */
export function closeDcaInstruction(a: { user: PublicKey; dca: PublicKey; inputMint: PublicKey; outputMint: PublicKey; inAta: PublicKey; outAta: PublicKey; userInAta: PublicKey; userOutAta: PublicKey; tokenProgram: PublicKey }): TransactionInstruction {
  return idlInstruction('closeDca', a, {});
}

function idlInstruction(name: 'openDcaV2' | 'closeDca', accounts: Record<string, PublicKey>, args: Record<string, IdlValue>): TransactionInstruction {
  const def = IDL.instructions.find((i) => i.name === name);
  if (!def) throw new Error(`the DCA IDL has no ${name} instruction`);
  const fixed: Record<string, PublicKey> = {
    systemProgram: new PublicKey(PROGRAM_IDS.system),
    associatedTokenProgram: ASSOCIATED_TOKEN_PROGRAM_ID,
    eventAuthority: RECURRING_EVENT_AUTHORITY,
    program: RECURRING_PROGRAM,
  };
  const keys = def.accounts.map((acc) => {
    const pubkey = accounts[acc.name] ?? fixed[acc.name];
    if (!pubkey) throw new Error(`${name}: no account given for ${acc.name}`);
    return { pubkey, isSigner: acc.isSigner, isWritable: acc.isMut };
  });
  const data = Buffer.concat([anchorDiscriminator('global', snakeCase(name)), encodeFields(def.args, args)]);
  return new TransactionInstruction({ programId: RECURRING_PROGRAM, keys, data });
}

/** Anchor names instructions in snake case for their discriminator ("openDcaV2" -> "open_dca_v2"). */
function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase();
}

function encodeFields(fields: readonly IdlField[], values: Record<string, IdlValue>): Buffer {
  return Buffer.concat(fields.map((f) => encodeValue(f.type, values[f.name], f.name)));
}

function encodeValue(type: IdlType, value: IdlValue | undefined, name: string): Buffer {
  if (typeof type === 'object' && 'option' in type) {
    return value === null || value === undefined ? Buffer.from([0]) : Buffer.concat([Buffer.from([1]), encodeValue(type.option, value, name)]);
  }
  const b = Buffer.alloc(type === 'publicKey' ? 32 : type === 'u8' || type === 'bool' ? 1 : 8);
  switch (type) {
    case 'u64':
      b.writeBigUInt64LE(BigInt(value as bigint));
      return b;
    case 'i64':
      b.writeBigInt64LE(BigInt(value as bigint));
      return b;
    case 'u8':
      b.writeUInt8(Number(value));
      return b;
    case 'bool':
      b.writeUInt8(value ? 1 : 0);
      return b;
    case 'publicKey':
      if (!(value instanceof PublicKey)) throw new TypeError(`${name} must be a PublicKey`);
      return value.toBuffer();
    default:
      throw new TypeError(`${name}: IDL type ${JSON.stringify(type)} is not one the simulator writes`);
  }
}

function decodeValue(type: IdlType, b: Buffer, offset: number): [IdlValue, number] {
  if (typeof type === 'object' && 'option' in type) return b[offset] === 0 ? [null, offset + 1] : decodeValue(type.option, b, offset + 1);
  switch (type) {
    case 'u64':
      return [b.readBigUInt64LE(offset), offset + 8];
    case 'i64':
      return [b.readBigInt64LE(offset), offset + 8];
    case 'u8':
      return [b.readUInt8(offset), offset + 1];
    case 'bool':
      return [b.readUInt8(offset) !== 0, offset + 1];
    case 'publicKey':
      return [new PublicKey(b.subarray(offset, offset + 32)), offset + 32];
    default:
      throw new TypeError(`IDL type ${JSON.stringify(type)} is not one the simulator reads`);
  }
}

/** Accounts of `openDcaV2`, in the IDL's order (checked against the SDK's IDL when this module loads). */
export const OPEN_DCA_V2_ACCOUNTS = ['dca', 'user', 'payer', 'inputMint', 'outputMint', 'userAta', 'inAta', 'outAta', 'systemProgram', 'tokenProgram', 'associatedTokenProgram', 'eventAuthority', 'program'] as const;
/** Accounts of `closeDca`, in the IDL's order (checked likewise). */
export const CLOSE_DCA_ACCOUNTS = ['user', 'dca', 'inputMint', 'outputMint', 'inAta', 'outAta', 'userInAta', 'userOutAta', 'systemProgram', 'tokenProgram', 'associatedTokenProgram', 'eventAuthority', 'program'] as const;
assertIdlAccounts('openDcaV2', OPEN_DCA_V2_ACCOUNTS);
assertIdlAccounts('closeDca', CLOSE_DCA_ACCOUNTS);

/** The discriminators of the instructions the decoder reads. */
export const RECURRING_DISCRIMINATORS = Object.freeze({ openDcaV2: anchorDiscriminator('global', 'open_dca_v2'), closeDca: anchorDiscriminator('global', 'close_dca') });

/** An instruction of the DCA program, read: its name, accounts by their IDL names (base58) and arguments. */
export type RecurringInstruction =
  | { name: 'openDcaV2'; accounts: Record<(typeof OPEN_DCA_V2_ACCOUNTS)[number], string>; args: OpenDcaArgs }
  | { name: 'closeDca'; accounts: Record<(typeof CLOSE_DCA_ACCOUNTS)[number], string> }
  /** Another instruction of the program (the IDL names it; the guard never expects one). */
  | { name: 'other'; idlName: string };

/**
 * Reads an instruction of the DCA program with the SDK's IDL: undefined when it is another program's or no IDL
 * instruction has its discriminator; throws ProgramLayoutError when its data or accounts are too short.
 */
export function decodeRecurringInstruction(ix: RawInstruction): RecurringInstruction | undefined {
  if (ix.programId !== RECURRING_PROGRAM.toBase58()) return undefined;
  if (hasDiscriminator(ix.data, RECURRING_DISCRIMINATORS.openDcaV2)) {
    const accounts = namedAccounts(ix, 'openDcaV2', OPEN_DCA_V2_ACCOUNTS);
    const def = IDL.instructions.find((i) => i.name === 'openDcaV2')!;
    const values: Record<string, IdlValue> = {};
    const bytes = Buffer.from(ix.data);
    let offset = 8;
    try {
      for (const f of def.args as readonly IdlField[]) {
        const [value, next] = decodeValue(f.type, bytes, offset);
        values[f.name] = value;
        offset = next;
      }
    } catch (err) {
      throw new ProgramLayoutError(ix.programId, 'openDcaV2', err instanceof Error ? err.message : String(err));
    }
    const opt = (k: string): bigint | null => {
      const v = values[k];
      if (v === null) return null;
      if (typeof v !== 'bigint') throw new ProgramLayoutError(ix.programId, 'openDcaV2', `${k} is not an integer in the IDL`);
      return v;
    };
    const big = (k: string): bigint => {
      const v = opt(k);
      if (v === null) throw new ProgramLayoutError(ix.programId, 'openDcaV2', `${k} is missing`);
      return v;
    };
    return { name: 'openDcaV2', accounts, args: { applicationIdx: big('applicationIdx'), inAmount: big('inAmount'), inAmountPerCycle: big('inAmountPerCycle'), cycleFrequency: big('cycleFrequency'), minPrice: opt('minPrice'), maxPrice: opt('maxPrice'), startAt: opt('startAt') } };
  }
  if (hasDiscriminator(ix.data, RECURRING_DISCRIMINATORS.closeDca)) return { name: 'closeDca', accounts: namedAccounts(ix, 'closeDca', CLOSE_DCA_ACCOUNTS) };
  const other = IDL.instructions.find((i) => hasDiscriminator(ix.data, anchorDiscriminator('global', snakeCase(i.name))));
  return other ? { name: 'other', idlName: other.name } : undefined;
}

function assertIdlAccounts(name: string, expected: readonly string[]): void {
  const names = IDL.instructions.find((i) => i.name === name)?.accounts.map((a) => a.name) ?? [];
  if (names.join(',') !== expected.join(',')) throw new Error(`the DCA IDL's ${name} accounts are ${names.join(', ')}, not the layout this module reads`);
}
