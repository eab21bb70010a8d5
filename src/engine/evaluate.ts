import { KeeperError } from '../lib/errors.js';
import type { EventPublisher } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import { intentSchema, type Intent } from '../sdk/intents.js';
import type { AnyStrategy } from '../sdk/strategy.js';
import { buildContext, sharedContext, walletUnsure } from './context.js';
import { intentId, type DecisionWindow } from './ids.js';
import type { DecisionSummary, Enqueue, EnqueueMany, InstanceMessage, IntentLedger, NewIntentRecord, PendingIntentData, RiskCounters, ShardCommit, SnapshotSource, StrategyStatePort } from './ports.js';
import { judgeAll, readRiskState, type RiskLimits } from './risk.js';
import { watchedMints, watchesPrediction } from './watchedMints.js';
import { encodeJson } from '../lib/json.js';
import type { DecideInput } from './isolation/host.js';
import type { DecideItem, DecideResult } from './isolation/protocol.js';

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
  /**
   * Where a strategy of the user's own decides: its module's thread (src/engine/isolation/host.ts). The instances
   * of one module in a shard go to it in one batch; what comes back is checked here like a built-in's return.
   */
  isolated?: IsolatedDecider | undefined;
}

/** Makes decisions of a strategy outside the engine's thread (StrategyHost). Never throws. */
export interface IsolatedDecider {
  decideMany(input: DecideInput, items: readonly DecideItem[]): Promise<DecideResult[]>;
}

/** What evaluation needs. */
export interface EvaluateDeps {
  snapshots: SnapshotSource;
  ledger: IntentLedger;
  states: StrategyStatePort;
  counters: RiskCounters;
  enqueue: Enqueue;
  /** Hands many intents to the queue in one call (used when given). */
  enqueueMany?: EnqueueMany | undefined;
  /**
   * What each instance's last written decision said (by digest), so that an unchanged decision is not written again
   * every tick. Without it every decision is written.
   */
  decisionCache?: Map<string, string> | undefined;
  /**
   * Backpressure: how many intents are planned and not yet taken up by an execution. At `maxBacklog` or more the
   * evaluation decides nothing this window (each instance decides again at its next one: nothing is lost, its state
   * and pending intents are where they were).
   */
  backlog?: (() => Promise<number>) | undefined;
  maxBacklog?: number | undefined;
  limits: RiskLimits;
  maxIntentsPerEvaluation: number;
  /** How long an intent may keep trying, in ms. */
  deadlineMs: number;
  /** The oldest market snapshot a decision may use, in ms (`feeds.maxPriceAge`). */
  maxPriceAgeMs: number;
  /** The oldest wallet snapshot a decision may use, in ms (`feeds.maxWalletAge`). */
  maxWalletAgeMs: number;
  /** Where risk-gate refusals are announced (src/lib/events.ts). */
  events?: EventPublisher | undefined;
  logger: Logger;
}

/** How often an evaluation decides again after another one of the same shard committed first. */
const MAX_COMMIT_TRIES = 10;

/** A group of instances evaluated together, under one applied window (see `evaluateShard`). */
export interface Shard {
  key: string;
  instances: readonly EvaluatedInstance[];
}

/**
 * One evaluation of one strategy instance for one decision window: a shard of one (see `evaluateShard`).
 */
export async function evaluate(instance: EvaluatedInstance, window: DecisionWindow, now: number, deps: EvaluateDeps): Promise<DecisionSummary> {
  const out = await evaluateShard({ key: `i:${instance.id}`, instances: [instance] }, window, now, deps);
  return out.get(instance.id)!;
}

/**
 * One evaluation of a shard of strategy instances for one decision window, its Redis work independent of the
 * number of instances: the three snapshots read once, every instance's state and applied window in one multi-get,
 * their pending intents in two pipelined round trips, the risk state once; then each instance's decide() through a
 * wrapper that turns any throw or bad output into a StrategyError (the bot keeps running), each intent through the
 * risk gate, and one script committing every intent, changed state and changed decision with the shard's window.
 * The planned intents go to the execute queue in one call.
 *
 * Exactly once per window: the commit is refused unless the shard's applied window is still the one read before
 * deciding, so a replay of an applied window (or an older one arriving late) writes nothing, and of two evaluations
 * of one shard at once (two windows, two keepers) the second decides again on the states the first one wrote. An
 * instance's own window moves with its state, so an instance decided under another shard layout (the config
 * changed) is not decided twice for one window. A crash before the commit leaves nothing (the replay decides the
 * same intent ids again); a crash after it is seen by the replay, which only re-enqueues the window's planned intents.
 */
export async function evaluateShard(shard: Shard, window: DecisionWindow, now: number, deps: EvaluateDeps): Promise<Map<string, DecisionSummary>> {
  const log = deps.logger.child({ shard: shard.key, window: String(window.id) });
  const ids = shard.instances.map((i) => i.id);
  const summary = (outcome: DecisionSummary['outcome'], intents: DecisionSummary['intents'], message?: string): DecisionSummary => ({ at: now, window: String(window.id), outcome, intents, message });
  // Status shows when each instance was last evaluated, a skip included: one write for the shard, not per instance.
  const recordEvaluation = async (messages: ReadonlyMap<string, InstanceMessage>): Promise<void> => {
    try {
      await deps.states.recordEvaluation?.(shard.key, { at: now, window: window.start, instances: ids, messages });
    } catch (err) {
      log.warn({ err }, 'could not record the evaluation for status; the decisions stand');
    }
  };
  const skipAll = async (message: string): Promise<Map<string, DecisionSummary>> => {
    const out = new Map(ids.map((id) => [id, summary('skipped', [], message)] as const));
    await Promise.all([deps.states.recordDecisions(changedDecisions(out, deps.decisionCache)), recordEvaluation(new Map())]);
    return out;
  };
  for (let attempt = 1; attempt <= MAX_COMMIT_TRIES; attempt += 1) {
    const [market, prediction, wallet, loaded, pending] = await Promise.all([
      deps.snapshots.market(),
      deps.snapshots.prediction(),
      deps.snapshots.wallet(),
      deps.states.loadShard(shard.key, ids),
      // Landings older than the oldest usable wallet snapshot are in every snapshot a decision may use.
      deps.ledger.pendingMany(ids, now - deps.maxWalletAgeMs),
    ]);
    if (loaded.appliedWindow !== null && window.start <= loaded.appliedWindow) return replayed(window, loaded.appliedWindow, ids, pending, deps, log, summary);
    if (!market || !wallet) return skipAll('waiting for the first market and wallet snapshots');
    // A strategy that watches prediction markets decides on them too: not before the prediction feed first ran (a
    // buy would be refused for a close time the gate cannot know, and a one-shot strategy would not ask again).
    if (!prediction && watchesPrediction(shard.instances)) return skipAll('waiting for the first prediction snapshot');
    const stale = staleness(now, market.at, wallet.at, deps);
    if (stale) {
      log.warn(stale);
      return skipAll(stale);
    }
    if (deps.backlog && deps.maxBacklog !== undefined) {
      const waiting = await deps.backlog();
      if (waiting >= deps.maxBacklog) {
        const message = `${waiting} planned intents wait for execution (execution.maxBacklog ${deps.maxBacklog}); deciding again next window`;
        log.warn({ backlog: waiting }, 'execution is behind: not deciding this window');
        return skipAll(message);
      }
    }

    // The gate runs before anything is recorded, so no recorded intent ever skipped it. Its daily reservation is
    // keyed by intent id: deciding the same intent again (a refused commit below, a replay after a crash between
    // reserving and committing) finds it reserved and counts nothing twice.
    const riskInputs = { market, wallet, prediction, limits: deps.limits, counters: deps.counters, now };
    const riskState = await readRiskState(riskInputs);
    const out = new Map<string, DecisionSummary>();
    const commits: ShardCommit['instances'] = [];
    const decided: Array<{ instance: EvaluatedInstance; intents: Intent[]; nextState: Record<string, unknown> | undefined; state: Record<string, unknown> }> = [];
    const messages = new Map<string, InstanceMessage>();
    // The price history of the mints the shard watches, as of the market snapshot: once for all its instances, and
    // not read again by this process's other shards deciding on the same snapshot.
    const history = await deps.snapshots.priceHistory?.(watchedMints(shard.instances), now, market.at);
    const shared = sharedContext({ now, market, prediction, wallet, history });
    // Instances with an intent of their own the wallet snapshot may or may not hold wait for the next snapshot.
    const unsure = new Map<string, PendingIntentData>();
    for (const instance of shard.instances) {
      if (instance.definition.exactWallet === false) continue;
      const p = walletUnsure(pending.get(instance.id)?.intents ?? [], wallet);
      if (p) unsure.set(instance.id, p);
    }
    // Strategies of the user's own first: each module's instances in one batch to its thread, all modules at once.
    const remote = await decideIsolated(
      shard.instances.filter((i) => !unsure.has(i.id)),
      { now, market, prediction, wallet, history },
      loaded.states,
      pending,
      window,
    );
    for (const instance of shard.instances) {
      const loadedState = loaded.states.get(instance.id)!;
      if (loadedState.appliedWindow !== null && window.start <= loadedState.appliedWindow) {
        out.set(instance.id, summary('skipped', [], 'this window was already decided for this instance'));
        continue;
      }
      const waitFor = unsure.get(instance.id);
      if (waitFor) {
        const s = summary('skipped', [], `waiting for a wallet snapshot read after its ${waitFor.kind} ${waitFor.id} settled (the last one was read while it was being sent)`);
        out.set(instance.id, s);
        const decision = changedDecision(instance.id, s, deps.decisionCache);
        if (decision) commits.push({ instance: instance.id, intents: [], state: undefined, decision });
        continue;
      }
      const own = pending.get(instance.id) ?? { intents: [], corrupt: [] };
      const ilog = new InstanceLog(log, instance.id, instance.definition.name);
      if (own.corrupt.length > 0) ilog.logger.error({ corrupt: own.corrupt }, 'pending intents whose records do not parse; the strategy cannot see them');
      try {
        let made: { intents: Intent[]; nextState?: Record<string, unknown> };
        const far = remote.get(instance.id);
        if (far) {
          for (const line of far.logs) ilog[line.level](line.message, line.fields);
          if (!far.ok) throw new StrategyError(instance.id, far.error);
          made = checkDecision(instance, far.out);
        } else {
          // The state as read for this evaluation: the context freezes it in place (nothing else writes it).
          const ctx = buildContext(shared, { instanceId: instance.id, params: instance.params, pending: own.intents, state: loadedState.state, log: ilog });
          made = decideSafely(instance, ctx);
        }
        const { intents, nextState } = made;
        if (intents.length > deps.maxIntentsPerEvaluation) {
          throw new StrategyError(instance.id, `returned ${intents.length} intents; the limit per evaluation is ${deps.maxIntentsPerEvaluation}`);
        }
        decided.push({ instance, intents, nextState, state: loadedState.state });
        if (ilog.last) messages.set(instance.id, ilog.last);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        ilog.logger.error({ err }, 'strategy failed; its decision is discarded and the bot keeps running');
        const s = summary('error', [], message);
        out.set(instance.id, s);
        const decision = changedDecision(instance.id, s, deps.decisionCache);
        if (decision) commits.push({ instance: instance.id, intents: [], state: undefined, decision });
      }
    }
    // Every intent of the shard through the gate at once, in the instances' order (one round trip for reservations).
    const items = decided.flatMap(({ instance, intents }) => intents.map((intent) => ({ intentId: intentId(instance.id, intent, window.id), intent, instance: { id: instance.id, dailyBudgetUsd: instance.dailyBudgetUsd } })));
    const verdicts = await judgeAll(riskInputs, riskState, items);
    const notional = new Map<string, number>();
    const records = new Map<string, NewIntentRecord[]>();
    let next = 0;
    for (const { instance, intents, nextState, state: loadedState } of decided) {
      const strategy = `${instance.definition.name}@${instance.definition.version}`;
      const mine: NewIntentRecord[] = [];
      for (const intent of intents) {
        const { intentId: id } = items[next]!;
        const verdict = verdicts[next]!;
        next += 1;
        if (verdict.ok) notional.set(id, verdict.notionalUsd);
        const rejection = verdict.ok ? undefined : { code: verdict.code, rule: verdict.rule, message: verdict.message };
        mine.push({ id, instance: instance.id, strategy, intent, createdAt: now, deadline: now + deps.deadlineMs, rejection, windowStart: window.start });
      }
      records.set(instance.id, mine);
      const summed = mine.map((r) => ({ id: r.id, kind: r.intent.kind, state: r.rejection ? ('rejected' as const) : ('planned' as const), reason: r.rejection?.message ?? r.intent.reason }));
      const s = summary(summed.length > 0 ? 'intents' : 'nothing', summed);
      out.set(instance.id, s);
      const state = nextState !== undefined && encodeJson(nextState) !== encodeJson(loadedState) ? nextState : undefined;
      const decision = changedDecision(instance.id, s, deps.decisionCache);
      if (mine.length > 0 || state !== undefined || decision !== undefined) commits.push({ instance: instance.id, intents: mine, state, decision });
    }
    const committed = await deps.states.commitShard(shard.key, { expectedWindow: loaded.appliedWindow, window: window.start, instances: commits });
    if (!committed.ok) {
      log.debug({ attempt, appliedWindow: committed.appliedWindow }, 'another evaluation of this shard committed first; deciding again on its states');
      continue;
    }
    for (const c of commits) if (c.decision) deps.decisionCache?.set(c.instance, digest(c.decision));
    const toQueue: string[] = [];
    const refusals = new Map<string, number>();
    for (const c of committed.instances) {
      const mine = records.get(c.instance) ?? [];
      if (c.stale) {
        out.set(c.instance, summary('skipped', [], 'this window was already decided for this instance'));
        continue;
      }
      for (const [i, r] of c.intents.entries()) {
        const rec = mine[i]!;
        if (r.created && r.state === 'rejected') {
          log.warn({ instance: c.instance, intent: r.id, code: rec.rejection?.code, rule: rec.rejection?.rule }, `risk gate rejected: ${rec.rejection?.message ?? ''}`);
          if (rec.rejection) refusals.set(rec.rejection.rule, (refusals.get(rec.rejection.rule) ?? 0) + 1);
          if (rec.rejection) deps.events?.publish({ type: 'refusal', at: now, instance: c.instance, intent: r.id, kind: rec.intent.kind, rule: rec.rejection.rule, message: rec.rejection.message });
        }
        if (r.state !== 'planned') continue;
        toQueue.push(r.id);
        if (r.created) log.info({ instance: c.instance, intent: r.id, kind: rec.intent.kind, notionalUsd: Number((notional.get(r.id) ?? 0).toFixed(2)), reason: rec.intent.reason }, 'intent planned');
      }
      const s = out.get(c.instance)!;
      out.set(c.instance, { ...s, intents: c.intents.map((r, i) => ({ ...s.intents[i]!, state: r.state })) });
    }
    await Promise.all([enqueueAll(toQueue, deps), deps.counters.countRefusals(refusals, now), recordEvaluation(messages)]);
    return out;
  }
  return skipAll(`other evaluations of this shard committed first ${MAX_COMMIT_TRIES} times in a row; not deciding this window`);
}

/** Hands intents to the execute queue: in one call when the queue takes many, else one by one. */
async function enqueueAll(ids: readonly string[], deps: EvaluateDeps): Promise<void> {
  if (ids.length === 0) return;
  if (deps.enqueueMany) await deps.enqueueMany(ids);
  else for (const id of ids) await deps.enqueue(id);
}

/** What a decision says, without its time: two decisions with the same digest need not both be written. */
function digest(d: DecisionSummary): string {
  if (d.intents.length === 0) return `${d.outcome}|${d.message ?? ''}`;
  return JSON.stringify([d.outcome, d.message ?? null, d.intents.map((i) => [i.id, i.state])]);
}

/** The decision if it differs from the one last written for the instance (always, without a cache). */
function changedDecision(instance: string, d: DecisionSummary, cache: Map<string, string> | undefined): DecisionSummary | undefined {
  if (!cache) return d;
  return cache.get(instance) === digest(d) ? undefined : d;
}

function changedDecisions(all: ReadonlyMap<string, DecisionSummary>, cache: Map<string, string> | undefined): Map<string, DecisionSummary> {
  const out = new Map<string, DecisionSummary>();
  for (const [id, d] of all) {
    if (changedDecision(id, d, cache) === undefined) continue;
    out.set(id, d);
    cache?.set(id, digest(d));
  }
  return out;
}

/**
 * A replay of an applied window, or an older window arriving late: nothing is decided or written. The window's
 * own planned intents are handed to the queue again (idempotent: the intent id is the job id), which repairs a
 * crash between the commit and the enqueue without waiting for the reconciler.
 */
async function replayed(
  window: DecisionWindow,
  applied: number,
  ids: readonly string[],
  pending: ReadonlyMap<string, { intents: readonly PendingIntentData[] }>,
  deps: EvaluateDeps,
  log: Logger,
  summary: (o: DecisionSummary['outcome'], i: DecisionSummary['intents'], m?: string) => DecisionSummary,
): Promise<Map<string, DecisionSummary>> {
  const message = window.start === applied ? 'this window was already decided; a replay changes nothing' : 'a later window was already decided; this late one changes nothing';
  const out = new Map<string, DecisionSummary>();
  const requeue: string[] = [];
  for (const id of ids) {
    const own = (pending.get(id)?.intents ?? []).filter((p) => p.windowStart === window.start);
    requeue.push(...own.filter((p) => p.state === 'planned').map((p) => p.id));
    out.set(id, summary('skipped', own.map((p) => ({ id: p.id, kind: p.kind, state: p.state, reason: p.intent.reason })), message));
  }
  await enqueueAll(requeue, deps);
  log.debug({ appliedWindow: applied, requeued: requeue }, message);
  return out;
}

/** Why the snapshots are too old to decide on, if they are. */
function staleness(now: number, marketAt: number, walletAt: number, deps: EvaluateDeps): string | undefined {
  const s = (ms: number) => `${Math.round(ms / 1000)} s`;
  if (now - marketAt > deps.maxPriceAgeMs) return `the market snapshot is ${s(now - marketAt)} old (feeds.maxPriceAge ${s(deps.maxPriceAgeMs)}); not deciding on stale data`;
  if (now - walletAt > deps.maxWalletAgeMs) return `the wallet snapshot is ${s(now - walletAt)} old (feeds.maxWalletAge ${s(deps.maxWalletAgeMs)}); not deciding on stale data`;
  return undefined;
}

/**
 * The decisions of the shard's instances that decide in threads (strategies of the user's own) and are due in this
 * window, by instance id: each module's instances in one batch, every module at once.
 */
async function decideIsolated(
  instances: readonly EvaluatedInstance[],
  input: DecideInput,
  states: ReadonlyMap<string, { state: Record<string, unknown>; appliedWindow: number | null }>,
  pending: ReadonlyMap<string, { intents: readonly PendingIntentData[] }>,
  window: DecisionWindow,
): Promise<Map<string, DecideResult>> {
  const batches = new Map<IsolatedDecider, Array<DecideItem>>();
  for (const instance of instances) {
    if (!instance.isolated) continue;
    const loadedState = states.get(instance.id)!;
    if (loadedState.appliedWindow !== null && window.start <= loadedState.appliedWindow) continue;
    const items = batches.get(instance.isolated) ?? [];
    items.push({ id: instance.id, params: instance.params, state: loadedState.state, pending: pending.get(instance.id)?.intents ?? [] });
    batches.set(instance.isolated, items);
  }
  const out = new Map<string, DecideResult>();
  if (batches.size === 0) return out;
  await Promise.all(
    [...batches].map(async ([decider, items]) => {
      const results = await decider.decideMany(input, items);
      items.forEach((item, i) => out.set(item.id, results[i] ?? { ok: false, error: 'no decision came back from its thread', logs: [] }));
    }),
  );
  return out;
}

/** Runs decide() and parses what it returns; throws StrategyError for a throw or bad output. */
function decideSafely(instance: EvaluatedInstance, ctx: Parameters<AnyStrategy['decide']>[0]): { intents: Intent[]; nextState?: Record<string, unknown> } {
  let out: unknown;
  try {
    out = instance.definition.decide(ctx);
  } catch (err) {
    throw new StrategyError(instance.id, `decide() threw: ${err instanceof Error ? err.message : String(err)}`, err);
  }
  return checkDecision(instance, out);
}

/** Parses what a decide() returned: a list of valid intents, or { intents, state }; throws StrategyError otherwise. */
function checkDecision(instance: EvaluatedInstance, out: unknown): { intents: Intent[]; nextState?: Record<string, unknown> } {
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

/**
 * The logger a strategy instance gets (and the evaluation's own lines about it): its child logger is made only when
 * something is logged, and its methods live on the prototype, so an instance that logs nothing costs one object.
 * It keeps the instance's last line, which status shows.
 */
class InstanceLog {
  private child: Logger | undefined;
  /** The last line the strategy logged in this evaluation. */
  last: InstanceMessage | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly instance: string,
    private readonly strategy: string,
  ) {}

  get logger(): Logger {
    this.child ??= this.parent.child({ instance: this.instance, strategy: this.strategy });
    return this.child;
  }

  debug(message: string, fields?: Record<string, unknown>): void {
    this.last = { level: 'debug', text: message };
    this.logger.debug(fields ?? {}, message);
  }

  info(message: string, fields?: Record<string, unknown>): void {
    this.last = { level: 'info', text: message };
    this.logger.info(fields ?? {}, message);
  }

  warn(message: string, fields?: Record<string, unknown>): void {
    this.last = { level: 'warn', text: message };
    this.logger.warn(fields ?? {}, message);
  }
}
