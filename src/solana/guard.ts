import type { AccountInfo, PublicKey, SimulatedTransactionAccountInfo, VersionedTransaction } from '@solana/web3.js';
import { KeeperError } from '../lib/errors.js';
import { WSOL_MINT } from '../lib/mints.js';
import { computeWalletChanges, findAuthorityChanges, solSpent, type AccountSnapshot, type AccountStates, type AuthorityChange, type WalletChanges } from './guardChanges.js';
import { decodeMessage, lookupTablesFrom, type DecodedMessage } from './guardDecode.js';
import type { ApiArea } from './programs.js';
import type { SolanaRpc } from './rpc.js';

/** Why the guard refuses a transaction. Stable strings: logs, metrics and the intent ledger record them. */
export type GuardRule =
  | 'malformed'
  | 'lookup-table'
  | 'fee-payer'
  | 'program-not-allowed'
  | 'durable-nonce'
  | 'fee-budget'
  | 'simulation-failed'
  | 'token-outflow'
  | 'sol-outflow'
  | 'inflow-short'
  | 'authority-change';

/** One reason to refuse, with a message naming accounts and base-unit amounts (never key material). */
export interface GuardViolation {
  rule: GuardRule;
  message: string;
}

/** What a transaction may do to the wallet. Amounts in base units; the wSOL mint stands for native lamports. */
export interface GuardPolicy {
  /** The hot wallet: must be the fee payer; its balances are the ones checked. */
  wallet: PublicKey;
  area: ApiArea;
  /** Base58 programs the transaction may invoke at the top level (see `allowedProgramsFor`). */
  allowedPrograms: ReadonlySet<string>;
  /** Most of each mint that may leave the wallet; a mint not listed may not leave at all. */
  maxOutflow: ReadonlyMap<string, bigint>;
  /** Lamports the wallet may spend on fees and rent, beyond any SOL outflow allowed. */
  feeBudgetLamports: bigint;
  /**
   * Least of each mint the wallet must gain (e.g. the quote's minimum output), so that a transaction cannot
   * redirect what the wallet buys. For wSOL the net SOL gain may fall short by at most the fee budget.
   */
  minInflow?: ReadonlyMap<string, bigint>;
}

/** What the guard found. `ok` is true only when there is no violation. */
export interface GuardReport {
  ok: boolean;
  violations: GuardViolation[];
  /** Base58 fee payer, or null when the transaction could not be decoded. */
  feePayer: string | null;
  /** Base58 required signers, fee payer first (co-signers such as a market maker's are allowed and listed). */
  signers: string[];
  /** Base58 top-level programs invoked. */
  programs: string[];
  /** The wallet's changes in the simulation (zero when it did not run or failed). */
  changes: WalletChanges;
  /** Most the fee payer is charged in fees, lamports (null when undecodable). */
  feeLamports: bigint | null;
  /** Whether the simulation ran and succeeded, so that `changes` are meaningful. */
  simulated: boolean;
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

/** An RPC call the guard needs failed (network, node error): nothing was decided; retry later. */
export class GuardRpcError extends KeeperError {
  constructor(call: string, cause: unknown) {
    super('GUARD_RPC_FAILED', 'retry', `the pre-sign guard could not complete: RPC ${call} failed`, { cause, details: { call } });
  }
}

/** Throws a GuardRefusal when the report holds any violation. */
export function assertGuardPassed(report: GuardReport): void {
  if (!report.ok) throw new GuardRefusal(report.violations);
}

const MAX_ACCOUNTS_PER_CALL = 100;
const KEPT_LOG_LINES = 20;

/**
 * Checks an unsigned transaction built by someone else before the hot key signs it (ARCHITECTURE.md §4):
 * resolves its lookup tables, checks the fee payer, the programs and the fee, simulates it without signature
 * checks, and compares the wallet's accounts before and after. A bad transaction never throws: every problem is
 * a violation in the report. A failed RPC call throws GuardRpcError (retry).
 */
export async function guardTransaction(tx: VersionedTransaction, policy: GuardPolicy, rpc: SolanaRpc): Promise<GuardReport> {
  const wallet = policy.wallet.toBase58();
  const violations: GuardViolation[] = [];
  const report = (fields: Partial<GuardReport>): GuardReport => ({
    ok: violations.length === 0,
    violations,
    feePayer: null,
    signers: [],
    programs: [],
    changes: { lamports: 0n, tokens: [] },
    feeLamports: null,
    simulated: false,
    ...fields,
  });

  const message = tx.message;
  const tableKeys = message.addressTableLookups.map((l) => l.accountKey);
  const fetchedTables = tableKeys.length > 0 ? await fetchAccounts(rpc, tableKeys) : [];
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

  const [preList, sim] = await Promise.all([fetchAccounts(rpc, decoded.writable), simulate(rpc, tx, decoded.writable)]);
  const unitsConsumed = sim.unitsConsumed;
  if (sim.err !== null) {
    violations.push({ rule: 'simulation-failed', message: `the simulation failed: ${JSON.stringify(sim.err)}` });
    return report({ ...base, unitsConsumed, logs: sim.logs?.slice(-KEPT_LOG_LINES) });
  }
  if (!sim.accounts || sim.accounts.length !== decoded.writable.length) {
    violations.push({ rule: 'simulation-failed', message: 'the RPC returned no post-simulation state for the accounts asked for' });
    return report({ ...base, unitsConsumed });
  }
  const pre = statesOf(decoded.writable, preList);
  const post = statesOf(decoded.writable, sim.accounts.map(fromSimulated));
  const changes = computeWalletChanges(pre, post, wallet);
  checkChanges(changes, policy, violations);
  for (const change of findAuthorityChanges(pre, post, wallet)) violations.push({ rule: 'authority-change', message: describeAuthorityChange(change) });
  return report({ ...base, changes, simulated: true, unitsConsumed });
}

function checkStatic(decoded: DecodedMessage, policy: GuardPolicy, wallet: string, violations: GuardViolation[]): void {
  if (decoded.feePayer !== wallet) violations.push({ rule: 'fee-payer', message: `the fee payer is ${decoded.feePayer}, not the wallet ${wallet}` });
  for (const program of decoded.programs) {
    if (!policy.allowedPrograms.has(program)) violations.push({ rule: 'program-not-allowed', message: `program ${program} is not allowed for ${policy.area} transactions` });
  }
  if (decoded.durableNonce) violations.push({ rule: 'durable-nonce', message: 'the transaction advances a durable nonce, so it would never expire' });
  if (decoded.feeLamports > policy.feeBudgetLamports) {
    violations.push({ rule: 'fee-budget', message: `fees of up to ${decoded.feeLamports} lamports exceed the fee budget of ${policy.feeBudgetLamports}` });
  }
}

/** Refusals (a), (b) and the optional minimum inflow, from the wallet's net changes. */
function checkChanges(changes: WalletChanges, policy: GuardPolicy, violations: GuardViolation[]): void {
  for (const { mint, delta } of changes.tokens) {
    if (mint === WSOL_MINT || delta >= 0n) continue;
    const allowed = policy.maxOutflow.get(mint) ?? 0n;
    if (-delta > allowed) violations.push({ rule: 'token-outflow', message: `${-delta} base units of ${mint} would leave the wallet; at most ${allowed} may` });
  }
  const spent = solSpent(changes);
  const solAllowed = (policy.maxOutflow.get(WSOL_MINT) ?? 0n) + policy.feeBudgetLamports;
  if (spent > solAllowed) violations.push({ rule: 'sol-outflow', message: `${spent} lamports would leave the wallet; at most ${solAllowed} may (outflow plus fee budget)` });
  for (const [mint, least] of policy.minInflow ?? []) {
    const gained = mint === WSOL_MINT ? -spent : (changes.tokens.find((t) => t.mint === mint)?.delta ?? 0n);
    // Fees come out of a SOL output, so SOL may fall short of the minimum by the fee budget.
    const slack = mint === WSOL_MINT ? policy.feeBudgetLamports : 0n;
    if (gained + slack < least) {
      violations.push({ rule: 'inflow-short', message: `the wallet would gain ${gained} base units of ${mint}; at least ${least}${slack > 0n ? ` less ${slack} of fees` : ''} were expected` });
    }
  }
}

function describeAuthorityChange(c: AuthorityChange): string {
  const what = { owner: 'owner', delegate: 'delegate', 'close-authority': 'close authority', 'wallet-owner': 'owning program' }[c.kind];
  const where = c.kind === 'wallet-owner' ? `the wallet ${c.account}` : `token account ${c.account} (mint ${c.mint})`;
  return `the ${what} of ${where} would change from ${c.from ?? 'none'} to ${c.to ?? 'none'}`;
}

type RawAccount = { lamports: bigint; owner: string; data: Uint8Array } | null;

async function fetchAccounts(rpc: SolanaRpc, keys: readonly PublicKey[]): Promise<RawAccount[]> {
  const out: RawAccount[] = [];
  for (let i = 0; i < keys.length; i += MAX_ACCOUNTS_PER_CALL) {
    const chunk = keys.slice(i, i + MAX_ACCOUNTS_PER_CALL);
    let infos: Array<AccountInfo<Buffer> | null>;
    try {
      infos = await rpc.connection.getMultipleAccountsInfo([...chunk]);
    } catch (err) {
      throw new GuardRpcError('getMultipleAccounts', err);
    }
    for (const info of infos) out.push(info ? { lamports: BigInt(info.lamports), owner: info.owner.toBase58(), data: info.data } : null);
  }
  return out;
}

async function simulate(rpc: SolanaRpc, tx: VersionedTransaction, accounts: readonly PublicKey[]) {
  try {
    return (await rpc.simulate(tx, accounts)).value;
  } catch (err) {
    throw new GuardRpcError('simulateTransaction', err);
  }
}

function fromSimulated(acc: SimulatedTransactionAccountInfo | null): RawAccount {
  if (!acc) return null;
  const [payload, encoding] = acc.data;
  const data = payload !== undefined && encoding === 'base64' ? Buffer.from(payload, 'base64') : new Uint8Array(0);
  return { lamports: BigInt(acc.lamports), owner: acc.owner, data };
}

function statesOf(keys: readonly PublicKey[], accounts: readonly RawAccount[]): AccountStates {
  const states = new Map<string, AccountSnapshot | null>();
  keys.forEach((k, i) => states.set(k.toBase58(), accounts[i] ?? null));
  return states;
}
