import bs58 from 'bs58';
import { SendTransactionError, VersionedTransaction } from '@solana/web3.js';
import type { JupiterClient } from '../jupiter/client.js';
import { ExecuteError, JupiterError, SchemaError } from '../jupiter/errors.js';
import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { killSwitchVerdict, type KillSwitchState } from '../engine/killSwitch.js';
import { isTerminal, SIGNED_STATES, type IntentState } from '../engine/states.js';
import type { Intent } from '../sdk/intents.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { HotWallet } from '../solana/wallet.js';
import type { GuardReport } from '../solana/guard.js';
import type { IntentPatch, IntentRecord, IntentStore } from '../store/intents.js';
import { BuildRefusal } from './build.js';
import { confirmSignature, type Confirmation } from './confirm.js';
import { crashPoint } from './faultPoints.js';
import type { Allowance, BuiltTransaction, SubmitRoute } from './types.js';

/** What the executor needs; main.ts wires the concrete parts. */
export interface ExecutorDeps {
  store: IntentStore;
  jup: JupiterClient;
  rpc: SolanaRpc;
  wallet: HotWallet;
  build: (intent: Intent, signal?: AbortSignal) => Promise<BuiltTransaction>;
  guard: (tx: VersionedTransaction, allowance: Allowance) => Promise<GuardReport>;
  /** The kill switch as it is now (read before anything is built and again before anything is signed). */
  killSwitch: () => Promise<KillSwitchState | null>;
  logger: Logger;
  maxAttempts: number;
  now?: () => number;
}

/** How an execution ended for this worker. `superseded`: another owner took the intent over (its fence moved). */
export interface ExecutionResult {
  state: IntentState;
  superseded?: boolean;
}

/** The intent named by a job does not exist. */
export class MissingIntentError extends KeeperError {
  constructor(id: string) {
    super('INTENT_MISSING', 'abandon', `intent ${id} is not in the ledger`);
  }
}

class Superseded extends Error {}

type AttemptEnd = { done: IntentState } | { expired: true };

/**
 * Carries one intent to a terminal state, exactly once (ARCHITECTURE.md §3): build through the API, guard,
 * sign, persist the signature and lastValidBlockHeight, submit, confirm. A worker that finds the intent signed or
 * submitted never builds or signs again: it re-submits the same bytes and confirms by signature. Only a provably
 * expired, absent signature leads to a new attempt. Every move is fenced: once another owner claims the intent,
 * this one's writes are refused and it stops.
 */
export class Executor {
  private readonly now: () => number;

  constructor(private readonly deps: ExecutorDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Runs (or resumes) an intent until it is terminal or this worker is superseded. */
  async execute(id: string, signal?: AbortSignal): Promise<ExecutionResult> {
    const first = await this.deps.store.get(id);
    if (!first) throw new MissingIntentError(id);
    if (isTerminal(first.state)) return { state: first.state };
    const fence = await this.deps.store.claim(id);
    const log = this.deps.logger.child({ intent: id, instance: first.instance, kind: first.kind });
    try {
      for (;;) {
        const rec = await this.deps.store.get(id);
        if (!rec) throw new MissingIntentError(id);
        if (isTerminal(rec.state)) return { state: rec.state };
        const end = SIGNED_STATES.has(rec.state) ? await this.resume(rec, fence, log, signal) : await this.attempt(rec, fence, log, signal);
        if ('done' in end) return { state: end.done };
        const after = await this.deps.store.get(id);
        if (!after) throw new MissingIntentError(id);
        if (after.attempt >= this.deps.maxAttempts || this.now() >= after.deadline) {
          await this.move(after, fence, 'expired', { error: { code: 'EXPIRED', message: `attempt ${after.attempt} expired unlanded; no attempts or time left` } }, log);
          return { state: 'expired' };
        }
        log.warn({ attempt: after.attempt, signature: after.signature }, 'attempt expired with its signature absent; building a new attempt');
        await this.move(after, fence, 'planned', { attempt: after.attempt + 1, signedTx: null, signature: null, requestId: null, lastValidBlockHeight: null, route: null, quote: null }, log);
      }
    } catch (err) {
      if (err instanceof Superseded) {
        log.info('another worker took this intent over; stopping');
        return { state: (await this.deps.store.get(id))?.state ?? 'planned', superseded: true };
      }
      throw err;
    }
  }

  /** A fresh attempt from planned/built/guarded: nothing is signed yet, so building again is safe. */
  private async attempt(rec: IntentRecord, fence: number, log: Logger, signal?: AbortSignal): Promise<AttemptEnd> {
    if (this.now() >= rec.deadline) {
      await this.move(rec, fence, 'expired', { error: { code: 'DEADLINE', message: 'the intent passed its deadline before it could be sent' } }, log);
      return { done: 'expired' };
    }
    if (await this.stoppedBySwitch(rec, fence, log)) return { done: 'rejected' };
    let built: BuiltTransaction;
    try {
      built = await this.deps.build(rec.intent, signal);
    } catch (err) {
      const refusal = classifyBuildError(err);
      if (!refusal) throw err;
      log.warn({ code: refusal.code, reason: refusal.message }, `intent ${refusal.state}`);
      await this.move(rec, fence, refusal.state, { error: { code: refusal.code, message: refusal.message } }, log);
      return { done: refusal.state };
    }
    const route = built.route;
    await this.move(rec, fence, 'built', { requestId: 'requestId' in route ? route.requestId : null, route: { ...route }, quote: built.quote }, log);
    crashPoint('after-build');

    const report = await this.deps.guard(built.tx, built.allowance);
    if (!report.ok) {
      const message = report.violations.map((v) => `${v.rule}: ${v.message}`).join('; ');
      log.error({ violations: report.violations, programs: report.programs }, 'pre-sign guard refused the transaction; nothing was signed');
      await this.move(rec, fence, 'rejected', { error: { code: 'GUARD_REFUSED', message } }, log);
      return { done: 'rejected' };
    }
    await this.move(rec, fence, 'guarded', { quote: { ...built.quote, expectedChanges: report.changes } }, log);

    // The switch may have been thrown while the venue built and the guard checked: nothing is signed after it.
    if (await this.stoppedBySwitch(rec, fence, log)) return { done: 'rejected' };
    this.deps.wallet.sign(built.tx);
    for (const s of built.extraSigners ?? []) s.sign(built.tx);
    const signature = bs58.encode(built.tx.signatures[0] ?? new Uint8Array(64));
    const signedTx = Buffer.from(built.tx.serialize()).toString('base64');
    const current = await this.deps.store.get(rec.id);
    await this.move(rec, fence, 'signed', { signedTx, signature, signatures: [...(current?.signatures ?? []), signature], lastValidBlockHeight: built.lastValidBlockHeight }, log);
    log.info({ signature, lastValidBlockHeight: built.lastValidBlockHeight.toString(), via: route.via }, 'signed; signature persisted before submit');
    crashPoint('after-sign');
    const signed = await this.deps.store.get(rec.id);
    if (!signed) throw new MissingIntentError(rec.id);
    return this.submitAndConfirm(signed, fence, log, signal);
  }

  /**
   * Whether the kill switch refuses this intent (halt, or reduce-only and the intent adds exposure); if so the
   * intent ends rejected with the switch's reason. Only unsigned intents come here: signed bytes are committed.
   */
  private async stoppedBySwitch(rec: IntentRecord, fence: number, log: Logger): Promise<boolean> {
    const verdict = killSwitchVerdict(await this.deps.killSwitch(), rec.intent);
    if (!verdict) return false;
    log.warn({ code: verdict.code, reason: verdict.message }, 'kill switch: nothing is built or signed for this intent');
    await this.move(rec, fence, 'rejected', { error: verdict }, log);
    return true;
  }

  /** A signed or submitted intent: re-submit the same bytes and confirm; never sign again. */
  private async resume(rec: IntentRecord, fence: number, log: Logger, signal?: AbortSignal): Promise<AttemptEnd> {
    log.info({ state: rec.state, signature: rec.signature }, 'resuming a signed intent: re-submitting the same bytes');
    return this.submitAndConfirm(rec, fence, log, signal);
  }

  private async submitAndConfirm(rec: IntentRecord, fence: number, log: Logger, signal?: AbortSignal): Promise<AttemptEnd> {
    if (!rec.signedTx || !rec.signature || rec.lastValidBlockHeight === null) {
      throw new KeeperError('INTENT_CORRUPT', 'halt', `intent ${rec.id} is ${rec.state} without its signed transaction`);
    }
    const tx = VersionedTransaction.deserialize(Buffer.from(rec.signedTx, 'base64'));
    const route = parseRoute(rec.route);
    await this.move(rec, fence, 'submitted', {}, log);
    let executed: Record<string, unknown> | undefined;
    const send = async (): Promise<void> => {
      executed = (await this.submitOnce(route, rec.signedTx!, tx)) ?? executed;
    };
    try {
      await send();
    } catch (err) {
      const refused = preflightRefusal(err);
      if (refused) {
        log.warn({ reason: refused }, 'the node refused the transaction in preflight; nothing landed');
        await this.move(rec, fence, 'failed', { error: { code: 'PREFLIGHT', message: refused } }, log);
        return { done: 'failed' };
      }
      log.warn({ err: summarize(err) }, 'submit did not confirm; checking the chain by signature');
    }
    crashPoint('after-submit');
    const c: Confirmation = await confirmSignature(this.deps.rpc, {
      signature: rec.signature,
      blockhash: tx.message.recentBlockhash,
      lastValidBlockHeight: rec.lastValidBlockHeight,
      resend: send,
      signal,
      logger: log,
    });
    if (c.kind === 'expired') return { expired: true };
    const latest = (await this.deps.store.get(rec.id)) ?? rec;
    if (c.kind === 'landed') {
      await this.move(latest, fence, 'landed', { result: { slot: c.status.slot, ...(executed ?? {}), expected: latest.quote?.expectedChanges ?? null } }, log);
      log.info({ signature: rec.signature, slot: c.status.slot }, 'landed');
      return { done: 'landed' };
    }
    await this.move(latest, fence, 'failed', { result: { slot: c.status.slot }, error: { code: 'TX_FAILED', message: `landed with an error: ${JSON.stringify(c.status.err)}` } }, log);
    log.warn({ signature: rec.signature, err: c.status.err }, 'landed with an error (fee paid)');
    return { done: 'failed' };
  }

  /** Sends the signed bytes once by the intent's route; returns what the venue reported when it executed them. */
  private async submitOnce(route: SubmitRoute, signedTx: string, tx: VersionedTransaction): Promise<Record<string, unknown> | undefined> {
    const { jup, rpc } = this.deps;
    switch (route.via) {
      case 'ultra':
        try {
          const r = await jup.ultra.executeOrder({ signedTransaction: signedTx, requestId: route.requestId });
          return { inAmount: r.totalInputAmount, outAmount: r.totalOutputAmount, slot: r.slot };
        } catch (err) {
          // The venue forgot the request (older than its cache): the same bytes can still go through RPC, but only
          // if they are complete. An Ultra transaction the venue co-signs at execute carries an empty signature
          // slot; a node refuses it in preflight ("signature verification failure"), which would end the intent as
          // failed though nothing was ever sent, losing it instead of rebuilding it after expiry (rule 5). Leave
          // such bytes to the confirmation: they land by signature or provably expire, and only then is the intent
          // rebuilt as a new attempt.
          if (err instanceof ExecuteError && err.executeCode === -1 && fullySigned(tx)) {
            await rpc.send(tx.serialize());
            return undefined;
          }
          throw err;
        }
      case 'trigger':
        await jup.trigger.execute({ signedTransaction: signedTx, requestId: route.requestId });
        return undefined;
      case 'recurring':
        await jup.recurring.execute({ signedTransaction: signedTx, requestId: route.requestId });
        return undefined;
      case 'rpc':
        await rpc.send(tx.serialize());
        return undefined;
    }
  }

  private async move(rec: IntentRecord, fence: number, to: IntentState, patch: IntentPatch, log: Logger): Promise<void> {
    const m = await this.deps.store.move(rec.id, fence, to, patch, this.now());
    if (m.ok) {
      log.debug({ from: m.from, to }, 'intent moved');
      return;
    }
    if (m.reason === 'fence' || (m.state !== null && isTerminal(m.state))) throw new Superseded();
    throw new KeeperError('INTENT_STATE', 'halt', `intent ${rec.id} cannot move from ${m.state ?? 'nothing'} to ${to}`);
  }
}

/** Errors of a build that end the intent (not retried), as a refusal; undefined for transient ones. */
function classifyBuildError(err: unknown): { state: 'failed' | 'rejected'; code: string; message: string } | undefined {
  if (err instanceof BuildRefusal) return { state: err.state, code: err.code, message: err.message };
  if (err instanceof SchemaError) return undefined;
  if (err instanceof JupiterError && err.action === 'abandon') {
    return { state: err.code === 'JUP_LIMIT' ? 'rejected' : 'failed', code: err.code, message: err.message };
  }
  return undefined;
}

function parseRoute(route: Record<string, unknown> | null): SubmitRoute {
  const via = route?.via;
  const requestId = typeof route?.requestId === 'string' ? route.requestId : undefined;
  if ((via === 'ultra' || via === 'trigger' || via === 'recurring') && requestId) return { via, requestId };
  if (via === 'rpc') return { via };
  throw new KeeperError('INTENT_CORRUPT', 'halt', `unreadable submit route ${JSON.stringify(route)}`);
}

/** Whether every required signature slot of a transaction is filled (none is still the all-zero placeholder). */
function fullySigned(tx: VersionedTransaction): boolean {
  return tx.signatures.every((s) => s.some((b) => b !== 0));
}

/** A preflight refusal by the RPC node (the transaction never entered the ledger), except an unknown blockhash. */
function preflightRefusal(err: unknown): string | undefined {
  if (!(err instanceof SendTransactionError)) return undefined;
  const text = err.message;
  if (/blockhash not found/i.test(text) || /BlockhashNotFound/.test(text)) return undefined;
  if (/already (been )?processed/i.test(text)) return undefined;
  return text.slice(0, 300);
}

function summarize(err: unknown): Record<string, unknown> {
  if (err instanceof KeeperError) return { code: err.code, message: err.message };
  return { message: err instanceof Error ? err.message : String(err) };
}
