import { createHash } from 'node:crypto';
import { KEEPER_INSTANCE, type KeeperIntentRecord, type SubjectGenerations } from '../engine/keeperPorts.js';
import type { IntentState } from '../engine/states.js';
import { intentSchema, type Intent, type IntentInput } from '../sdk/intents.js';
import type { Logger } from '../lib/logger.js';
import type { KeeperDeps } from './deps.js';

/**
 * How many intents of one subject (a position to claim, an order to close) may end without effect for a reason of
 * their own (failed on chain, expired unsent, refused by the risk gate or the kill switch) before the subject is
 * given up: enough for a passing fault, not a loop. Refusals of the pre-sign guard do not count (see GUARD_REFUSED).
 */
export const MAX_GENERATIONS = 5;

/** Pre-sign guard refusals of one subject's intents in a row after which its venue is reported as lying. */
export const LYING_VENUE_REFUSALS = 3;

/**
 * The code the executor ends an intent with when the pre-sign guard refused the venue's transaction for it
 * (execution/executor.ts). Nothing was signed and the fault was the venue's, not the intent's: a fresh build may be
 * honest, so such a refusal never uses up the subject's generations. What keeps a later generation from doing the
 * thing twice is the chain (a position pays once, a closed order cannot close again), not the intent id.
 */
export const GUARD_REFUSED = 'GUARD_REFUSED';

/** States after which the subject is known untouched by the intent, so a new one may be made. */
const ENDED_WITHOUT_EFFECT: ReadonlySet<IntentState> = new Set(['failed', 'expired', 'rejected']);

/**
 * The id of a keeper intent: derived from its kind and subject (and the generation after the first), never from
 * time or the process, so two keepers or a re-run of the job name the same intent and the ledger records it once.
 */
export function keeperIntentId(kind: Intent['kind'], subject: string, generation = 1): string {
  const h = createHash('sha256').update(`${kind}\u0000${subject}`).digest('hex').slice(0, 20);
  return `${KEEPER_INSTANCE}.${kind}.${h}${generation > 1 ? `-${generation}` : ''}`;
}

/** The pre-sign guard refusals in a row just before a subject's current intent, and the rules they named. */
export interface GuardRefusals {
  inRow: number;
  rules: string[];
}

/** How recording a keeper intent went. */
export type RecordedIntent =
  /** Recorded now (`created`) or found recorded and still live or landed; planned ones are (re)queued. */
  | { id: string; state: IntentState; created: boolean; refused: GuardRefusals }
  /** MAX_GENERATIONS intents ended without effect (guard refusals aside): nothing more is tried for this subject. */
  | { id: null; exhausted: true; refused: GuardRefusals };

/**
 * Records a keeper intent for `subject` under its current generation, and hands it to the execute queue when it is
 * planned (again after a crash between the two: the queue ignores a second add). A subject whose intent landed, or
 * is on its way, gets nothing new; one whose intent ended without effect gets the next generation, a fresh build.
 *
 * Where the subject stands is kept beside the ledger (SubjectGenerations) and moved on once per generation by
 * whichever keeper first finds its intent ended, so a run costs a read and a record (and, once per generation, a
 * read of the ended record, the move and a second record) however many generations came before: a venue that lies
 * forever costs no more each run. The move is a fold over the ended intent's record, which never changes: every
 * keeper computes the same next generation, and a lost cursor is rebuilt by reading the generations again from the
 * first.
 */
export async function recordKeeperIntent(d: KeeperDeps, subject: string, intent: Intent): Promise<RecordedIntent> {
  const now = d.now();
  const key = keeperIntentId(intent.kind, subject);
  let at = await d.state.generations(key);
  // Each turn either returns or finds the current generation ended and moves on: the ledger holds finitely many.
  for (;;) {
    const refused = { inRow: at.refusedInRow, rules: at.rules };
    if (at.spent >= MAX_GENERATIONS) return { id: null, exhausted: true, refused };
    const id = keeperIntentId(intent.kind, subject, at.generation);
    const r = await d.ledger.record({ id, intent, createdAt: now, deadline: now + d.settings.deadlineMs });
    if (r.created || !ENDED_WITHOUT_EFFECT.has(r.state)) {
      if (r.state === 'planned') await d.enqueue(id);
      return { id, state: r.state, created: r.created, refused };
    }
    const [ended] = await d.ledger.read([id]);
    at = await d.state.advanceGenerations(key, at.generation, after(at, ended));
  }
}

/** Where a subject stands once its intent at `at.generation` ended without effect as `ended` says. */
function after(at: SubjectGenerations, ended: KeeperIntentRecord | undefined): SubjectGenerations {
  const generation = at.generation + 1;
  if (ended?.state === 'rejected' && ended.error?.code === GUARD_REFUSED) {
    const named = (ended.error.rule ?? '').split(',').filter((r) => r !== '');
    return { generation, spent: at.spent, refusedInRow: at.refusedInRow + 1, rules: [...new Set([...at.rules, ...named])] };
  }
  // Anything else counts against the subject, an unreadable record too (it cannot be shown to be the guard's).
  return { generation, spent: at.spent + 1, refusedInRow: 0, rules: [] };
}

/**
 * Reports a subject whose venue keeps lying: its last LYING_VENUE_REFUSALS or more intents were refused by the
 * pre-sign guard in a row. The line is logged at error level, which the notifier forwards as an `error` event, so it
 * names everything in its message; it is logged once per new lie (by the keeper that records the fresh intent), not
 * at every run while that intent is on its way. Returns whether the subject is lied about, for the job's counts.
 */
export function reportLyingVenue(log: Logger, kind: Intent['kind'], subject: { label: string; fields: Record<string, string> }, r: RecordedIntent): boolean {
  const { inRow, rules } = r.refused;
  if (inRow < LYING_VENUE_REFUSALS) return false;
  if (r.id !== null && r.created) {
    const message = `the venue keeps lying: its last ${inRow} ${kind} transactions for ${subject.label} were refused by the pre-sign guard (rules: ${rules.join(', ') || 'unnamed'}); trying a fresh build`;
    log.error({ ...subject.fields, kind, intent: r.id, refusedInRow: inRow, rules }, message);
  }
  return true;
}

/** Parses an intent the keeper is about to make; the reason is why not, when the venue's data does not fit. */
export function keeperIntent(input: IntentInput): { ok: true; intent: Intent } | { ok: false; reason: string } {
  const parsed = intentSchema.safeParse(input);
  if (parsed.success) return { ok: true, intent: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: issue ? `${issue.path.join('.') || '(intent)'}: ${issue.message}` : 'not a valid intent' };
}
