import { KeeperError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { intentSchema, type Intent } from '../sdk/intents.js';
import type { AnyStrategy } from '../sdk/strategy.js';
import { buildContext } from './context.js';
import { intentId } from './ids.js';
import type { DecisionSummary, Enqueue, IntentLedger, RiskCounters, SnapshotSource, StrategyStatePort } from './ports.js';
import { checkRisk, reserveDaily, type RiskLimits } from './risk.js';

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
  /** Snapshots older than this are not decided on (ms). */
  maxSnapshotAgeMs: number;
  logger: Logger;
}

/**
 * One evaluation of one strategy instance for one decision window: build the frozen context from the snapshots,
 * run decide() through a wrapper that turns any throw or bad output into a StrategyError (the bot keeps running),
 * pass each intent through the risk gate, record it under its deterministic id and hand it to the execute queue.
 * Running it twice for the same window changes nothing: the ids are the same.
 */
export async function evaluate(instance: EvaluatedInstance, window: number | string, now: number, deps: EvaluateDeps): Promise<DecisionSummary> {
  const log = deps.logger.child({ instance: instance.id, strategy: instance.definition.name, window: String(window) });
  const summary = (outcome: DecisionSummary['outcome'], intents: DecisionSummary['intents'], message?: string): DecisionSummary => ({ at: now, window: String(window), outcome, intents, message });
  const [market, prediction, wallet] = await Promise.all([deps.snapshots.market(), deps.snapshots.prediction(), deps.snapshots.wallet()]);
  if (!market || !wallet) {
    const s = summary('skipped', [], 'waiting for the first market and wallet snapshots');
    await deps.states.recordDecision(instance.id, s);
    return s;
  }
  const age = now - Math.min(market.at, wallet.at);
  if (age > deps.maxSnapshotAgeMs) {
    const s = summary('skipped', [], `snapshots are ${Math.round(age / 1000)} s old; not deciding on stale data`);
    log.warn(s.message);
    await deps.states.recordDecision(instance.id, s);
    return s;
  }
  const state = await deps.states.getState(instance.id);
  let intents: Intent[];
  let nextState: Record<string, unknown> | undefined;
  try {
    ({ intents, nextState } = decideSafely(instance, buildContext({ instanceId: instance.id, params: instance.params, now, market, prediction, wallet, state, log: strategyLogger(log) })));
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

  const recorded: DecisionSummary['intents'] = [];
  for (const intent of intents) {
    const id = intentId(instance.id, intent, window);
    const strategy = `${instance.definition.name}@${instance.definition.version}`;
    // The same decision made again (a re-delivered job, another instance) is already recorded: nothing to do.
    // The gate runs before the record exists, so no recorded intent ever skipped it (a crash in between leaves
    // nothing, and the re-run evaluation decides again); the record is then created in its final gate state.
    if (await deps.ledger.exists(id)) {
      recorded.push({ id, kind: intent.kind, state: 'planned', reason: intent.reason });
      continue;
    }
    let verdict = await checkRisk(intent, { market, wallet, limits: deps.limits, counters: deps.counters, now });
    if (verdict.ok) verdict = await reserveDaily(verdict.notionalUsd, deps.limits, deps.counters, now);
    const rejection = verdict.ok ? undefined : { code: verdict.code, message: verdict.message };
    const created = await deps.ledger.create({ id, instance: instance.id, strategy, intent, createdAt: now, deadline: now + deps.deadlineMs, rejection });
    if (!created.created || created.state === 'rejected') {
      if (rejection && created.created) log.warn({ intent: id, code: rejection.code }, `risk gate rejected: ${rejection.message}`);
      recorded.push({ id, kind: intent.kind, state: created.state, reason: rejection?.message ?? intent.reason });
      continue;
    }
    await deps.enqueue(id);
    log.info({ intent: id, kind: intent.kind, notionalUsd: verdict.ok ? Number(verdict.notionalUsd.toFixed(2)) : 0, reason: intent.reason }, 'intent planned');
    recorded.push({ id, kind: intent.kind, state: 'planned', reason: intent.reason });
  }
  if (nextState) await deps.states.setState(instance.id, nextState);
  const s = summary(recorded.length > 0 ? 'intents' : 'nothing', recorded);
  await deps.states.recordDecision(instance.id, s);
  return s;
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
