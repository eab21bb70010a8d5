// A corpus fixture (corpusFixture.ts) turned into what a node would hold and answer: the transaction, its lookup
// tables, every account before it ran and after, and its simulation (the recorded meta's inner instructions, error,
// logs and units). States are keyed by address, so a tampered twin (corpusTamper.ts) may recompile the message
// freely. What the recorded balances say is applied to the states before: token accounts take their post amounts,
// accounts created by the transaction are built from the post token balances, closed ones are gone.
import { createHash } from 'node:crypto';
import { AccountLayout, AccountState, MintLayout } from '@solana/spl-token';
import { AddressLookupTableAccount, PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { MarketData } from '../../src/engine/ports.js';
import type { PolicyContext } from '../../src/execution/guardPolicy.js';
import { WSOL_MINT } from '../../src/lib/mints.js';
import { intentSchema, type Intent } from '../../src/sdk/intents.js';
import type { AccountSnapshot } from '../../src/solana/guardChanges.js';
import { PROGRAM_IDS } from '../../src/solana/programs.js';
import { readFixture, tableRegistry, type CorpusFixture, type FixtureAccount, type TokenBalance } from './corpusFixture.js';

/** One inner-instruction group of a simulation, as the RPC answers it. */
export interface InnerGroup {
  index: number;
  instructions: Array<Record<string, unknown>>;
}

/** A transaction and everything a node would answer about it, keyed by address. */
export interface Recorded {
  readonly fixture: CorpusFixture;
  readonly tx: VersionedTransaction;
  readonly wallet: PublicKey;
  readonly intent: Intent;
  /** Lookup tables by address: their addresses (unrecorded slots hold stand-ins). */
  readonly tables: ReadonlyMap<string, readonly string[]>;
  /** Every account before the transaction (null: absent). Accounts not here do not exist. */
  readonly pre: ReadonlyMap<string, AccountSnapshot | null>;
  /** Every account the transaction names, after it. */
  readonly post: ReadonlyMap<string, AccountSnapshot | null>;
  readonly simulation: { err: unknown; innerInstructions: InnerGroup[]; logs: string[]; unitsConsumed: number };
}

const TOKEN = PROGRAM_IDS.splToken;
const NATIVE_LOADER = 'NativeLoader1111111111111111111111111111111';
const BPF_LOADER = 'BPFLoaderUpgradeab1e11111111111111111111111';
const KNOWN_PROGRAMS: ReadonlySet<string> = new Set(Object.values(PROGRAM_IDS));
/** Intent fields that are bigints (base units); fixtures write them as decimal strings. */
const BIGINT_FIELDS = new Set(['amount', 'makingAmount', 'takingAmount', 'inAmount', 'shares', 'maxAmount', 'depositAmount', 'maxPriceMicroUsd', 'contractsMicro', 'minPriceMicroUsd']);

/**
 * A stand-in address for a lookup-table slot no source recorded: the same for a table and index in every fixture (the
 * guard caches tables by address for the whole process), and an address no one holds a key to by construction.
 */
export function standIn(table: string, index: number): string {
  return new PublicKey(createHash('sha256').update(`jup-keeper corpus: unrecorded slot ${index} of lookup table ${table}`).digest()).toBase58();
}

/** The lookup tables of the registry, their addresses (captured data, or the recorded slots with stand-ins between). */
export function registryTables(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [address, t] of Object.entries(tableRegistry())) {
    if (t.data) {
      out.set(address, AddressLookupTableAccount.deserialize(Buffer.from(t.data, 'base64')).addresses.map((a) => a.toBase58()));
      continue;
    }
    const slots = t.slots ?? {};
    const length = Math.max(-1, ...Object.keys(slots).map(Number)) + 1;
    out.set(address, Array.from({ length }, (_, i) => slots[String(i)]?.address ?? standIn(address, i)));
  }
  return out;
}

/** Account data of a lookup table holding `addresses` (the program's layout: a 56-byte header, then the keys). */
export function lookupTableData(addresses: readonly string[]): Buffer {
  const header = Buffer.alloc(56);
  header.writeUInt32LE(1, 0);
  header.writeBigUInt64LE(0xffff_ffff_ffff_ffffn, 4);
  return Buffer.concat([header, ...addresses.map((a) => new PublicKey(a).toBuffer())]);
}

/** Every account key of a message, in the order its indexes and a meta's balances use (static, then loaded). */
export function accountKeysOf(tx: VersionedTransaction, tables: ReadonlyMap<string, readonly string[]>): string[] {
  const lookups = tx.message.addressTableLookups.map((l) => {
    const addresses = tables.get(l.accountKey.toBase58());
    if (!addresses) throw new Error(`lookup table ${l.accountKey.toBase58()} is not in lookup-tables.json`);
    return new AddressLookupTableAccount({ key: l.accountKey, state: { deactivationSlot: 0xffff_ffff_ffff_ffffn, lastExtendedSlot: 0, lastExtendedSlotStartIndex: 0, addresses: addresses.map((a) => new PublicKey(a)) } });
  });
  const keys = tx.message.getAccountKeys({ addressLookupTableAccounts: lookups });
  return [...keys.staticAccountKeys, ...(keys.accountKeysFromLookups?.writable ?? []), ...(keys.accountKeysFromLookups?.readonly ?? [])].map((k) => k.toBase58());
}

/** A token account's bytes. */
export function tokenAccountBytes(t: { mint: string; owner: string; amount: bigint; delegate?: string | undefined; delegatedAmount?: bigint | undefined; closeAuthority?: string | undefined; nativeReserve?: bigint | undefined; frozen?: boolean | undefined }): Buffer {
  const data = Buffer.alloc(AccountLayout.span);
  AccountLayout.encode({
    mint: new PublicKey(t.mint),
    owner: new PublicKey(t.owner),
    amount: t.amount,
    delegateOption: t.delegate ? 1 : 0,
    delegate: new PublicKey(t.delegate ?? PROGRAM_IDS.system),
    state: t.frozen ? AccountState.Frozen : AccountState.Initialized,
    isNativeOption: t.nativeReserve !== undefined ? 1 : 0,
    isNative: t.nativeReserve ?? 0n,
    delegatedAmount: t.delegatedAmount ?? 0n,
    closeAuthorityOption: t.closeAuthority ? 1 : 0,
    closeAuthority: new PublicKey(t.closeAuthority ?? PROGRAM_IDS.system),
  }, data);
  return data;
}

function mintBytes(m: { decimals: number; supply?: string | undefined; mintAuthority?: string | null | undefined; freezeAuthority?: string | null | undefined }): Buffer {
  const data = Buffer.alloc(MintLayout.span);
  MintLayout.encode({
    mintAuthorityOption: m.mintAuthority ? 1 : 0,
    mintAuthority: new PublicKey(m.mintAuthority ?? PROGRAM_IDS.system),
    supply: BigInt(m.supply ?? '0'),
    decimals: m.decimals,
    isInitialized: true,
    freezeAuthorityOption: m.freezeAuthority ? 1 : 0,
    freezeAuthority: new PublicKey(m.freezeAuthority ?? PROGRAM_IDS.system),
  }, data);
  return data;
}

/** A fixture's account description as the snapshot the guard reads. */
export function snapshotOf(a: FixtureAccount): AccountSnapshot {
  const lamports = BigInt(a.lamports);
  if ('token' in a) {
    const t = a.token;
    const data = tokenAccountBytes({ ...t, amount: BigInt(t.amount), delegatedAmount: t.delegatedAmount === undefined ? undefined : BigInt(t.delegatedAmount), nativeReserve: t.nativeReserve === undefined ? undefined : BigInt(t.nativeReserve) });
    return { lamports, owner: t.program ?? TOKEN, data };
  }
  if ('mint' in a) return { lamports, owner: a.mint.program ?? TOKEN, data: mintBytes(a.mint) };
  if ('system' in a) return { lamports, owner: PROGRAM_IDS.system, data: new Uint8Array(0) };
  return { lamports, owner: a.owner, data: Buffer.from(a.data, 'base64'), executable: a.executable ?? false };
}

/** The fixture's intent, parsed as a strategy's would be (its decimal strings read as the bigints they are). */
export function intentOf(fixture: CorpusFixture): Intent {
  const raw = Object.fromEntries(Object.entries(fixture.intent).map(([k, v]) => [k, BIGINT_FIELDS.has(k) && typeof v === 'string' ? BigInt(v) : v]));
  return intentSchema.parse(raw);
}

/** Reads a fixture and builds what a node would hold for it. */
export function loadRecorded(id: string): Recorded {
  const fixture = readFixture(id);
  const tx = VersionedTransaction.deserialize(Buffer.from(fixture.transaction, 'base64'));
  const tables = registryTables();
  const keys = accountKeysOf(tx, tables);
  const { meta } = fixture;
  if (meta.preBalances.length !== keys.length || meta.postBalances.length !== keys.length) {
    throw new Error(`${id}: the meta has ${meta.preBalances.length} balances for ${keys.length} accounts`);
  }
  const programs = new Set(tx.message.compiledInstructions.map((ix) => keys[ix.programIdIndex]!));
  const tokenAt = (balances: readonly TokenBalance[]) => new Map(balances.map((b) => [keys[b.accountIndex]!, b]));
  const preTokens = tokenAt(meta.preTokenBalances);
  const postTokens = tokenAt(meta.postTokenBalances);

  const pre = new Map<string, AccountSnapshot | null>();
  for (const [address, state] of Object.entries(fixture.accounts)) pre.set(address, state && snapshotOf(state));
  keys.forEach((address, i) => {
    if (pre.has(address)) return;
    const lamports = BigInt(meta.preBalances[i]!);
    const token = preTokens.get(address);
    if (lamports === 0n) pre.set(address, null);
    else if (token) pre.set(address, tokenFromBalance(token, lamports, null));
    else if (programs.has(address) || KNOWN_PROGRAMS.has(address)) pre.set(address, { lamports, owner: nativeProgram(address) ? NATIVE_LOADER : BPF_LOADER, data: new Uint8Array(0), executable: true });
    // Lamports alone as recorded: no source records the owner or data of a pool or a program's state, and the guard
    // reads none of them (it reads the wallet, token accounts, mints and the product's accounts, which are described).
    else pre.set(address, { lamports, owner: PROGRAM_IDS.system, data: new Uint8Array(0) });
  });

  const post = new Map<string, AccountSnapshot | null>(pre);
  keys.forEach((address, i) => {
    const explicit = fixture.postAccounts?.[address];
    if (explicit !== undefined) {
      post.set(address, explicit && snapshotOf(explicit));
      return;
    }
    // What the recording says the transaction did to the account's lamports, applied to the state before (a described
    // account may hold more than the reconstructed meta's placeholder balance).
    const before = pre.get(address) ?? null;
    const delta = BigInt(meta.postBalances[i]!) - BigInt(meta.preBalances[i]!);
    const lamports = meta.postBalances[i] === 0 ? 0n : (before?.lamports ?? 0n) + delta;
    const token = postTokens.get(address);
    if (lamports === 0n) post.set(address, null);
    else if (token) post.set(address, tokenFromBalance(token, lamports, before));
    else post.set(address, before ? { ...before, lamports } : { lamports, owner: PROGRAM_IDS.system, data: new Uint8Array(0) });
  });
  for (const [address, state] of Object.entries(fixture.postAccounts ?? {})) if (!keys.includes(address)) post.set(address, state && snapshotOf(state));

  return {
    fixture,
    tx,
    wallet: new PublicKey(fixture.wallet),
    intent: intentOf(fixture),
    tables,
    pre,
    post,
    simulation: {
      err: meta.err ?? null,
      innerInstructions: structuredClone(meta.innerInstructions),
      logs: meta.logMessages ?? [],
      unitsConsumed: meta.computeUnitsConsumed ?? 0,
    },
  };
}

function nativeProgram(address: string): boolean {
  return address === PROGRAM_IDS.system || address === PROGRAM_IDS.computeBudget || address === PROGRAM_IDS.addressLookupTable;
}

/**
 * A token account as a balance says it is: its mint, owner and amount, the rest of its fields as they were before
 * (a delegate, a close authority) or, for one the transaction creates, none; a native account keeps its rent reserve.
 */
function tokenFromBalance(b: TokenBalance, lamports: bigint, before: AccountSnapshot | null): AccountSnapshot {
  const prior = before && before.data.length >= AccountLayout.span ? AccountLayout.decode(before.data.subarray(0, AccountLayout.span)) : undefined;
  const amount = BigInt(b.uiTokenAmount.amount);
  if (!b.owner) throw new Error(`the token balance of account #${b.accountIndex} names no owner`);
  const native = b.mint === WSOL_MINT;
  const data = tokenAccountBytes({
    mint: b.mint,
    owner: b.owner,
    amount,
    delegate: prior?.delegateOption ? prior.delegate.toBase58() : undefined,
    delegatedAmount: prior?.delegateOption ? prior.delegatedAmount : undefined,
    closeAuthority: prior?.closeAuthorityOption ? prior.closeAuthority.toBase58() : undefined,
    nativeReserve: native ? (prior?.isNativeOption ? prior.isNative : lamports - amount) : undefined,
    frozen: prior ? prior.state === AccountState.Frozen : false,
  });
  return { lamports, owner: b.programId ?? before?.owner ?? TOKEN, data };
}

/** The policy context of a fixture: its wallet, the configured limits, its prices (the guard values swaps with them). */
export function policyContext(r: Recorded, now = Date.now()): PolicyContext {
  const { fixture } = r;
  const market: MarketData | undefined = fixture.market && {
    at: now,
    prices: Object.fromEntries(Object.entries(fixture.market.prices).map(([mint, p]) => [mint, { usd: p.usd, decimals: p.decimals, change24h: null }])),
    tokens: {},
  };
  return {
    wallet: r.wallet,
    risk: { maxSlippageBps: fixture.policy.maxSlippageBps, maxPriorityFeeLamports: BigInt(fixture.policy.maxPriorityFeeLamports), allowToken2022Mints: fixture.policy.allowToken2022Mints ?? [] },
    coSigners: fixture.coSigners.map((c) => c.address),
    market,
    maxPriceAgeMs: 60_000,
    now,
  };
}
