import { PublicKey, type AccountInfo, type SimulatedTransactionAccountInfo, type VersionedTransaction } from '@solana/web3.js';
import { KeeperError } from '../lib/errors.js';
import { computeWalletChanges, findAuthorityChanges, readTokenAccount, solSpent, type AccountSnapshot, type AccountStates, type AuthorityChange, type WalletChanges } from './guardChanges.js';
import { decodeMessage, lookupTablesFrom, type DecodedMessage } from './guardDecode.js';
import { checkFlows, SOL_ASSET, type FlowSummary, type SpendRule, type TracedEvent } from './guardFlows.js';
import { flowEventsOf, fromRpcInstruction } from './guardInstructions.js';
import { dangerousExtensions, mintDecimals } from './guardToken2022.js';
import { PROGRAM_IDS, TIP_ACCOUNTS, type ApiArea } from './programs.js';
import type { SolanaRpc } from './rpc.js';
import { minimumSwapOutput, type SwapTerms } from './swapValue.js';

export type { SpendRule } from './guardFlows.js';
export type { SwapTerms } from './swapValue.js';

/** Why the guard refuses a transaction. Stable strings: logs, metrics and the intent ledger record them. */
export type GuardRule =
  | 'malformed'
  | 'lookup-table'
  | 'fee-payer'
  | 'signer'
  | 'program-not-allowed'
  | 'durable-nonce'
  | 'priority-fee'
  | 'simulation-failed'
  | 'destination'
  | 'sol-outflow'
  | 'token-outflow'
  | 'escrow-amount'
  | 'close-account'
  | 'wallet-account'
  | 'token-account'
  | 'unknown-instruction'
  | 'output-mint'
  | 'inflow-short'
  | 'token-extension';

/** One reason to refuse, with a message naming accounts and base-unit amounts (never key material). */
export interface GuardViolation {
  rule: GuardRule;
  message: string;
}

/**
 * What a transaction may do to the wallet. Every limit here comes from the intent, the configuration and sources
 * independent of the venue (the price feed, the chain): never from the response being checked (ARCHITECTURE.md §4).
 */
export interface GuardPolicy {
  /** The hot wallet: must be the fee payer; its accounts are the ones checked. */
  wallet: PublicKey;
  area: ApiArea;
  /** Base58 programs the transaction may invoke at the top level (see `allowedProgramsFor`). */
  allowedPrograms: ReadonlySet<string>;
  /** Required signers allowed besides the wallet (the venue's declared co-signers, signers the engine adds). */
  coSigners: ReadonlySet<string>;
  /** Most priority fee (compute-unit price at the limit, plus tips) the transaction may pay, lamports. */
  maxPriorityFeeLamports: bigint;
  /** What may leave the wallet, and where to. */
  spend: SpendRule;
  /** A swap's terms: the wallet must gain at least what the amount is worth at the feed's prices, less bounds. */
  swap?: SwapTerms | undefined;
  /** Closing the wallet's native (wSOL) account back to the wallet is part of the intent (SOL in or out). */
  mayUnwrapSol: boolean;
  /** A lend withdrawal burns at most this of its share token. */
  burn?: { mint: string; max: bigint } | undefined;
  /** Escrow authorities derived from the area's program with its published seeds. */
  escrowAuthorities?: ReadonlySet<string> | undefined;
  /** Token-2022 mints with a transfer hook or permanent delegate that may still be traded. */
  allowToken2022Mints: ReadonlySet<string>;
}

/** What the guard found. `ok` is true only when there is no violation. */
export interface GuardReport {
  ok: boolean;
  violations: GuardViolation[];
  /** Base58 fee payer, or null when the transaction could not be decoded. */
  feePayer: string | null;
  /** Base58 required signers, fee payer first. */
  signers: string[];
  /** Base58 top-level programs invoked. */
  programs: string[];
  /** The wallet's changes in the simulation (zero when it did not run or failed). */
  changes: WalletChanges;
  /** Most the fee payer is charged in fees, lamports (null when undecodable). */
  feeLamports: bigint | null;
  /** Lamports tipped to tip accounts. */
  tipsLamports: bigint;
  /** Whether the simulation ran and succeeded, so that `changes` are meaningful. */
  simulated: boolean;
  /** The slot the simulation ran at. */
  slot?: number;
  unitsConsumed?: number;
  /** The simulation's last log lines, when it failed. */
  logs?: string[];
}

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
  const readKeys = uniqueKeys([...decoded.writable.map((k) => k.toBase58()), ...swapMints]);
  const before = await read(rpc, readKeys.map(toKey(decoded)));
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

  const pre = statesOf(readKeys, before.accounts);
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
  const flows = checkFlows(events, pre, post, {
    wallet,
    spend: policy.spend,
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
  checkBalances(changes, decoded, flows, policy, violations);
  if (policy.swap) checkSwapInflow(changes, decoded, flows, policy.swap, pre, violations);
  await checkExtensions(rpc, pre, post, wallet, swapMints, policy, violations);
  return report({ ...base, changes, tipsLamports, simulated: true, slot: sim.context.slot, unitsConsumed: value.unitsConsumed });
}

function checkStatic(decoded: DecodedMessage, policy: GuardPolicy, wallet: string, violations: GuardViolation[]): void {
  if (decoded.feePayer !== wallet) violations.push({ rule: 'fee-payer', message: `the fee payer is ${decoded.feePayer}, not the wallet ${wallet}` });
  for (const signer of decoded.signers) {
    if (signer !== wallet && !policy.coSigners.has(signer)) violations.push({ rule: 'signer', message: `the transaction needs the signature of ${signer}, neither the wallet nor a declared co-signer of the venue` });
  }
  for (const program of decoded.programs) {
    if (!policy.allowedPrograms.has(program)) violations.push({ rule: 'program-not-allowed', message: `program ${program} is not allowed for ${policy.area} transactions` });
  }
  if (decoded.durableNonce) violations.push({ rule: 'durable-nonce', message: 'the transaction advances a durable nonce, so it would never expire' });
  if (decoded.priorityFeeLamports > policy.maxPriorityFeeLamports) {
    violations.push({ rule: 'priority-fee', message: `a priority fee of up to ${decoded.priorityFeeLamports} lamports exceeds the cap of ${policy.maxPriorityFeeLamports} (risk.maxPriorityFeeLamports)` });
  }
}

/**
 * The wallet's net balances, a second line behind the flows: no mint may fall by more than the intent lets leave,
 * and SOL may fall by no more than the signature fees, the priority fee and tips, the escrow's rent and whatever
 * SOL the intent itself sends. Rent of accounts the wallet owns afterwards stays the wallet's, so it is not spent.
 */
function checkBalances(changes: WalletChanges, decoded: DecodedMessage, flows: FlowSummary, policy: GuardPolicy, violations: GuardViolation[]): void {
  const allowed = (mint: string): bigint => {
    const s = policy.spend;
    let n = 0n;
    if (s.kind === 'counterparty' && s.mint === mint) n += s.max;
    if (s.kind === 'escrow' && s.mint === mint) n += s.amount;
    if (policy.burn?.mint === mint) n += policy.burn.max;
    return n;
  };
  for (const { mint, delta } of changes.tokens) {
    if (mint === SOL_ASSET || delta >= 0n) continue;
    if (-delta > allowed(mint)) violations.push({ rule: 'token-outflow', message: `${-delta} base units of ${mint} would leave the wallet; the intent allows ${allowed(mint)}` });
  }
  const spent = solSpent(changes);
  const fees = decoded.baseFeeLamports + decoded.priorityFeeLamports + flows.tipsLamports;
  const solAllowed = fees + flows.escrowRentLamports + allowed(SOL_ASSET);
  if (spent > solAllowed) {
    violations.push({ rule: 'sol-outflow', message: `${spent} lamports would leave the wallet; at most ${solAllowed} may (fees ${fees}, escrow rent ${flows.escrowRentLamports}, the intent's SOL ${allowed(SOL_ASSET)})` });
  }
}

/** A swap's inflow: in the intent's output mint, and at least what the amount is worth at the feed's prices less the bounds. */
function checkSwapInflow(changes: WalletChanges, decoded: DecodedMessage, flows: FlowSummary, terms: SwapTerms, pre: AccountStates, violations: GuardViolation[]): void {
  const least = minimumSwapOutput(terms, { input: mintDecimals(pre.get(terms.inputMint)), output: mintDecimals(pre.get(terms.outputMint)) });
  // SOL output: the net SOL gain is after the fees the transaction pays, which the fee checks bound on their own.
  const gained = terms.outputMint === SOL_ASSET ? -solSpent(changes) + decoded.baseFeeLamports + decoded.priorityFeeLamports + flows.tipsLamports : (changes.tokens.find((t) => t.mint === terms.outputMint)?.delta ?? 0n);
  if (gained >= least) return;
  const other = changes.tokens.filter((t) => t.delta > 0n && t.mint !== terms.outputMint && t.mint !== terms.inputMint && t.mint !== SOL_ASSET);
  if (gained <= 0n && other.length > 0) {
    violations.push({ rule: 'output-mint', message: `the wallet would receive ${other.map((t) => `${t.delta} of ${t.mint}`).join(', ')} instead of ${terms.outputMint}` });
    return;
  }
  violations.push({ rule: 'inflow-short', message: `the wallet would gain ${gained} base units of ${terms.outputMint}; the intent's ${terms.amount} of ${terms.inputMint} is worth at least ${least} at the feed's prices less ${terms.slippageBps} bps slippage and ${terms.feeBps} bps fees` });
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

function describeAccountChange(c: AuthorityChange): GuardViolation {
  if (c.kind === 'wallet-owner' || c.kind === 'wallet-data' || c.kind === 'wallet-executable') {
    const what = { 'wallet-owner': 'owning program', 'wallet-data': 'data', 'wallet-executable': 'executable flag' }[c.kind];
    return { rule: 'wallet-account', message: `the ${what} of the wallet ${c.account} would change from ${c.from ?? 'none'} to ${c.to ?? 'none'}` };
  }
  const what = { owner: 'owner', delegate: 'delegate', 'close-authority': 'close authority', state: 'state' }[c.kind];
  return { rule: 'token-account', message: `the ${what} of token account ${c.account} (mint ${c.mint}) would change from ${c.from ?? 'none'} to ${c.to ?? 'none'}` };
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
