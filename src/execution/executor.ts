import type { VersionedTransaction } from '@solana/web3.js';
import type { JupiterClient } from '../jupiter/client.js';
import { JupiterError, SchemaError } from '../jupiter/errors.js';
import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/time.js';
import { killSwitchVerdictFor, type KillSwitchState } from '../engine/killSwitch.js';
import { isTerminal, SIGNED_STATES, type IntentState } from '../engine/states.js';
import type { Intent } from '../sdk/intents.js';
import { GuardUnavailable, type GuardReport } from '../solana/guard.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { HotWallet } from '../solana/wallet.js';
import type { IntentPatch, IntentRecord, IntentStore, MoveOptions } from '../store/intents.js';
import { AlreadyDone, BuildRefusal } from './build.js';
import { faultPoint } from './faultPoints.js';
import { inviteNotice } from './sendInvite.js';
import { signatureOf, transactionId } from './sponsored.js';
import { submitAndConfirm, type AttemptEnd, type Mover } from './submit.js';
import type { BuiltTransaction } from './types.js';

/** What the executor needs; main.ts wires the concrete parts. */
export interface ExecutorDeps {
  store: IntentStore;
  jup: JupiterClient;
  rpc: SolanaRpc;
  wallet: HotWallet;
  build: (intent: Intent, intentId: string, signal?: AbortSignal) => Promise<BuiltTransaction>;
  /** The pre-sign guard with the intent's policy; throws GuardUnavailable when it could not check (retried). */
  guard: (intent: Intent, built: BuiltTransaction) => Promise<GuardReport>;
  /** The kill switch as it is now (read before anything is built and again before anything is signed). */
  killSwitch: () => Promise<KillSwitchState | null>;
  /** Shows the operator something once (a send's invite code when it lands); never logged or stored. */
  notice?: (text: string) => void;
  logger: Logger;
  maxAttempts: number;
  /** Backoff of guard checks that could not run, ms (first wait, most). */
  guardRetry?: { firstMs: number; maxMs: number };
  /** A built transaction older than this is built again rather than checked again, ms. */
  rebuildAfterMs?: number;
  now?: () => number;
  /** Told of every move this executor made (the dashboard's metrics: tick to submit, landings, claims); must not throw. */
  onMove?: (rec: IntentRecord, from: IntentState, to: IntentState, at: number, patch: IntentPatch) => void;
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

/** Thrown by a fenced move that another owner's fence refused: this worker stops touching the intent. */
export class Superseded extends Error {}

const DEFAULT_GUARD_RETRY = { firstMs: 500, maxMs: 5_000 };
const DEFAULT_REBUILD_AFTER_MS = 30_000;

/**
 * Carries one intent to a terminal state, exactly once (docs/architecture.md § Exactly-once execution): build through
 * the API, guard, sign, persist the signature and lastValidBlockHeight durably, submit, confirm. A worker that finds
 * the intent signed or submitted never builds or signs again: it re-submits the same bytes and confirms by signature.
 * Only a provably expired, absent signature leads to a new attempt. Every move is fenced: once another owner claims
 * the intent, this one's writes are refused and it stops.
 */
export class Executor {
  private readonly now: () => number;

  constructor(private readonly deps: ExecutorDeps) {
    this.now = deps.now ?? Date.now;
  }

  /** Runs (or resumes) an intent until it is terminal or this worker is superseded. */
  async execute(id: string, signal?: AbortSignal): Promise<ExecutionResult> {
    // Read and claimed in one step; a terminal intent is left as it is.
    const claimed = await this.deps.store.claimUnlessEnded(id);
    if (!claimed) throw new MissingIntentError(id);
    const { fence, record: first } = claimed;
    if (fence === null) return { state: first.state };
    const log = this.deps.logger.child({ intent: id, instance: first.instance, kind: first.kind });
    const move: Mover = (rec, to, patch, options) => this.move(rec, fence, to, patch, log, options);
    let claimedRecord: IntentRecord | undefined = first;
    try {
      for (;;) {
        // The first round works on the record as the claim read it; later rounds (a new attempt) read it again.
        const rec = claimedRecord ?? (await this.deps.store.get(id));
        claimedRecord = undefined;
        if (!rec) throw new MissingIntentError(id);
        if (isTerminal(rec.state)) return { state: rec.state };
        const end = SIGNED_STATES.has(rec.state) ? await this.resume(rec, move, log, signal) : await this.attempt(rec, move, log, signal);
        if ('done' in end) return { state: end.done };
        const after = await this.deps.store.get(id);
        if (!after) throw new MissingIntentError(id);
        if (after.attempt >= this.deps.maxAttempts || this.now() >= after.deadline) {
          await move(after, 'expired', { error: { code: 'EXPIRED', message: `attempt ${after.attempt} expired unlanded; no attempts or time left` } });
          return { state: 'expired' };
        }
        log.warn({ attempt: after.attempt, signature: after.signature }, 'attempt expired with its signature absent; building a new attempt');
        await move(after, 'planned', { attempt: after.attempt + 1, signedTx: null, signature: null, requestId: null, lastValidBlockHeight: null, route: null, quote: null });
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
  private async attempt(rec: IntentRecord, move: Mover, log: Logger, signal?: AbortSignal): Promise<AttemptEnd> {
    if (this.now() >= rec.deadline) {
      await move(rec, 'expired', { error: { code: 'DEADLINE', message: 'the intent passed its deadline before it could be sent' } });
      return { done: 'expired' };
    }
    if (await this.stoppedBySwitch(rec, move, log)) return { done: 'rejected' };
    const checked = await this.buildAndGuard(rec, move, log, signal);
    if ('done' in checked) return checked;
    const { built, report } = checked;
    const quote = { ...built.quote, expectedChanges: report.changes };
    await move(rec, 'guarded', { quote });

    // The switch may have been thrown while the venue built and the guard checked: nothing is signed after it.
    if (await this.stoppedBySwitch(rec, move, log)) return { done: 'rejected' };
    // A slot before signing: the transaction cannot land earlier, so history from there on proves its absence. The
    // guard's simulation ran at one (it answers what a getSlot here would, or earlier, which proves no less).
    const minSlot = report.slot ?? (await this.deps.rpc.slot());
    this.deps.wallet.sign(built.tx);
    for (const s of built.extraSigners ?? []) s.sign(built.tx);
    // The transaction's id is its fee payer's signature. When another account pays (Ultra's RFQ and gasless routes)
    // that one signs at the venue, after the wallet: the id is recorded once found (see submit.ts), none until then.
    const signature = transactionId(built.tx) ?? null;
    const signedTx = Buffer.from(built.tx.serialize()).toString('base64');
    // `rec` is this attempt's record as read after the claim; every move since is this owner's, fenced, so its
    // signatures are the stored ones (another owner's claim would refuse the move below).
    const patch = { signedTx, signature, signatures: signature ? [...rec.signatures, signature] : rec.signatures, lastValidBlockHeight: built.lastValidBlockHeight, route: { ...built.route, minSlot } };
    // Durable before the bytes leave the process: a lost `signed` record would make a later worker sign again.
    await move(rec, 'signed', patch, { durable: true });
    log.info({ signature: signature ?? signatureOf(built.tx, this.deps.wallet.address), lastValidBlockHeight: built.lastValidBlockHeight.toString(), via: built.route.via, ...(signature ? {} : { feePayerSigns: true }) }, 'signed; signature persisted before submit');
    await faultPoint('after-sign');
    // The record as the fenced moves of this attempt left it (built, guarded, signed), without reading it back.
    const requestId = 'requestId' in built.route ? built.route.requestId : null;
    const signed: IntentRecord = { ...rec, ...patch, state: 'signed', requestId, quote };
    return this.submit(signed, move, log, signal, built.tx);
  }

  /**
   * Builds the transaction and has the guard check it. A refusal is terminal (`rejected`, with the rules' names);
   * a check that could not run is retried with backoff, on the same transaction while it is fresh and on a new
   * build after that, until the intent's deadline.
   */
  private async buildAndGuard(rec: IntentRecord, move: Mover, log: Logger, signal?: AbortSignal): Promise<{ built: BuiltTransaction; report: GuardReport } | { done: IntentState }> {
    const retry = this.deps.guardRetry ?? DEFAULT_GUARD_RETRY;
    const rebuildAfter = this.deps.rebuildAfterMs ?? DEFAULT_REBUILD_AFTER_MS;
    let waits = 0;
    for (;;) {
      let built: BuiltTransaction;
      try {
        built = await this.deps.build(rec.intent, rec.id, signal);
      } catch (err) {
        if (err instanceof AlreadyDone) {
          // The venue says the effect is there already (a claim paid): done, with nothing built or signed.
          log.info({ code: err.code, reason: err.message }, 'the venue reports this intent\'s effect already done; nothing to sign');
          await move(rec, 'built', { quote: { alreadyDone: err.code } });
          await move(rec, 'landed', { result: { alreadyDone: { code: err.code, message: err.message } } });
          return { done: 'landed' };
        }
        const refusal = classifyBuildError(err);
        if (!refusal) throw err;
        log.warn({ code: refusal.code, reason: refusal.message }, `intent ${refusal.state}`);
        await move(rec, refusal.state, { error: { code: refusal.code, message: refusal.message } });
        return { done: refusal.state };
      }
      const builtAt = this.now();
      const route = built.route;
      await move(rec, 'built', { requestId: 'requestId' in route ? route.requestId : null, route: { ...route }, quote: built.quote });
      await faultPoint('after-build');
      for (;;) {
        let report: GuardReport;
        try {
          report = await this.deps.guard(rec.intent, built);
        } catch (err) {
          if (!(err instanceof GuardUnavailable)) throw err;
          if (this.now() >= rec.deadline) {
            log.warn({ reason: err.reason }, 'the guard could not check the transaction before the deadline; nothing was signed');
            await move(rec, 'expired', { error: { code: 'GUARD_UNCHECKED', message: err.message } });
            return { done: 'expired' };
          }
          const waitMs = Math.min(retry.maxMs, retry.firstMs * 2 ** Math.min(waits, 16));
          waits += 1;
          log.warn({ reason: err.reason, waitMs, err: err.message }, 'the guard could not check the transaction yet; checking again');
          await sleep(waitMs, signal);
          if (this.now() - builtAt >= rebuildAfter) break;
          continue;
        }
        if (!report.ok) {
          const message = report.violations.map((v) => `${v.rule}: ${v.message}`).join('; ');
          log.error({ violations: report.violations, programs: report.programs }, 'pre-sign guard refused the transaction; nothing was signed');
          await move(rec, 'rejected', { error: { code: 'GUARD_REFUSED', rule: [...new Set(report.violations.map((v) => v.rule))].join(','), message } });
          return { done: 'rejected' };
        }
        // An order older than its quote may be (Ultra: api.ultra.maxQuoteAge) is not signed: whoever lands it could
        // hold it that much longer. Built again, nothing signed.
        if (built.signBy !== undefined && this.now() > built.signBy) {
          log.info({ ageMs: this.now() - (built.quotedAt ?? builtAt) }, 'the order passed its maximum quote age before it was signed; building it again');
          break;
        }
        return { built, report };
      }
      if (built.signBy === undefined || this.now() <= built.signBy) log.info('the built transaction went stale while the guard could not check it; building it again');
    }
  }

  /**
   * Whether the kill switch refuses this intent (halt, or reduce-only and the intent adds exposure); if so the
   * intent ends rejected with the switch's reason. Only unsigned intents come here: signed bytes are committed.
   */
  private async stoppedBySwitch(rec: IntentRecord, move: Mover, log: Logger): Promise<boolean> {
    // The cancels a cancel-resting request of the switch asked for (recorded by the keeper) pass it.
    const verdict = killSwitchVerdictFor(await this.deps.killSwitch(), rec.intent, rec.instance);
    if (!verdict) return false;
    log.warn({ code: verdict.code, reason: verdict.message }, 'kill switch: nothing is built or signed for this intent');
    await move(rec, 'rejected', { error: { code: verdict.code, rule: verdict.rule, message: verdict.message } });
    return true;
  }

  /** A signed or submitted intent: re-submit the same bytes and confirm; never sign again. */
  private async resume(rec: IntentRecord, move: Mover, log: Logger, signal?: AbortSignal): Promise<AttemptEnd> {
    log.info({ state: rec.state, signature: rec.signature }, 'resuming a signed intent: re-submitting the same bytes');
    // The record may be one whose durable write could not be confirmed (REDIS_NOT_DURABLE): make sure it is on disk
    // before its bytes leave, or a Redis crash could lose it while they land, and a later worker sign again.
    await this.deps.store.confirmDurable();
    return this.submit(rec, move, log, signal);
  }

  private async submit(rec: IntentRecord, move: Mover, log: Logger, signal?: AbortSignal, signedTx?: VersionedTransaction): Promise<AttemptEnd> {
    const end = await submitAndConfirm(rec, { jup: this.deps.jup, rpc: this.deps.rpc, store: this.deps.store, move, log, signal }, signedTx);
    if ('done' in end && end.done === 'landed' && rec.intent.kind === 'send') this.deps.notice?.(inviteNotice(rec.id, rec.intent, this.deps.wallet));
    return end;
  }

  private async move(rec: IntentRecord, fence: number, to: IntentState, patch: IntentPatch, log: Logger, options?: MoveOptions): Promise<void> {
    const at = this.now();
    const m = await this.deps.store.move(rec.id, fence, to, patch, at, options);
    if (m.ok) {
      log.debug({ from: m.from, to }, 'intent moved');
      this.deps.onMove?.(rec, m.from, to, at, patch);
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
