import { AddressLookupTableAccount, MessageAccountKeys, type PublicKey, type VersionedMessage } from '@solana/web3.js';
import { PROGRAM_IDS } from './programs.js';

/** Lamports charged per required signature (the base fee). */
export const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Compute units a transaction may use at most. */
const MAX_COMPUTE_UNITS = 1_400_000n;
/** Compute units assumed per instruction when no limit is set. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
/** SystemProgram instruction index of AdvanceNonceAccount. */
const SYSTEM_ADVANCE_NONCE = 4;

/** What the static part of a message says, once its accounts are known. */
export interface DecodedMessage {
  /** Base58 fee payer (the first account). */
  feePayer: string;
  /** Base58 accounts whose signature the transaction requires, fee payer first. */
  signers: string[];
  /** Base58 top-level programs, each once, in order of first use (`(unresolved account #i)` when unknown). */
  programs: string[];
  /** Accounts the transaction may write (static and from lookup tables). */
  writable: PublicKey[];
  /** The same accounts, base58, in the same order. */
  writableAddresses: string[];
  /** Most the fee payer is charged: base fee per signature plus the priority fee at the compute-unit limit. */
  feeLamports: bigint;
  /** The base fee: lamports per signature times the required signatures. */
  baseFeeLamports: bigint;
  /** The priority fee at the compute-unit limit (compute-unit price times limit, rounded up). */
  priorityFeeLamports: bigint;
  /** The top-level instructions with their accounts resolved (unresolvable ones name `(unresolved account #i)`). */
  instructions: Array<{ programId: string; accounts: string[]; data: Uint8Array }>;
  /** The first instruction advances a durable nonce: the transaction would never expire. */
  durableNonce: boolean;
}

/** A lookup table the transaction names that cannot be used, with why. */
export interface LookupProblem {
  table: string;
  reason: string;
}

/**
 * Builds lookup-table accounts from their fetched account states (`null`: missing). Tables that are missing, not
 * owned by the lookup-table program, undecodable, or too short for the indexes the message uses are problems.
 */
export function lookupTablesFrom(
  message: VersionedMessage,
  fetched: ReadonlyArray<{ owner: string; data: Uint8Array } | null>,
): { tables: AddressLookupTableAccount[]; problems: LookupProblem[] } {
  const tables: AddressLookupTableAccount[] = [];
  const problems: LookupProblem[] = [];
  for (const [i, lookup] of message.addressTableLookups.entries()) {
    const problem = lookupTableFrom(lookup, fetched[i] ?? null);
    if (typeof problem === 'string') problems.push({ table: lookup.accountKey.toBase58(), reason: problem });
    else tables.push(problem);
  }
  return { tables, problems };
}

/** The highest index of a table that a message's lookup uses (-1 when none). */
export function highestLookupIndex(lookup: VersionedMessage['addressTableLookups'][number]): number {
  let highest = -1;
  for (const i of lookup.writableIndexes) if (i > highest) highest = i;
  for (const i of lookup.readonlyIndexes) if (i > highest) highest = i;
  return highest;
}

/**
 * One lookup table from its fetched account state (`null`: missing), or why it cannot be used: missing, not owned
 * by the lookup-table program, undecodable, or too short for the indexes the lookup uses.
 */
export function lookupTableFrom(lookup: VersionedMessage['addressTableLookups'][number], acc: { owner: string; data: Uint8Array } | null): AddressLookupTableAccount | string {
  if (!acc) return 'does not exist';
  if (acc.owner !== PROGRAM_IDS.addressLookupTable) return `is owned by ${acc.owner}, not the lookup-table program`;
  let state: AddressLookupTableAccount['state'];
  try {
    state = AddressLookupTableAccount.deserialize(acc.data);
  } catch {
    return 'is not a decodable lookup table';
  }
  const highest = highestLookupIndex(lookup);
  if (highest >= state.addresses.length) return `has ${state.addresses.length} addresses but index ${highest} is used`;
  return new AddressLookupTableAccount({ key: lookup.accountKey, state });
}

/**
 * Decodes the accounts, signers, programs and fee of a message. With `tables` null (lookups unresolved) only the
 * static accounts are known: programs loaded from a table are reported as unresolved and writable lookups are
 * left out. Throws on a structurally invalid message (the caller turns that into a violation).
 */
export function decodeMessage(message: VersionedMessage, tables: AddressLookupTableAccount[] | null): DecodedMessage {
  const keys =
    message.version === 0 && tables !== null
      ? message.getAccountKeys({ addressLookupTableAccounts: tables })
      : new MessageAccountKeys(message.staticAccountKeys);
  const n = message.header.numRequiredSignatures;
  if (n < 1 || n > message.staticAccountKeys.length) throw new RangeError(`the header requires ${n} signatures of ${message.staticAccountKeys.length} static accounts`);
  // Every account's base58 once: the instructions below name the same accounts many times.
  const names: string[] = [];
  for (let i = 0; i < keys.length; i += 1) names.push(keys.get(i)?.toBase58() ?? `(unresolved account #${i})`);
  const name = (i: number): string => names[i] ?? `(unresolved account #${i})`;
  const signers = names.slice(0, n);
  const programs: string[] = [];
  for (const ix of message.compiledInstructions) {
    const id = name(ix.programIdIndex);
    if (!programs.includes(id)) programs.push(id);
  }
  const writable: PublicKey[] = [];
  const writableAddresses: string[] = [];
  const seen = new Set<string>();
  for (let i = 0; i < keys.length; i += 1) {
    const key = keys.get(i);
    if (!key || !message.isAccountWritable(i) || seen.has(names[i]!)) continue;
    seen.add(names[i]!);
    writable.push(key);
    writableAddresses.push(names[i]!);
  }
  const instructions = message.compiledInstructions.map((ix) => ({ programId: name(ix.programIdIndex), accounts: ix.accountKeyIndexes.map(name), data: ix.data }));
  const baseFeeLamports = BigInt(n) * LAMPORTS_PER_SIGNATURE;
  const priorityFeeLamports = priorityFee(message, name);
  return {
    feePayer: signers[0]!,
    signers,
    programs,
    writable,
    writableAddresses,
    feeLamports: baseFeeLamports + priorityFeeLamports,
    baseFeeLamports,
    priorityFeeLamports,
    instructions,
    durableNonce: advancesNonce(message, name),
  };
}

/** The priority fee the compute-budget instructions (or a v1 transaction config) ask for, at most. */
function priorityFee(message: VersionedMessage, name: (i: number) => string): bigint {
  if (message.version === 1) return BigInt(message.transactionConfig.priorityFee ?? 0);
  let limit: bigint | null = null;
  let microLamports = 0n;
  let others = 0n;
  for (const ix of message.compiledInstructions) {
    if (name(ix.programIdIndex) !== PROGRAM_IDS.computeBudget) {
      others += 1n;
      continue;
    }
    const data = ix.data;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    // Duplicates make the transaction fail, but count the largest to stay on the safe side.
    if (data[0] === 2 && data.length >= 5) limit = bigMax(limit ?? 0n, BigInt(view.getUint32(1, true)));
    if (data[0] === 3 && data.length >= 9) microLamports = bigMax(microLamports, view.getBigUint64(1, true));
  }
  const units = bigMin(limit ?? others * DEFAULT_UNITS_PER_INSTRUCTION, MAX_COMPUTE_UNITS);
  return (units * microLamports + 999_999n) / 1_000_000n;
}

function advancesNonce(message: VersionedMessage, name: (i: number) => string): boolean {
  const first = message.compiledInstructions[0];
  if (!first || name(first.programIdIndex) !== PROGRAM_IDS.system || first.data.length < 4) return false;
  return new DataView(first.data.buffer, first.data.byteOffset, 4).getUint32(0, true) === SYSTEM_ADVANCE_NONCE;
}

function bigMax(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}

function bigMin(a: bigint, b: bigint): bigint {
  return a < b ? a : b;
}
