import { createHash } from 'node:crypto';
import { PublicKey, TransactionInstruction } from '@solana/web3.js';
import { ASSOCIATED_TOKEN_PROGRAM_ID } from '@solana/spl-token';
import { DCA_SEED_KEY, IDL } from '@jup-ag/dca-sdk';
import { PROGRAM_IDS } from '../../lib/programIds.js';

/**
 * The Jupiter DCA program (DCA265Vj…) behind the Recurring API, as the simulator writes it: its instructions and its
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

/** The `dca` account's bytes: Anchor's discriminator, then the IDL's fields in order. */
export function encodeDcaAccount(account: DcaAccount): Buffer {
  const def = IDL.accounts.find((a) => a.name === 'dca');
  if (!def) throw new Error('the DCA IDL has no dca account');
  return Buffer.concat([discriminator('account', 'Dca'), encodeFields(def.type.fields, account as unknown as Record<string, IdlValue>)]);
}

/** Reads a `dca` account written by encodeDcaAccount (or the program); undefined when the bytes are not one. */
export function decodeDcaAccount(data: Uint8Array): DcaAccount | undefined {
  const def = IDL.accounts.find((a) => a.name === 'dca');
  const bytes = Buffer.from(data);
  if (!def || bytes.length < 8 || !bytes.subarray(0, 8).equals(discriminator('account', 'Dca'))) return undefined;
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
  const data = Buffer.concat([discriminator('global', snakeCase(name)), encodeFields(def.args, args)]);
  return new TransactionInstruction({ programId: RECURRING_PROGRAM, keys, data });
}

/** Anchor's discriminator: the first 8 bytes of sha256("<namespace>:<name>"). */
function discriminator(namespace: 'global' | 'account', name: string): Buffer {
  return createHash('sha256').update(`${namespace}:${name}`).digest().subarray(0, 8);
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
