import { PublicKey, type AccountInfo, type SimulatedTransactionAccountInfo, type VersionedTransaction } from '@solana/web3.js';
import { KeeperError } from '../lib/errors.js';
import { computeWalletChanges, findAuthorityChanges, readTokenAccount, type AccountSnapshot, type AccountStates } from './guardChanges.js';
import { decodeMessage, lookupTablesFrom, type DecodedMessage } from './guardDecode.js';
import { checkFlows, type TracedEvent } from './guardFlows.js';
import { flowEventsOf, fromRpcInstruction } from './guardInstructions.js';
import { checkBalances, checkStatic, checkSwapInflow, describeAccountChange, swapSpend } from './guardRules.js';
import { dangerousExtensions } from './guardToken2022.js';
import type { GuardPolicy, GuardReport, GuardViolation, ProductCheck } from './guardTypes.js';
import { PROGRAM_IDS, TIP_ACCOUNTS } from './programs.js';
import type { SolanaRpc } from './rpc.js';

export type { SpendRule } from './guardFlows.js';
export type { GuardPolicy, GuardReport, GuardRule, GuardViolation, ProductCheck, ProductRule, TopInstruction } from './guardTypes.js';
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

/** Rent-exempt minimum of `space` bytes on mainnet (and LiteSVM): (128 + space) × 3,480 × 2 lamports. */
export function rentExemptLamports(space: bigint): bigint {
  return (128n + space) * 3_480n * 2n;
}

/**
 * Checks an unsigned transaction built by someone else before the hot key signs it (ARCHITECTURE.md §4): resolves
 * its lookup tables; checks the fee payer, the signers, the programs, durable nonces and the priority fee; reads
 * the accounts it writes, simulates it on a node at least that fresh (with its inner instructions), reads the
 * wallet's accounts again to prove nothing else moved them meanwhile; then follows every lamport and token that
 * leaves the wallet (checkFlows), compares the wallet's accounts before and after, and, for a swap, the inflow with
 * what the amount is worth at the feed's prices. A bad transaction never throws: every problem is a violation. A
 * check that could not run throws GuardUnavailable (retry).
 */
export async function guardTransaction(tx: VersionedTransaction, policy: GuardPolicy, rpc: SolanaRpc): Promise<GuardReport> {
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
  const tableKeys = message.addressTableLookups.map((l) => l.accountKey);
  const fetchedTables = tableKeys.length > 0 ? (await read(rpc, tableKeys)).accounts : [];
  const { tables, problems } = lookupTablesFrom(message, fetchedTables);
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
  const readKeys = uniqueKeys([...decoded.writable.map((k) => k.toBase58()), ...swapMints, ...(policy.product?.reads ?? [])]);
  const before = await read(rpc, readKeys.map(toKey(decoded)));
  const pre = statesOf(readKeys, before.accounts);
  if (policy.product) violations.push(...checkProduct(policy.product, decoded, pre));
  const sim = await simulate(rpc, tx, decoded.writable, before.slot);
  const value = sim.value;
  if (value.err !== null) {
    const code = typeof value.err === 'string' ? value.err : undefined;
    if (code && TRANSIENT_SIM_ERRORS.has(code)) throw new GuardUnavailable(code === 'BlockhashNotFound' ? 'blockhash-not-found' : 'rpc', `the simulation answered ${code} (the node cannot run it now)`);
    violations.push({ rule: 'simulation-failed', message: `the simulation failed: ${JSON.stringify(value.err)}` });
    return report({ ...base, slot: sim.context.slot, unitsConsumed: value.unitsConsumed, logs: value.logs?.slice(-KEPT_LOG_LINES) });
  }
  if (!value.accounts || value.accounts.length !== decoded.writable.length) throw new GuardUnavailable('no-post-state', 'the RPC returned no post-simulation state for the accounts asked for');
  if (!value.innerInstructions) throw new GuardUnavailable('no-inner-instructions', 'the RPC returned no inner instructions (a node older than 1.18 cannot show where CPIs send funds)');

  const post = new Map<string, AccountSnapshot | null>(pre);
  decoded.writable.forEach((k, i) => post.set(k.toBase58(), fromSimulated(value.accounts![i] ?? null)));
  await assertWalletUnmoved(rpc, pre, wallet, sim.context.slot);

  const events: TracedEvent[] = [];
  const inner = new Map(value.innerInstructions.map((g) => [g.index, g.instructions]));
  decoded.instructions.forEach((ix, i) => {
    const top = ix.programId;
    for (const e of flowEventsOf({ form: 'raw', ...ix })) events.push({ ...e, top });
    for (const cpi of inner.get(i) ?? []) for (const e of flowEventsOf(fromRpcInstruction(cpi))) events.push({ ...e, top });
  });
  // An ExactOut swap's input is bounded by the feed's worth of its exact output, not by the intent's amount.
  const spend = swapSpend(policy.spend, policy.swap, pre);
  const flows = checkFlows(events, pre, post, {
    wallet,
    spend,
    tipAccounts: TIP_ACCOUNTS,
    counterparties: policy.coSigners,
    swapPrograms: SWAP_PROGRAMS,
    mayUnwrapSol: policy.mayUnwrapSol,
    burn: policy.burn,
    escrowAuthorities: policy.escrowAuthorities,
    rentExempt: rentExemptLamports,
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
  checkBalances(changes, decoded, flows, { ...policy, spend }, violations);
  if (policy.swap) checkSwapInflow(changes, decoded, flows, policy.swap, pre, violations);
  await checkExtensions(rpc, pre, post, wallet, swapMints, policy, violations);
  return report({ ...base, changes, tipsLamports, simulated: true, slot: sim.context.slot, unitsConsumed: value.unitsConsumed });
}

/**
 * The product instruction's terms against the intent, on the accounts as they were before the transaction (the
 * check decides from the chain and the intent, never the venue's fields). A check that throws is a bug of the
 * check, not a reason to sign: it refuses.
 */
function checkProduct(product: ProductCheck, decoded: DecodedMessage, pre: AccountStates): GuardViolation[] {
  try {
    return product.check(decoded.instructions, (address) => pre.get(address));
  } catch (err) {
    return [{ rule: 'product-instruction', message: `the ${product.kind} terms could not be checked: ${err instanceof Error ? err.message : String(err)}` }];
  }
}

/** Token-2022 mints the wallet holds or trades here whose extensions let a stranger move its tokens. */
async function checkExtensions(rpc: SolanaRpc, pre: AccountStates, post: AccountStates, wallet: string, swapMints: readonly string[], policy: GuardPolicy, violations: GuardViolation[]): Promise<void> {
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
  const fetched = missing.length > 0 ? statesOf(missing, (await read(rpc, missing.map((m) => toPublicKey(m)))).accounts) : new Map<string, AccountSnapshot | null>();
  for (const mint of wanted) {
    const found = dangerousExtensions(mint, pre.get(mint) ?? fetched.get(mint));
    if (found.length > 0) violations.push({ rule: 'token-extension', message: `Token-2022 mint ${mint} has ${found.join(' and ')}; allow it in risk.allowToken2022Mints to trade it` });
  }
}

/**
 * Reads the wallet's accounts again, on a node at least as fresh as the simulation, and checks they are what the
 * "before" read saw: otherwise another transaction landed in between and the before/after comparison would count
 * its effect as this one's.
 */
async function assertWalletUnmoved(rpc: SolanaRpc, pre: AccountStates, wallet: string, slot: number): Promise<void> {
  const keys = [...pre.keys()].filter((k) => k === wallet || readTokenAccount(pre.get(k))?.owner === wallet);
  const again = statesOf(keys, (await read(rpc, keys.map((k) => toPublicKey(k)), slot)).accounts);
  for (const k of keys) {
    const a = pre.get(k) ?? null;
    const b = again.get(k) ?? null;
    const same = a === null || b === null ? a === b : a.lamports === b.lamports && a.owner === b.owner && a.data.length === b.data.length && a.data.every((x, i) => x === b.data[i]);
    if (!same) throw new GuardUnavailable('state-moved', `the wallet's account ${k} changed while the transaction was being checked (another transaction landed); checking again`);
  }
}

type RawAccount = AccountSnapshot | null;

async function read(rpc: SolanaRpc, keys: readonly PublicKey[], minContextSlot?: number): Promise<{ slot: number; accounts: RawAccount[] }> {
  try {
    const r = await rpc.accountsAt(keys, minContextSlot);
    return { slot: r.slot, accounts: r.accounts.map(fromInfo) };
  } catch (err) {
    throw unavailableFrom('getMultipleAccounts', err);
  }
}

async function simulate(rpc: SolanaRpc, tx: VersionedTransaction, accounts: readonly PublicKey[], minContextSlot: number) {
  try {
    return await rpc.simulate(tx, accounts, { minContextSlot });
  } catch (err) {
    throw unavailableFrom('simulateTransaction', err);
  }
}

function unavailableFrom(call: string, err: unknown): GuardUnavailable {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === -32016) return new GuardUnavailable('node-behind', `RPC ${call}: the node has not reached the slot of the previous read`, err);
  return new GuardUnavailable('rpc', `RPC ${call} failed: ${err instanceof Error ? err.message.slice(0, 200) : String(err)}`, err);
}

function fromInfo(info: AccountInfo<Buffer> | null): RawAccount {
  return info ? { lamports: BigInt(info.lamports), owner: info.owner.toBase58(), data: info.data, executable: info.executable } : null;
}

function fromSimulated(acc: SimulatedTransactionAccountInfo | null): RawAccount {
  if (!acc) return null;
  const [payload, encoding] = acc.data;
  const data = payload !== undefined && encoding === 'base64' ? Buffer.from(payload, 'base64') : new Uint8Array(0);
  return { lamports: BigInt(acc.lamports), owner: acc.owner, data, executable: acc.executable };
}

function statesOf(keys: readonly string[], accounts: readonly RawAccount[]): Map<string, AccountSnapshot | null> {
  const states = new Map<string, AccountSnapshot | null>();
  keys.forEach((k, i) => states.set(k, accounts[i] ?? null));
  return states;
}

function uniqueKeys(keys: readonly string[]): string[] {
  return [...new Set(keys)];
}

function toKey(decoded: DecodedMessage): (k: string) => PublicKey {
  const known = new Map(decoded.writable.map((w) => [w.toBase58(), w]));
  return (k) => known.get(k) ?? toPublicKey(k);
}

function toPublicKey(k: string): PublicKey {
  return new PublicKey(k);
}
