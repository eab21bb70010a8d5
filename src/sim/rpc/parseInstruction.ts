import bs58 from 'bs58';
import { PublicKey, SystemInstruction, SystemProgram, TransactionInstruction } from '@solana/web3.js';
import { TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../catalog.js';
import type { InnerInstructionList } from '../chain/chain.js';
import { IxAccounts, NotParsable, strictUtf8, type CompiledIx, type ParsedIx } from './instructionData.js';
import { parseToken } from './parseToken.js';

/** An instruction of a program Agave parses: `{program, programId, parsed, stackHeight}`. */
export interface UiParsedInstruction {
  program: string;
  programId: string;
  parsed: unknown;
  stackHeight: number | null;
}

/** Any other instruction, with its accounts resolved to keys and its data in base58. */
export interface UiPartiallyDecodedInstruction {
  programId: string;
  accounts: string[];
  data: string;
  stackHeight: number | null;
}

/** An instruction of the `json` encoding: indexes into the account keys, data in base58. */
export interface UiCompiledInstruction {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

const SYSTEM = 'System';
const ATA = 'SplAssociatedTokenAccount';

/** Agave's parsable programs this simulator parses, by program id: the name it reports and the parser. */
const PARSERS = new Map<string, [program: string, parse: (ix: CompiledIx, keys: readonly string[]) => unknown]>([
  [SystemProgram.programId.toBase58(), ['system', parseSystem]],
  [TOKEN_PROGRAM, ['spl-token', parseToken]],
  // Agave maps both token programs to one parser, so Token-2022 instructions are reported as "spl-token" too.
  [TOKEN_2022_PROGRAM, ['spl-token', parseToken]],
  ['ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', ['spl-associated-token-account', parseAssociatedToken]],
  ['Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo', ['spl-memo', parseMemo]],
  ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', ['spl-memo', parseMemo]],
]);

/**
 * An instruction as Agave's parse_ui_instruction shows it in jsonParsed answers: parsed for the programs it knows
 * (system, SPL Token and Token-2022, associated token accounts, memo), partially decoded for every other program
 * and for an instruction its parser refuses.
 */
export function parseUiInstruction(ix: CompiledIx, keys: readonly string[], stackHeight: number | null): UiParsedInstruction | UiPartiallyDecodedInstruction {
  const programId = keys[ix.programIdIndex] ?? '';
  const parser = PARSERS.get(programId);
  if (parser) {
    try {
      return { program: parser[0], programId, parsed: sortKeys(parser[1](ix, keys)), stackHeight };
    } catch (err) {
      if (!(err instanceof NotParsable)) throw err;
    }
  }
  return { programId, accounts: ix.accounts.map((i) => keys[i] ?? ''), data: bs58.encode(ix.data), stackHeight };
}

/** An instruction in the `json` encoding's compiled form. */
export function compiledUiInstruction(ix: CompiledIx, stackHeight: number | null): UiCompiledInstruction {
  return { programIdIndex: ix.programIdIndex, accounts: [...ix.accounts], data: bs58.encode(ix.data), stackHeight };
}

/**
 * Agave builds `parsed` with serde_json maps, which keep their keys sorted; the same order here makes answers
 * byte-comparable with a node's.
 */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Record<string, unknown>)[key]);
  return out;
}

/** A memo: its text, when the data is UTF-8 (Agave's parse_memo). */
function parseMemo(ix: CompiledIx): string {
  return strictUtf8(ix.data, 'SplMemo');
}

/** The associated token account program (Agave's parse_associated_token.rs): empty data is the legacy create. */
function parseAssociatedToken(ix: CompiledIx, keys: readonly string[]): ParsedIx {
  const a = new IxAccounts(ix, keys, ATA);
  // The instruction is a one-byte Borsh enum; anything longer does not deserialize.
  const kind = ix.data.length === 0 ? 0 : ix.data.length === 1 ? ix.data[0] : undefined;
  if (kind === 0 || kind === 1) {
    a.atLeast(6);
    const info = { source: a.key(0), account: a.key(1), wallet: a.key(2), mint: a.key(3), systemProgram: a.key(4), tokenProgram: a.key(5) };
    return { type: kind === 0 ? 'create' : 'createIdempotent', info };
  }
  if (kind === 2) {
    a.atLeast(7);
    const fields = ['nestedSource', 'nestedMint', 'destination', 'nestedOwner', 'ownerMint', 'wallet', 'tokenProgram'];
    return { type: 'recoverNested', info: Object.fromEntries(fields.map((f, i) => [f, a.key(i)])) };
  }
  throw new NotParsable(ATA);
}

/**
 * The system program (Agave's parse_system.rs). web3.js's SystemInstruction decodes the data; the account names and
 * the account counts required are Agave's, which web3.js's decoders do not all share.
 */
function parseSystem(ix: CompiledIx, keys: readonly string[]): ParsedIx {
  const a = new IxAccounts(ix, keys, SYSTEM);
  // The decoders read only the data and the number of keys; the keys' values come from `a`.
  const instruction = new TransactionInstruction({
    programId: SystemProgram.programId,
    keys: ix.accounts.map(() => ({ pubkey: PublicKey.default, isSigner: false, isWritable: false })),
    data: Buffer.from(ix.data),
  });
  const decode = <T>(accounts: number, decoder: (i: TransactionInstruction) => T): T => {
    a.atLeast(accounts);
    try {
      return decoder(instruction);
    } catch {
      throw new NotParsable(SYSTEM);
    }
  };
  let type: ReturnType<typeof SystemInstruction.decodeInstructionType>;
  try {
    type = SystemInstruction.decodeInstructionType(instruction);
  } catch {
    throw new NotParsable(SYSTEM);
  }
  switch (type) {
    case 'Create': {
      const d = decode(2, (i) => SystemInstruction.decodeCreateAccount(i));
      return { type: 'createAccount', info: { source: a.key(0), newAccount: a.key(1), lamports: d.lamports, space: d.space, owner: d.programId.toBase58() } };
    }
    case 'Assign':
      return { type: 'assign', info: { account: a.key(0), owner: decode(1, (i) => SystemInstruction.decodeAssign(i)).programId.toBase58() } };
    case 'Transfer':
      return { type: 'transfer', info: { source: a.key(0), destination: a.key(1), lamports: decode(2, (i) => SystemInstruction.decodeTransfer(i)).lamports } };
    case 'CreateWithSeed': {
      const d = decode(2, (i) => SystemInstruction.decodeCreateWithSeed(i));
      const info = { source: a.key(0), newAccount: a.key(1), base: d.basePubkey.toBase58(), seed: d.seed, lamports: d.lamports, space: d.space, owner: d.programId.toBase58() };
      return { type: 'createAccountWithSeed', info };
    }
    case 'AdvanceNonceAccount':
      decode(3, (i) => SystemInstruction.decodeNonceAdvance(i));
      return { type: 'advanceNonce', info: { nonceAccount: a.key(0), recentBlockhashesSysvar: a.key(1), nonceAuthority: a.key(2) } };
    case 'WithdrawNonceAccount': {
      const d = decode(5, (i) => SystemInstruction.decodeNonceWithdraw(i));
      const info = { nonceAccount: a.key(0), destination: a.key(1), recentBlockhashesSysvar: a.key(2), rentSysvar: a.key(3), nonceAuthority: a.key(4), lamports: d.lamports };
      return { type: 'withdrawFromNonce', info };
    }
    case 'InitializeNonceAccount': {
      const d = decode(3, (i) => SystemInstruction.decodeNonceInitialize(i));
      const info = { nonceAccount: a.key(0), recentBlockhashesSysvar: a.key(1), rentSysvar: a.key(2), nonceAuthority: d.authorizedPubkey.toBase58() };
      return { type: 'initializeNonce', info };
    }
    case 'AuthorizeNonceAccount': {
      const d = decode(2, (i) => SystemInstruction.decodeNonceAuthorize(i));
      return { type: 'authorizeNonce', info: { nonceAccount: a.key(0), nonceAuthority: a.key(1), newAuthorized: d.newAuthorizedPubkey.toBase58() } };
    }
    case 'UpgradeNonceAccount':
      a.atLeast(1);
      return { type: 'upgradeNonce', info: { nonceAccount: a.key(0) } };
    case 'Allocate':
      return { type: 'allocate', info: { account: a.key(0), space: decode(1, (i) => SystemInstruction.decodeAllocate(i)).space } };
    case 'AllocateWithSeed': {
      const d = decode(2, (i) => SystemInstruction.decodeAllocateWithSeed(i));
      return { type: 'allocateWithSeed', info: { account: a.key(0), base: d.basePubkey.toBase58(), seed: d.seed, space: d.space, owner: d.programId.toBase58() } };
    }
    case 'AssignWithSeed': {
      const d = decode(2, (i) => SystemInstruction.decodeAssignWithSeed(i));
      return { type: 'assignWithSeed', info: { account: a.key(0), base: d.basePubkey.toBase58(), seed: d.seed, owner: d.programId.toBase58() } };
    }
    case 'TransferWithSeed': {
      const d = decode(3, (i) => SystemInstruction.decodeTransferWithSeed(i));
      const info = { source: a.key(0), sourceBase: a.key(1), destination: a.key(2), lamports: d.lamports, sourceSeed: d.seed, sourceOwner: d.programId.toBase58() };
      return { type: 'transferWithSeed', info };
    }
  }
}

/** The inner instructions of one top-level instruction, as answers carry them. */
export interface UiInnerInstructions {
  index: number;
  instructions: Array<UiParsedInstruction | UiPartiallyDecodedInstruction | UiCompiledInstruction>;
}

/**
 * Inner instructions as Agave answers them (map_inner_instructions, then parse_ui_inner_instructions for
 * jsonParsed): one entry per top-level instruction that made CPIs, in order, none for those that made none.
 * `keys` are the transaction's account keys, loaded ones included, in base58.
 */
export function uiInnerInstructions(list: InnerInstructionList, keys: readonly string[], encoding: 'jsonParsed' | 'json'): UiInnerInstructions[] {
  const out: UiInnerInstructions[] = [];
  list.forEach((instructions, index) => {
    if (instructions.length === 0) return;
    out.push({
      index,
      instructions: instructions.map((ix) => (encoding === 'jsonParsed' ? parseUiInstruction(ix, keys, ix.stackHeight) : compiledUiInstruction(ix, ix.stackHeight))),
    });
  });
  return out;
}
