import bs58 from 'bs58';
import { PublicKey, SystemInstruction, TransactionInstruction } from '@solana/web3.js';
import { decodeInstruction, TokenInstruction, AuthorityType } from '@solana/spl-token';
import { PROGRAM_IDS } from './programs.js';

/**
 * What one system or token instruction (top level or CPI) does to balances and authorities, as the guard follows
 * it. Addresses are base58, amounts base units. Instructions of other programs move nothing by themselves: the
 * programs reach the wallet's lamports and tokens only through the system and token programs, whose instructions
 * (their CPIs included) are what this describes.
 */
export type FlowEvent =
  /** A system transfer (also a nonce withdrawal). */
  | { kind: 'lamports'; from: string; to: string; amount: bigint }
  /** A system account created and funded by `from` (rent), owned by `owner` afterwards. */
  | { kind: 'create'; from: string; account: string; amount: bigint; space: bigint; owner: string }
  /** A token transfer out of `from` (a token account). */
  | { kind: 'tokens'; from: string; to: string; amount: bigint }
  | { kind: 'burn'; account: string; amount: bigint }
  /** New tokens of `mint` minted into `to` (a token account). */
  | { kind: 'mint'; mint: string; to: string; amount: bigint }
  /** A token account closed: its lamports (and wrapped SOL) go to `destination`. */
  | { kind: 'close'; account: string; destination: string }
  /** A token account initialised for `owner`. */
  | { kind: 'init'; account: string; mint: string; owner: string }
  /** Assign or allocate of a system account: it would stop being a plain wallet. */
  | { kind: 'system-change'; account: string; what: string }
  /** An authority or state of a token account changes (approve, set authority, freeze). */
  | { kind: 'token-change'; account: string; what: string; newOwner?: string | null }
  /** A system or token instruction the guard does not understand, with every address it names. */
  | { kind: 'unknown'; program: string; what: string; accounts: string[] };

/** One instruction as the guard reads it: raw (a message's own, or an undecoded CPI), or parsed by the RPC node. */
export type GuardInstruction =
  | { form: 'raw'; programId: string; accounts: string[]; data: Uint8Array }
  | { form: 'parsed'; programId: string; program: string; type: string; info: Record<string, unknown> };

const TOKEN_PROGRAMS = new Set<string>([PROGRAM_IDS.splToken, PROGRAM_IDS.token2022]);
/** Token instructions that move nothing out of an account and change no authority. */
const HARMLESS_TOKEN = new Set<number>([
  TokenInstruction.InitializeMint,
  TokenInstruction.InitializeMint2,
  TokenInstruction.SyncNative,
  TokenInstruction.Revoke,
  TokenInstruction.ThawAccount,
  TokenInstruction.AmountToUiAmount,
  TokenInstruction.UiAmountToAmount,
  TokenInstruction.GetAccountDataSize,
  TokenInstruction.InitializeImmutableOwner,
]);
const HARMLESS_PARSED = new Set(['initializeMint', 'initializeMint2', 'syncNative', 'revoke', 'thawAccount', 'amountToUiAmount', 'uiAmountToAmount', 'getAccountDataSize', 'initializeImmutableOwner', 'initializeMultisig', 'initializeMultisig2', 'advanceNonce', 'initializeNonce', 'authorizeNonce', 'upgradeNonce']);

/**
 * A CPI as the RPC node returns it from `simulateTransaction` with `innerInstructions: true` (JSON as sent: parsed
 * for the programs the node can parse, partially decoded with base58 data for the others). Throws on any other
 * shape.
 */
export function fromUiInstruction(ix: unknown): GuardInstruction {
  const o = ix as { programId?: unknown; program?: unknown; parsed?: unknown; accounts?: unknown; data?: unknown } | null;
  if (!o || typeof o !== 'object' || typeof o.programId !== 'string') throw new TypeError('an inner instruction without a program id');
  if ('parsed' in o) {
    const parsed: unknown = o.parsed;
    const body = typeof parsed === 'object' && parsed !== null ? (parsed as { type?: unknown; info?: unknown }) : {};
    return {
      form: 'parsed',
      programId: o.programId,
      program: typeof o.program === 'string' ? o.program : '',
      type: typeof body.type === 'string' ? body.type : typeof parsed === 'string' ? 'memo' : '(unparsed)',
      info: typeof body.info === 'object' && body.info !== null ? (body.info as Record<string, unknown>) : {},
    };
  }
  if (!Array.isArray(o.accounts) || !o.accounts.every((a) => typeof a === 'string') || typeof o.data !== 'string') throw new TypeError('an inner instruction without accounts or data');
  return { form: 'raw', programId: o.programId, accounts: o.accounts, data: bs58.decode(o.data) };
}

/** What an instruction does, as flow events (none for programs other than system and token). */
export function flowEventsOf(ix: GuardInstruction): FlowEvent[] {
  if (ix.programId === PROGRAM_IDS.system) return ix.form === 'raw' ? rawSystem(ix) : parsedSystem(ix);
  if (TOKEN_PROGRAMS.has(ix.programId)) return ix.form === 'raw' ? rawToken(ix) : parsedToken(ix);
  return [];
}

function unknown(ix: GuardInstruction, what: string): FlowEvent[] {
  const accounts = ix.form === 'raw' ? ix.accounts : addressesIn(ix.info);
  return [{ kind: 'unknown', program: ix.programId, what, accounts }];
}

function rawSystem(ix: Extract<GuardInstruction, { form: 'raw' }>): FlowEvent[] {
  const instruction = new TransactionInstruction({
    programId: new PublicKey(ix.programId),
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a), isSigner: false, isWritable: false })),
    data: Buffer.from(ix.data),
  });
  try {
    const type = SystemInstruction.decodeInstructionType(instruction);
    switch (type) {
      case 'Transfer': {
        const d = SystemInstruction.decodeTransfer(instruction);
        return [{ kind: 'lamports', from: d.fromPubkey.toBase58(), to: d.toPubkey.toBase58(), amount: d.lamports }];
      }
      case 'TransferWithSeed': {
        const d = SystemInstruction.decodeTransferWithSeed(instruction);
        return [{ kind: 'lamports', from: d.fromPubkey.toBase58(), to: d.toPubkey.toBase58(), amount: d.lamports }];
      }
      case 'Create': {
        const d = SystemInstruction.decodeCreateAccount(instruction);
        return [{ kind: 'create', from: d.fromPubkey.toBase58(), account: d.newAccountPubkey.toBase58(), amount: BigInt(d.lamports), space: BigInt(d.space), owner: d.programId.toBase58() }];
      }
      case 'CreateWithSeed': {
        const d = SystemInstruction.decodeCreateWithSeed(instruction);
        return [{ kind: 'create', from: d.fromPubkey.toBase58(), account: d.newAccountPubkey.toBase58(), amount: BigInt(d.lamports), space: BigInt(d.space), owner: d.programId.toBase58() }];
      }
      case 'Assign':
        return [{ kind: 'system-change', account: SystemInstruction.decodeAssign(instruction).accountPubkey.toBase58(), what: 'assign' }];
      case 'AssignWithSeed':
        return [{ kind: 'system-change', account: SystemInstruction.decodeAssignWithSeed(instruction).accountPubkey.toBase58(), what: 'assignWithSeed' }];
      case 'Allocate':
        return [{ kind: 'system-change', account: SystemInstruction.decodeAllocate(instruction).accountPubkey.toBase58(), what: 'allocate' }];
      case 'AllocateWithSeed':
        return [{ kind: 'system-change', account: SystemInstruction.decodeAllocateWithSeed(instruction).accountPubkey.toBase58(), what: 'allocateWithSeed' }];
      case 'WithdrawNonceAccount': {
        const d = SystemInstruction.decodeNonceWithdraw(instruction);
        return [{ kind: 'lamports', from: d.noncePubkey.toBase58(), to: d.toPubkey.toBase58(), amount: BigInt(d.lamports) }];
      }
      case 'AdvanceNonceAccount':
      case 'InitializeNonceAccount':
      case 'AuthorizeNonceAccount':
      case 'UpgradeNonceAccount':
        return [];
    }
  } catch {
    // falls through: undecodable
  }
  return unknown(ix, `system instruction ${ix.data.length >= 4 ? Buffer.from(ix.data).readUInt32LE(0) : '(short)'}`);
}

function rawToken(ix: Extract<GuardInstruction, { form: 'raw' }>): FlowEvent[] {
  const type = ix.data[0];
  if (type !== undefined && HARMLESS_TOKEN.has(type)) return [];
  const programId = new PublicKey(ix.programId);
  const instruction = new TransactionInstruction({
    programId,
    keys: ix.accounts.map((a) => ({ pubkey: new PublicKey(a), isSigner: false, isWritable: false })),
    data: Buffer.from(ix.data),
  });
  let d: ReturnType<typeof decodeInstruction>;
  try {
    d = decodeInstruction(instruction, programId);
  } catch {
    return unknown(ix, `token instruction ${type ?? '(empty)'}`);
  }
  const k = (p: PublicKey) => p.toBase58();
  switch (d.data.instruction) {
    case TokenInstruction.Transfer:
    case TokenInstruction.TransferChecked: {
      const keys = d.keys as { source: { pubkey: PublicKey }; destination: { pubkey: PublicKey } };
      return [{ kind: 'tokens', from: k(keys.source.pubkey), to: k(keys.destination.pubkey), amount: BigInt((d.data as { amount: bigint }).amount) }];
    }
    case TokenInstruction.Burn:
    case TokenInstruction.BurnChecked: {
      const keys = d.keys as { account: { pubkey: PublicKey } };
      return [{ kind: 'burn', account: k(keys.account.pubkey), amount: BigInt((d.data as { amount: bigint }).amount) }];
    }
    case TokenInstruction.MintTo:
    case TokenInstruction.MintToChecked: {
      const keys = d.keys as { mint: { pubkey: PublicKey }; destination: { pubkey: PublicKey } };
      return [{ kind: 'mint', mint: k(keys.mint.pubkey), to: k(keys.destination.pubkey), amount: BigInt((d.data as { amount: bigint }).amount) }];
    }
    case TokenInstruction.CloseAccount: {
      const keys = d.keys as { account: { pubkey: PublicKey }; destination: { pubkey: PublicKey } };
      return [{ kind: 'close', account: k(keys.account.pubkey), destination: k(keys.destination.pubkey) }];
    }
    case TokenInstruction.InitializeAccount:
    case TokenInstruction.InitializeAccount2:
    case TokenInstruction.InitializeAccount3: {
      const keys = d.keys as { account: { pubkey: PublicKey }; mint: { pubkey: PublicKey }; owner?: { pubkey: PublicKey } };
      const owner = 'owner' in d.data ? (d.data as { owner: PublicKey }).owner : keys.owner?.pubkey;
      if (!owner) return unknown(ix, 'initializeAccount without an owner');
      return [{ kind: 'init', account: k(keys.account.pubkey), mint: k(keys.mint.pubkey), owner: k(owner) }];
    }
    case TokenInstruction.Approve:
    case TokenInstruction.ApproveChecked:
      return [{ kind: 'token-change', account: k((d.keys as { account: { pubkey: PublicKey } }).account.pubkey), what: 'approve' }];
    case TokenInstruction.SetAuthority: {
      const data = d.data as { authorityType: AuthorityType; newAuthority: PublicKey | null };
      const account = k((d.keys as { account: { pubkey: PublicKey } }).account.pubkey);
      const owner = data.authorityType === AuthorityType.AccountOwner;
      return [{ kind: 'token-change', account, what: `setAuthority(${AuthorityType[data.authorityType] ?? data.authorityType})`, ...(owner ? { newOwner: data.newAuthority ? k(data.newAuthority) : null } : {}) }];
    }
    case TokenInstruction.FreezeAccount:
      return [{ kind: 'token-change', account: k((d.keys as { account: { pubkey: PublicKey } }).account.pubkey), what: 'freeze' }];
    default:
      return unknown(ix, `token instruction ${d.data.instruction}`);
  }
}

function str(info: Record<string, unknown>, key: string): string | undefined {
  const v = info[key];
  return typeof v === 'string' ? v : undefined;
}

/** An amount field of a parsed instruction: a number (lamports), a digit string, or a UiTokenAmount. */
function amountOf(info: Record<string, unknown>, key: string): bigint | undefined {
  const v = info[key];
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  if (typeof v === 'object' && v !== null && 'amount' in v) return amountOf(v, 'amount');
  return undefined;
}

function parsedSystem(ix: Extract<GuardInstruction, { form: 'parsed' }>): FlowEvent[] {
  const { info } = ix;
  switch (ix.type) {
    case 'transfer':
    case 'transferWithSeed':
    case 'withdrawFromNonce': {
      const from = str(info, ix.type === 'withdrawFromNonce' ? 'nonceAccount' : 'source');
      const to = str(info, 'destination');
      const amount = amountOf(info, 'lamports');
      if (from && to && amount !== undefined) return [{ kind: 'lamports', from, to, amount }];
      break;
    }
    case 'createAccount':
    case 'createAccountWithSeed': {
      const from = str(info, 'source');
      const account = str(info, 'newAccount');
      const amount = amountOf(info, 'lamports');
      const space = amountOf(info, 'space');
      const owner = str(info, 'owner');
      if (from && account && amount !== undefined && space !== undefined && owner) return [{ kind: 'create', from, account, amount, space, owner }];
      break;
    }
    case 'assign':
    case 'assignWithSeed':
    case 'allocate':
    case 'allocateWithSeed': {
      const account = str(info, 'account');
      if (account) return [{ kind: 'system-change', account, what: ix.type }];
      break;
    }
    default:
      if (HARMLESS_PARSED.has(ix.type)) return [];
  }
  return unknown(ix, `system ${ix.type}`);
}

function parsedToken(ix: Extract<GuardInstruction, { form: 'parsed' }>): FlowEvent[] {
  const { info } = ix;
  switch (ix.type) {
    case 'transfer':
    case 'transferChecked':
    case 'transferCheckedWithFee': {
      const from = str(info, 'source');
      const to = str(info, 'destination');
      const amount = amountOf(info, ix.type === 'transfer' ? 'amount' : 'tokenAmount');
      if (from && to && amount !== undefined) return [{ kind: 'tokens', from, to, amount }];
      break;
    }
    case 'burn':
    case 'burnChecked': {
      const account = str(info, 'account');
      const amount = amountOf(info, ix.type === 'burn' ? 'amount' : 'tokenAmount');
      if (account && amount !== undefined) return [{ kind: 'burn', account, amount }];
      break;
    }
    case 'closeAccount': {
      const account = str(info, 'account');
      const destination = str(info, 'destination');
      if (account && destination) return [{ kind: 'close', account, destination }];
      break;
    }
    case 'mintTo':
    case 'mintToChecked': {
      const mint = str(info, 'mint');
      const to = str(info, 'account');
      const amount = amountOf(info, ix.type === 'mintTo' ? 'amount' : 'tokenAmount');
      if (mint && to && amount !== undefined) return [{ kind: 'mint', mint, to, amount }];
      break;
    }
    case 'initializeAccount':
    case 'initializeAccount2':
    case 'initializeAccount3': {
      const account = str(info, 'account');
      const mint = str(info, 'mint');
      const owner = str(info, 'owner');
      if (account && mint && owner) return [{ kind: 'init', account, mint, owner }];
      break;
    }
    case 'approve':
    case 'approveChecked': {
      const account = str(info, 'source');
      if (account) return [{ kind: 'token-change', account, what: 'approve' }];
      break;
    }
    case 'setAuthority': {
      const account = str(info, 'account') ?? str(info, 'mint');
      const type = str(info, 'authorityType') ?? '?';
      if (account) {
        const newOwner = type === 'accountOwner' ? (str(info, 'newAuthority') ?? null) : undefined;
        return [{ kind: 'token-change', account, what: `setAuthority(${type})`, ...(newOwner !== undefined ? { newOwner } : {}) }];
      }
      break;
    }
    case 'freezeAccount': {
      const account = str(info, 'account');
      if (account) return [{ kind: 'token-change', account, what: 'freeze' }];
      break;
    }
    default:
      if (HARMLESS_PARSED.has(ix.type)) return [];
  }
  return unknown(ix, `${ix.program} ${ix.type}`);
}

/** Every base58 address among the values of a parsed instruction's info (one level deep). */
function addressesIn(info: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const v of Object.values(info)) {
    if (typeof v === 'string' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(v)) out.push(v);
    if (Array.isArray(v)) for (const x of v) if (typeof x === 'string' && /^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(x)) out.push(x);
  }
  return out;
}
