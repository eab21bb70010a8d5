import type { AddressLookupTableAccount, VersionedMessage, VersionedTransaction } from '@solana/web3.js';
import { KeeperError } from '../lib/errors.js';
import { computeWalletChanges, findAuthorityChanges, readTokenAccount, type AccountSnapshot, type AccountStates } from './guardChanges.js';
import { decodeMessage, highestLookupIndex, lookupTableFrom, type DecodedMessage, type LookupProblem } from './guardDecode.js';
import { checkFlows, type TracedEvent } from './guardFlows.js';
import type { FlowEvent, GuardInstruction } from './guardInstructions.js';
import { checkBalances, checkEscrowsKept, checkPayouts, checkStatic, checkSwapInflow, describeAccountChange, swapSpend, walletCharged } from './guardRules.js';
import type { GuardPolicy, GuardReport, GuardViolation, ProductCheck, ProductMessage, ProductVerdict } from './guardTypes.js';
import { PROGRAM_IDS, TIP_ACCOUNTS } from './programs.js';
import { contextual, rawAccount, resultOf, RpcCallError, type RawAccount as RpcAccount, type RpcCall, type RpcReply, type SolanaRpc } from './rpc.js';

export type { CreatedAccount, ExpiryCheck, GuardPolicy, GuardReport, GuardRule, GuardViolation, Payout, ProductCheck, ProductMessage, ProductRule, ProductTerms, ProductVerdict, SpendRule, TopInstruction } from './guardTypes.js';
export { PRODUCT_RULES } from './guardTypes.js';
export type { SwapTerms } from './swapValue.js';

/** The pre-sign guard refused a transaction; nothing was signed. Give up on this attempt of the intent. */
export class GuardRefusal extends KeeperError {
  readonly violations: readonly GuardViolation[];

  constructor(violations: readonly GuardViolation[]) {
    const rules = [...new Set(violations.map((v) => v.rule))];
    super('GUARD_REFUSED', 'abandon', `the pre-sign guard refused the transaction: ${rules.join(', ')}`, { details: { violations: [...violations] } });
    this.violations = Object.freeze([...violations]);
  }
}

/** Why a check could not run. */
export type UncheckedReason = 'rpc' | 'blockhash-not-found' | 'node-behind' | 'state-moved' | 'no-price' | 'no-inner-instructions' | 'no-post-state';

/**
 * The guard could not check the transaction (an RPC timeout, a node behind the venue, balances that moved while it
 * looked): nothing was decided. Retry with backoff until the intent's deadline; never sign on it.
 */
export class GuardUnavailable extends KeeperError {
  readonly reason: UncheckedReason;

  constructor(reason: UncheckedReason, message: string, cause?: unknown) {
    super('GUARD_UNCHECKED', 'retry', `the pre-sign guard could not check the transaction yet: ${message}`, { cause, details: { reason } });
    this.reason = reason;
  }
}

/** Throws a GuardRefusal when the report holds any violation. */
export function assertGuardPassed(report: GuardReport): void {
  if (!report.ok) throw new GuardRefusal(report.violations);
}

const KEPT_LOG_LINES = 20;
/** Simulation errors that say nothing about the transaction, only that this node cannot run it now. */
const TRANSIENT_SIM_ERRORS = new Set(['BlockhashNotFound', 'AccountInUse', 'ClusterMaintenance', 'WouldExceedMaxBlockCostLimit', 'WouldExceedMaxAccountCostLimit', 'WouldExceedAccountDataBlockLimit', 'WouldExceedAccountDataTotalLimit', 'TooManyAccountLocks']);

/** Programs through whose CPIs a swap pays its counterparty: Jupiter's aggregator and its RFQ order engine. */
const SWAP_PROGRAMS: ReadonlySet<string> = new Set([PROGRAM_IDS.jupiterV6, PROGRAM_IDS.jupiterOrderEngine]);

/** No tip account: a wallet that does not pay the fee pays no tip either. */
const NO_TIP_ACCOUNTS: ReadonlySet<string> = new Set();

/** Rent-exempt minimum of `space` bytes on mainnet (and LiteSVM): (128 + space) × 3,480 × 2 lamports. */
export function rentExemptLamports(space: bigint): bigint {
  return (128n + space) * 3_480n * 2n;
}

/** What decodes token instructions (guardInstructions.ts) and Token-2022 mints (guardToken2022.ts). */
interface Decoders {
  flowEventsOf: (ix: GuardInstruction) => FlowEvent[];
  fromUiInstruction: (ix: unknown) => GuardInstruction;
  dangerousExtensions: (mint: string, account: AccountSnapshot | null | undefined) => string[];
  tokenAccountSpace: (mint: string, account: AccountSnapshot | null | undefined) => bigint | undefined;
}

let decoders: Promise<Decoders> | undefined;

/**
 * The decoders, loaded by the first check rather than with this module: they use @solana/spl-token, which with its
 * @solana/codecs is about 150 ES modules, 0.2-0.3 s of CPU at the keeper's start-up through tsx (the keeper
 * imports this module when it starts; it signs nothing before its first execution). A failed load is tried again.
 */
function loadDecoders(): Promise<Decoders> {
  decoders ??= Promise.all([import('./guardInstructions.js'), import('./guardToken2022.js')]).then(
    ([ix, token2022]) => ({ flowEventsOf: ix.flowEventsOf, fromUiInstruction: ix.fromUiInstruction, dangerousExtensions: token2022.dangerousExtensions, tokenAccountSpace: token2022.tokenAccountSpace }),
    (err: unknown) => {
      decoders = undefined;
      throw err;
    },
  );
  return decoders;
}

/**
 * Checks an unsigned transaction built by someone else before the hot key signs it
 * (docs/architecture.md § The pre-sign guard): resolves its lookup tables; checks the fee payer, the signers, the
 * programs, durable nonces and the priority fee; reads the accounts it writes, simulates it on a node at least that
 * fresh (with its inner instructions), reads the wallet's accounts again to prove nothing else moved them meanwhile;
 * then follows every lamport and token that leaves the wallet (checkFlows), compares the wallet's accounts before and
 * after, and, for a swap, the inflow with what the amount is worth at the feed's prices. A bad transaction never
 * throws: every problem is a violation. A check that could not run throws GuardUnavailable (retry).
 */
export async function guardTransaction(tx: VersionedTransaction, policy: GuardPolicy, rpc: SolanaRpc): Promise<GuardReport> {
  const { flowEventsOf, fromUiInstruction, dangerousExtensions, tokenAccountSpace } = await loadDecoders();
  const wallet = policy.wallet.toBase58();
  const violations: GuardViolation[] = [];
  let tipsLamports = 0n;
  const report = (fields: Partial<GuardReport>): GuardReport => ({
    ok: violations.length === 0,
    violations,
    feePayer: null,
    signers: [],
    programs: [],
    changes: { lamports: 0n, tokens: [] },
    feeLamports: null,
    tipsLamports,
    simulated: false,
    ...fields,
  });

  const message = tx.message;
  const { tables, problems } = await resolveLookupTables(rpc, message);
  for (const p of problems) violations.push({ rule: 'lookup-table', message: `address lookup table ${p.table} ${p.reason}` });

  let decoded: DecodedMessage;
  try {
    decoded = decodeMessage(message, problems.length === 0 ? tables : null);
  } catch (err) {
    violations.push({ rule: 'malformed', message: `the transaction cannot be decoded: ${err instanceof Error ? err.message : String(err)}` });
    return report({});
  }
  const base = { feePayer: decoded.feePayer, signers: decoded.signers, programs: decoded.programs, feeLamports: decoded.feeLamports };
  checkStatic(decoded, policy, wallet, violations);
  // Without its lookup tables the transaction's accounts are unknown; it could not run anyway.
  if (problems.length > 0) return report(base);

  const swapMints = policy.swap ? [policy.swap.inputMint, policy.swap.outputMint] : [];
  // The product check reads every account its program's instructions name (an order that must not exist yet, the
  // position or market result a claim names, the mints of the escrows), whether or not the transaction writes it.
  const productAccounts = policy.product ? decoded.instructions.filter((ix) => ix.programId === policy.product!.program).flatMap((ix) => ix.accounts) : [];
  const readKeys = uniqueKeys([...decoded.writableAddresses, ...swapMints, ...(policy.product?.reads ?? []), ...productAccounts]);
  const { pre, sim } = await simulateBetweenReads(rpc, tx, readKeys, decoded.writableAddresses, wallet, fromUiInstruction);
  const product = policy.product ? checkProduct(policy.product, decoded, pre, { sponsor: decoded.feePayer !== wallet && policy.sponsoredFees === true ? decoded.feePayer : undefined }) : undefined;
  if (product) violations.push(...product.violations);
  if (sim.err !== null) {
    const code = typeof sim.err === 'string' ? sim.err : undefined;
    if (code && TRANSIENT_SIM_ERRORS.has(code)) throw new GuardUnavailable(code === 'BlockhashNotFound' ? 'blockhash-not-found' : 'rpc', `the simulation answered ${code} (the node cannot run it now)`);
    violations.push({ rule: 'simulation-failed', message: `the simulation failed: ${JSON.stringify(sim.err)}` });
    return report({ ...base, slot: sim.slot, unitsConsumed: sim.unitsConsumed, logs: sim.logs?.slice(-KEPT_LOG_LINES) });
  }
  if (!sim.accounts || sim.accounts.length !== decoded.writableAddresses.length) throw new GuardUnavailable('no-post-state', 'the RPC returned no post-simulation state for the accounts asked for');
  if (!sim.innerInstructions) throw new GuardUnavailable('no-inner-instructions', 'the RPC returned no inner instructions (a node older than 1.18 cannot show where CPIs send funds)');

  const post = new Map<string, AccountSnapshot | null>(pre);
  decoded.writableAddresses.forEach((k, i) => post.set(k, sim.accounts![i] ?? null));

  const events: TracedEvent[] = [];
  const inner = sim.innerInstructions;
  decoded.instructions.forEach((ix, i) => {
    const top = ix.programId;
    for (const e of flowEventsOf({ form: 'raw', ...ix })) events.push({ ...e, top });
    for (const cpi of inner.get(i) ?? []) for (const e of flowEventsOf(cpi)) events.push({ ...e, top });
  });
  // An ExactOut swap's input is bounded by the feed's worth of its exact output, not by the intent's amount.
  const spend = swapSpend(policy.spend, policy.swap, pre);
  // A sponsored transaction (another fee payer, which the policy allows): the wallet pays no fee and tips nobody, and
  // the fee payer, the swap's other signer, may be paid the input as a declared co-signer may.
  const sponsored = decoded.feePayer !== wallet && policy.sponsoredFees === true;
  const flows = checkFlows(events, pre, post, {
    wallet,
    spend,
    tipAccounts: sponsored ? NO_TIP_ACCOUNTS : TIP_ACCOUNTS,
    counterparties: sponsored ? new Set([...policy.coSigners, decoded.feePayer]) : policy.coSigners,
    swapPrograms: SWAP_PROGRAMS,
    mayUnwrapSol: policy.mayUnwrapSol,
    burn: policy.burn,
    product: product?.terms,
    rentExempt: rentExemptLamports,
    tokenAccountSpace: (mint) => tokenAccountSpace(mint, pre.get(mint) ?? post.get(mint)),
    swapFeeMint: policy.swap?.outputMint,
  });
  tipsLamports = flows.tipsLamports;
  violations.push(...flows.violations);
  if (decoded.priorityFeeLamports + flows.tipsLamports > policy.maxPriorityFeeLamports && flows.tipsLamports > 0n) {
    violations.push({ rule: 'priority-fee', message: `a priority fee of ${decoded.priorityFeeLamports} plus tips of ${flows.tipsLamports} lamports exceed the cap of ${policy.maxPriorityFeeLamports}` });
  }
  for (const change of findAuthorityChanges(pre, post, wallet)) {
    const v = describeAccountChange(change);
    if (!violations.some((x) => x.rule === v.rule && x.message.includes(change.account))) violations.push(v);
  }
  const changes = computeWalletChanges(pre, post, wallet);
  const charged = sponsored ? walletCharged(decoded) : decoded;
  checkBalances(changes, charged, flows, { ...policy, spend }, violations);
  if (product) {
    checkEscrowsKept(flows, product.terms.escrows, pre, post, violations);
    checkPayouts(changes, charged, flows, product.terms.payouts, violations);
  }
  if (policy.swap) checkSwapInflow(changes, charged, flows, policy.swap, pre, violations);
  await checkExtensions(rpc, pre, post, wallet, swapMints, policy, violations, dangerousExtensions);
  return report({ ...base, changes, tipsLamports, simulated: true, slot: sim.slot, unitsConsumed: sim.unitsConsumed });
}

/**
 * The product instruction's terms against the intent, on the accounts as they were before the transaction (the
 * check decides from the chain and the intent, never the venue's fields). A check that throws is a bug of the
 * check, not a reason to sign: it refuses.
 */
function checkProduct(product: ProductCheck, decoded: DecodedMessage, pre: AccountStates, message: ProductMessage): ProductVerdict {
  try {
    return product.check(decoded.instructions, (address) => pre.get(address), message);
  } catch (err) {
    return { violations: [{ rule: 'product-instruction', message: `the ${product.kind} terms could not be checked: ${err instanceof Error ? err.message : String(err)}` }], terms: { escrows: [], creates: [], payers: [], payouts: [] } };
  }
}

/** Token-2022 mints the wallet holds or trades here whose extensions let a stranger move its tokens. */
async function checkExtensions(rpc: SolanaRpc, pre: AccountStates, post: AccountStates, wallet: string, swapMints: readonly string[], policy: GuardPolicy, violations: GuardViolation[], dangerousExtensions: Decoders['dangerousExtensions']): Promise<void> {
  const mints = new Set<string>();
  for (const states of [pre, post]) {
    for (const acc of states.values()) {
      const t = acc?.owner === PROGRAM_IDS.token2022 ? readTokenAccount(acc) : null;
      if (t?.owner === wallet) mints.add(t.mint);
    }
  }
  for (const m of swapMints) if (pre.get(m)?.owner === PROGRAM_IDS.token2022) mints.add(m);
  const wanted = [...mints].filter((m) => !policy.allowToken2022Mints.has(m));
  if (wanted.length === 0) return;
  const missing = wanted.filter((m) => !pre.has(m));
  const fetched = missing.length > 0 ? statesOf(missing, (await read(rpc, missing)).accounts) : new Map<string, AccountSnapshot | null>();
  for (const mint of wanted) {
    const found = dangerousExtensions(mint, pre.get(mint) ?? fetched.get(mint));
    if (found.length > 0) violations.push({ rule: 'token-extension', message: `Token-2022 mint ${mint} has ${found.join(' and ')}; allow it in risk.allowToken2022Mints to trade it` });
  }
}

/** Most accounts one getMultipleAccounts call may ask for. */
const MAX_ACCOUNTS_PER_CALL = 100;
/** Batched rounds (read, simulate, read again) tried at once when another transaction moved the wallet meanwhile. */
const SNAPSHOT_ROUNDS = 3;

/** What the simulation said, read from the node's answer (post-states in the order of the accounts asked for). */
interface Simulation {
  slot: number;
  err: unknown;
  logs: string[] | null;
  unitsConsumed: number | undefined;
  accounts: Array<AccountSnapshot | null> | null;
  /** The CPIs of each top-level instruction, by its index (null: the node sent none). */
  innerInstructions: Map<number, GuardInstruction[]> | null;
}

/**
 * The accounts the transaction touches before it runs, and its simulation, on states from one slot: the accounts
 * are read, the transaction simulated on a node at least that fresh, and the wallet's accounts read again on a node
 * at least as fresh as the simulation; they must be what the first read saw, or another transaction landed in
 * between and the before/after comparison would count its effect as this one's.
 *
 * The three calls go as one JSON-RPC batch (one round trip, so another transaction seldom lands in between); the
 * order a chain of minContextSlot would enforce is checked on the context slots of the answers instead (first read
 * <= simulation <= second read). Answers out of that order (a batch spread over nodes) are done again as three
 * calls, each pinned to the slot of the one before. When the wallet moved in between, the round is repeated at once
 * a few times before the check is given up as one that could not run (GuardUnavailable, retried later).
 */
async function simulateBetweenReads(rpc: SolanaRpc, tx: VersionedTransaction, readKeys: readonly string[], writable: readonly string[], wallet: string, fromUiInstruction: Decoders['fromUiInstruction']): Promise<{ pre: Map<string, AccountSnapshot | null>; sim: Simulation }> {
  const wire = Buffer.from(tx.serialize()).toString('base64');
  const reads = chunks(readKeys).map((keys) => accountsCall(rpc, keys));
  for (let round = 1; ; round += 1) {
    let batched: { pre: Map<string, AccountSnapshot | null>; sim: Simulation; again: Map<string, AccountSnapshot | null> } | null;
    try {
      const replies = await rpc.batch([...reads, simulateCall(rpc, wire, writable), ...reads]);
      const before = accountsOf(replies.slice(0, reads.length), reads);
      const sim = simulationOf(replies[reads.length]!, fromUiInstruction);
      const after = accountsOf(replies.slice(reads.length + 1), reads);
      const ordered = before.slots.every((s) => s <= sim.slot) && after.slots.every((s) => s >= sim.slot);
      batched = ordered ? { pre: statesOf(readKeys, before.accounts), sim, again: statesOf(readKeys, after.accounts) } : null;
    } catch (err) {
      throw unavailableFrom('getMultipleAccounts/simulateTransaction', err);
    }
    const pinned = batched ?? (await pinnedRound(rpc, wire, readKeys, writable, reads, fromUiInstruction));
    // A failed simulation is judged on its own: nothing after it compares before and after states.
    if (pinned.sim.err !== null) return { pre: pinned.pre, sim: pinned.sim };
    const moved = walletMoved(pinned.pre, pinned.again, wallet);
    if (moved === null) return { pre: pinned.pre, sim: pinned.sim };
    if (round >= SNAPSHOT_ROUNDS) throw new GuardUnavailable('state-moved', `the wallet's account ${moved} changed while the transaction was being checked (another transaction landed); checking again`);
  }
}

/** The read, the simulation and the second read as three calls, each on a node at least at the slot of the one before. */
async function pinnedRound(rpc: SolanaRpc, wire: string, readKeys: readonly string[], writable: readonly string[], reads: readonly RpcCall[], fromUiInstruction: Decoders['fromUiInstruction']) {
  try {
    const before = accountsOf(await rpc.batch(reads), reads);
    const minSlot = Math.max(0, ...before.slots);
    const [simReply] = await rpc.batch([simulateCall(rpc, wire, writable, minSlot)]);
    const sim = simulationOf(simReply!, fromUiInstruction);
    const again = chunks(readKeys).map((keys) => accountsCall(rpc, keys, sim.slot));
    const after = accountsOf(await rpc.batch(again), again);
    return { pre: statesOf(readKeys, before.accounts), sim, again: statesOf(readKeys, after.accounts) };
  } catch (err) {
    throw err instanceof GuardUnavailable ? err : unavailableFrom('getMultipleAccounts/simulateTransaction', err);
  }
}

/** The first of the wallet's accounts (the wallet and its token accounts as first read) that differs in `again`; null when none does. */
function walletMoved(pre: AccountStates, again: AccountStates, wallet: string): string | null {
  for (const [k, a] of pre) {
    if (k !== wallet && readTokenAccount(a)?.owner !== wallet) continue;
    const b = again.get(k) ?? null;
    const same = a === null || b === null ? a === b : a.lamports === b.lamports && a.owner === b.owner && a.data.length === b.data.length && Buffer.compare(a.data, b.data) === 0;
    if (!same) return k;
  }
  return null;
}

function accountsCall(rpc: SolanaRpc, keys: readonly string[], minContextSlot?: number): RpcCall {
  return { method: 'getMultipleAccounts', params: [keys, { encoding: 'base64', commitment: rpc.commitment, ...(minContextSlot !== undefined ? { minContextSlot } : {}) }] };
}

function simulateCall(rpc: SolanaRpc, wire: string, accounts: readonly string[], minContextSlot?: number): RpcCall {
  return {
    method: 'simulateTransaction',
    params: [
      wire,
      {
        encoding: 'base64',
        sigVerify: false,
        replaceRecentBlockhash: false,
        commitment: rpc.commitment,
        innerInstructions: true,
        ...(minContextSlot !== undefined ? { minContextSlot } : {}),
        accounts: { encoding: 'base64', addresses: accounts },
      },
    ],
  };
}

/**
 * The accounts of the answers to getMultipleAccounts `calls` (chunks in order), with each chunk's slot; throws on
 * an error, a bad shape or a list of another length than asked for.
 */
function accountsOf(replies: readonly RpcReply[], calls: readonly RpcCall[]): { slots: number[]; accounts: Array<AccountSnapshot | null> } {
  const method = 'getMultipleAccounts';
  const slots: number[] = [];
  const accounts: Array<AccountSnapshot | null> = [];
  for (const [i, reply] of replies.entries()) {
    const { slot, value } = contextual(resultOf(reply, method), method);
    const asked = (calls[i]?.params[0] as readonly string[] | undefined)?.length;
    if (!Array.isArray(value) || value.length !== asked) throw new Error(`${method}: the RPC node answered ${Array.isArray(value) ? value.length : 'no'} accounts for ${asked ?? 0} asked`);
    slots.push(slot);
    for (const v of value) accounts.push(snapshotOf(rawAccount(v, method)));
  }
  return { slots, accounts };
}

/** The simulation's answer, checked; throws on an error or a bad shape. */
function simulationOf(reply: RpcReply, fromUiInstruction: Decoders['fromUiInstruction']): Simulation {
  const method = 'simulateTransaction';
  const { slot, value } = contextual(resultOf(reply, method), method);
  const v = value as { err?: unknown; logs?: unknown; unitsConsumed?: unknown; accounts?: unknown; innerInstructions?: unknown } | null;
  if (!v || typeof v !== 'object') throw new Error(`${method}: the RPC node answered no simulation`);
  const accounts = Array.isArray(v.accounts) ? v.accounts.map((a) => snapshotOf(rawAccount(a, method))) : null;
  let innerInstructions: Simulation['innerInstructions'] = null;
  if (Array.isArray(v.innerInstructions)) {
    innerInstructions = new Map();
    for (const g of v.innerInstructions as unknown[]) {
      const group = g as { index?: unknown; instructions?: unknown } | null;
      if (!group || typeof group.index !== 'number' || !Array.isArray(group.instructions)) throw new Error(`${method}: the RPC node answered malformed inner instructions`);
      innerInstructions.set(group.index, group.instructions.map((ix) => fromUiInstruction(ix)));
    }
  }
  return {
    slot,
    err: v.err ?? null,
    logs: Array.isArray(v.logs) ? v.logs.filter((l): l is string => typeof l === 'string') : null,
    unitsConsumed: typeof v.unitsConsumed === 'number' ? v.unitsConsumed : undefined,
    accounts,
    innerInstructions,
  };
}

/**
 * Lookup tables stay what they were for every index they had: a table's addresses are never rewritten, only
 * appended (extend), and a closed table's address cannot be created again (it derives from a slot that is no longer
 * recent by the time a table can be closed). So a table read once resolves every lookup whose indexes it covers;
 * a lookup past its end reads it again (it may have been extended). Keyed by table address, in this process.
 */
const LOOKUP_TABLES = new Map<string, AddressLookupTableAccount>();
const LOOKUP_TABLES_KEPT = 1_024;

/** The message's lookup tables, from the cache where it covers their indexes, else read (one call for the rest). */
async function resolveLookupTables(rpc: SolanaRpc, message: VersionedMessage): Promise<{ tables: AddressLookupTableAccount[]; problems: LookupProblem[] }> {
  const lookups = message.addressTableLookups;
  if (lookups.length === 0) return { tables: [], problems: [] };
  const known = lookups.map((l) => {
    const t = LOOKUP_TABLES.get(l.accountKey.toBase58());
    return t && highestLookupIndex(l) < t.state.addresses.length ? t : undefined;
  });
  const wanted = lookups.filter((_, i) => !known[i]).map((l) => l.accountKey.toBase58());
  const fetched = wanted.length > 0 ? statesOf(wanted, (await read(rpc, wanted)).accounts) : new Map<string, AccountSnapshot | null>();
  const tables: AddressLookupTableAccount[] = [];
  const problems: LookupProblem[] = [];
  lookups.forEach((lookup, i) => {
    const address = lookup.accountKey.toBase58();
    const table = known[i] ?? lookupTableFrom(lookup, fetched.get(address) ?? null);
    if (typeof table === 'string') {
      problems.push({ table: address, reason: table });
      return;
    }
    tables.push(table);
    if (!known[i]) {
      LOOKUP_TABLES.delete(address);
      if (LOOKUP_TABLES.size >= LOOKUP_TABLES_KEPT) LOOKUP_TABLES.delete(LOOKUP_TABLES.keys().next().value!);
      LOOKUP_TABLES.set(address, table);
    }
  });
  return { tables, problems };
}

async function read(rpc: SolanaRpc, keys: readonly string[]): Promise<{ accounts: Array<AccountSnapshot | null> }> {
  try {
    const calls = chunks(keys).map((k) => accountsCall(rpc, k));
    return accountsOf(await rpc.batch(calls), calls);
  } catch (err) {
    throw unavailableFrom('getMultipleAccounts', err);
  }
}

function unavailableFrom(call: string, err: unknown): GuardUnavailable {
  if (err instanceof GuardUnavailable) return err;
  const code = err instanceof RpcCallError ? err.code : (err as { code?: unknown } | null)?.code;
  if (code === -32016) return new GuardUnavailable('node-behind', `RPC ${call}: the node has not reached the slot of the previous read`, err);
  return new GuardUnavailable('rpc', `RPC ${call} failed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`, err);
}

function snapshotOf(a: RpcAccount | null): AccountSnapshot | null {
  return a ? { lamports: BigInt(a.lamports), owner: a.owner, data: Buffer.from(a.data[0], 'base64'), executable: a.executable } : null;
}

function statesOf(keys: readonly string[], accounts: ReadonlyArray<AccountSnapshot | null>): Map<string, AccountSnapshot | null> {
  const states = new Map<string, AccountSnapshot | null>();
  keys.forEach((k, i) => states.set(k, accounts[i] ?? null));
  return states;
}

function uniqueKeys(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}

function chunks(keys: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < keys.length; i += MAX_ACCOUNTS_PER_CALL) out.push(keys.slice(i, i + MAX_ACCOUNTS_PER_CALL));
  return out.length > 0 ? out : [[]];
}
