import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { intentSchema, type Intent } from '../sdk/intents.js';
import type { AnyStrategy } from '../sdk/strategy.js';
import { buildContext } from './context.js';
import { intentId, type DecisionWindow } from './ids.js';
import type { DecisionSummary, Enqueue, IntentLedger, NewIntentRecord, PendingIntentData, RiskCounters, SnapshotSource, StrategyStatePort } from './ports.js';
import { openRiskGate, type RiskLimits } from './risk.js';

/** A strategy threw, returned something that is not a list of valid intents, or too many of them. */
export class StrategyError extends KeeperError {
  constructor(instance: string, message: string, cause?: unknown) {
    super('STRATEGY_ERROR', 'abandon', `strategy ${instance}: ${message}`, { details: { instance }, cause });
  }
}

/** A strategy instance as the evaluator needs it. */
export interface EvaluatedInstance {
  id: string;
  definition: AnyStrategy;
  params: unknown;
  /** USD the instance may trade per UTC day, if it has a budget of its own. */
  dailyBudgetUsd?: number | undefined;
}

/** What evaluation needs. */
export interface EvaluateDeps {
  snapshots: SnapshotSource;
  ledger: IntentLedger;
  states: StrategyStatePort;
  counters: RiskCounters;
  enqueue: Enqueue;
  limits: RiskLimits;
  maxIntentsPerEvaluation: number;
  /** How long an intent may keep trying, in ms. */
  deadlineMs: number;
  /** The oldest market snapshot a decision may use, in ms (`feeds.maxPriceAge`). */
  maxPriceAgeMs: number;
  /** The oldest wallet snapshot a decision may use, in ms (`feeds.maxWalletAge`). */
  maxWalletAgeMs: number;
  logger: Logger;
}

/** How often an evaluation decides again after another one of the same instance committed first. */
const MAX_COMMIT_TRIES = 10;

/**
 * One evaluation of one strategy instance for one decision window: build the frozen context from the snapshots,
 * the instance's state and its pending intents, run decide() through a wrapper that turns any throw or bad output
 * into a StrategyError (the bot keeps running), pass each intent through the risk gate, then commit the intents,
 * the new state and the window at once and hand the planned intents to the execute queue.
 *
 * Exactly once per window: the commit is refused unless the instance's applied window is still the one read
 * before deciding, so a replay of an applied window (or an older one arriving late) writes nothing, and of two
 * evaluations of one instance running at once (two windows, two keepers) the second decides again on the state
 * the first one wrote. A crash before the commit leaves nothing (the replay decides the same ids again); a crash
 * after it is seen by the replay, which only re-enqueues the window's planned intents.
 */
export async function evaluate(instance: EvaluatedInstance, window: DecisionWindow, now: number, deps: EvaluateDeps): Promise<DecisionSummary> {
  const log = deps.logger.child({ instance: instance.id, strategy: instance.definition.name, window: String(window.id) });
  const summary = (outcome: DecisionSummary['outcome'], intents: DecisionSummary['intents'], message?: string): DecisionSummary => ({ at: now, window: String(window.id), outcome, intents, message });
  const skip = async (message: string): Promise<DecisionSummary> => {
    const s = summary('skipped', [], message);
    await deps.states.recordDecision(instance.id, s);
    return s;
  };
  for (let attempt = 1; attempt <= MAX_COMMIT_TRIES; attempt += 1) {
    const [market, prediction, wallet, loaded, pending] = await Promise.all([
      deps.snapshots.market(),
      deps.snapshots.prediction(),
      deps.snapshots.wallet(),
      deps.states.load(instance.id),
      // Landings older than the oldest usable wallet snapshot are in every snapshot a decision may use.
      deps.ledger.pending(instance.id, now - deps.maxWalletAgeMs),
    ]);
    if (loaded.appliedWindow !== null && window.start <= loaded.appliedWindow) return replayed(window, loaded.appliedWindow, pending.intents, deps, log, summary);
    if (pending.corrupt.length > 0) log.error({ corrupt: pending.corrupt }, 'pending intents whose records do not parse; the strategy cannot see them');
    if (!market || !wallet) return skip('waiting for the first market and wallet snapshots');
    const stale = staleness(now, market.at, wallet.at, deps);
    if (stale) {
      log.warn(stale);
      return skip(stale);
    }

    let intents: Intent[];
    let nextState: Record<string, unknown> | undefined;
    try {
      const ctx = buildContext({ instanceId: instance.id, params: instance.params, now, market, prediction, wallet, pending: pending.intents, state: loaded.state, log: strategyLogger(log) });
      ({ intents, nextState } = decideSafely(instance, ctx));
      if (intents.length > deps.maxIntentsPerEvaluation) {
        throw new StrategyError(instance.id, `returned ${intents.length} intents; the limit per evaluation is ${deps.maxIntentsPerEvaluation}`);
      }
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      log.error({ err }, 'strategy failed; its decision is discarded and the bot keeps running');
      const s = summary('error', [], message);
      await deps.states.recordDecision(instance.id, s);
      return s;
    }

    // The gate runs before anything is recorded, so no recorded intent ever skipped it. Its daily reservation is
    // keyed by intent id: deciding the same intent again (a refused commit below, a replay after a crash between
    // reserving and committing) finds it reserved and counts nothing twice.
    const strategy = `${instance.definition.name}@${instance.definition.version}`;
    const records: NewIntentRecord[] = [];
    const notional = new Map<string, number>();
    const gate = await openRiskGate({ market, wallet, prediction, limits: deps.limits, counters: deps.counters, instance: { id: instance.id, dailyBudgetUsd: instance.dailyBudgetUsd }, now });
    for (const intent of intents) {
      const id = intentId(instance.id, intent, window.id);
      const verdict = await gate.check(id, intent);
      if (verdict.ok) notional.set(id, verdict.notionalUsd);
      const rejection = verdict.ok ? undefined : { code: verdict.code, rule: verdict.rule, message: verdict.message };
      records.push({ id, instance: instance.id, strategy, intent, createdAt: now, deadline: now + deps.deadlineMs, rejection, windowStart: window.start });
    }
    const decided = records.map((r) => ({ id: r.id, kind: r.intent.kind, state: r.rejection ? ('rejected' as const) : ('planned' as const), reason: r.rejection?.message ?? r.intent.reason }));
    const s = summary(decided.length > 0 ? 'intents' : 'nothing', decided);
    const committed = await deps.states.commit(instance.id, { expectedWindow: loaded.appliedWindow, window: window.start, state: nextState, intents: records, decision: s });
    if (!committed.ok) {
      log.debug({ attempt, appliedWindow: committed.appliedWindow }, 'another evaluation of this instance committed first; deciding again on its state');
      continue;
    }
    for (const [i, c] of committed.intents.entries()) {
      const rec = records[i]!;
      if (c.created && c.state === 'rejected') {
        log.warn({ intent: c.id, code: rec.rejection?.code, rule: rec.rejection?.rule }, `risk gate rejected: ${rec.rejection?.message ?? ''}`);
        if (rec.rejection) await deps.counters.countRefusal(rec.rejection.rule, now);
      }
      if (c.state !== 'planned') continue;
      await deps.enqueue(c.id);
      if (c.created) log.info({ intent: c.id, kind: rec.intent.kind, notionalUsd: Number((notional.get(c.id) ?? 0).toFixed(2)), reason: rec.intent.reason }, 'intent planned');
    }
    return { ...s, intents: committed.intents.map((c, i) => ({ ...decided[i]!, state: c.state })) };
  }
  return skip(`other evaluations of this instance committed first ${MAX_COMMIT_TRIES} times in a row; not deciding this window`);
}

/**
 * A replay of an applied window, or an older window arriving late: nothing is decided or written. The window's
 * own planned intents are handed to the queue again (idempotent: the intent id is the job id), which repairs a
 * crash between the commit and the enqueue without waiting for the reconciler.
 */
async function replayed(window: DecisionWindow, applied: number, pending: readonly PendingIntentData[], deps: EvaluateDeps, log: Logger, summary: (o: DecisionSummary['outcome'], i: DecisionSummary['intents'], m?: string) => DecisionSummary): Promise<DecisionSummary> {
  const own = pending.filter((p) => p.windowStart === window.start);
  for (const p of own) if (p.state === 'planned') await deps.enqueue(p.id);
  const message = window.start === applied ? 'this window was already decided; a replay changes nothing' : 'a later window was already decided; this late one changes nothing';
  log.debug({ appliedWindow: applied, requeued: own.filter((p) => p.state === 'planned').map((p) => p.id) }, message);
  return summary('skipped', own.map((p) => ({ id: p.id, kind: p.kind, state: p.state, reason: p.intent.reason })), message);
}

/** Why the snapshots are too old to decide on, if they are. */
function staleness(now: number, marketAt: number, walletAt: number, deps: EvaluateDeps): string | undefined {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (now - marketAt > deps.maxPriceAgeMs) return `the market snapshot is ${s(now - marketAt)} old (feeds.maxPriceAge ${s(deps.maxPriceAgeMs)}); not deciding on stale data`;
  if (now - walletAt > deps.maxWalletAgeMs) return `the wallet snapshot is ${s(now - walletAt)} old (feeds.maxWalletAge ${s(deps.maxWalletAgeMs)}); not deciding on stale data`;
  return undefined;
}

/** Runs decide() and parses what it returns; throws StrategyError for a throw or bad output. */
function decideSafely(instance: EvaluatedInstance, ctx: Parameters<AnyStrategy['decide']>[0]): { intents: Intent[]; nextState?: Record<string, unknown> } {
  let out: unknown;
  try {
    out = instance.definition.decide(ctx);
  } catch (err) {
    throw new StrategyError(instance.id, `decide() threw: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  if (out instanceof Promise) throw new StrategyError(instance.id, 'decide() returned a promise; it must be synchronous and do no I/O');
  const list: unknown = Array.isArray(out) ? out : (out as { intents?: unknown } | null)?.intents;
  if (!Array.isArray(list)) throw new StrategyError(instance.id, 'decide() must return an array of intents or { intents, state }');
  const intents: Intent[] = [];
  list.forEach((raw: unknown, i) => {
    const parsed = intentSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new StrategyError(instance.id, `intent ${i} is invalid: ${issue ? `${issue.path.join('.') || '(intent)'}: ${issue.message}` : 'unknown shape'}`);
    }
    intents.push(parsed.data);
  });
  const state = Array.isArray(out) ? undefined : (out as { state?: unknown }).state;
  if (state !== undefined && (typeof state !== 'object' || state === null || Array.isArray(state))) {
    throw new StrategyError(instance.id, 'decide() returned a state that is not an object');
  }
  return { intents, nextState: state as Record<string, unknown> | undefined };
}

function strategyLogger(log: Logger) {
  return {
    debug: (message: string, fields?: Record<string, unknown>) => log.debug(fields ?? {}, message),
    info: (message: string, fields?: Record<string, unknown>) => log.info(fields ?? {}, message),
    warn: (message: string, fields?: Record<string, unknown>) => log.warn(fields ?? {}, message),
  };
}
