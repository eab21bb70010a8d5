import { createHash } from 'node:crypto';
import { KEEPER_INSTANCE } from '../engine/keeperPorts.js';
import type { IntentState } from '../engine/states.js';
import { intentSchema, type Intent, type IntentInput } from '../sdk/intents.js';
import type { KeeperDeps } from './deps.js';

/**
 * How many times one subject (a position to claim, an order to close) gets a new intent after the previous one
 * ended without effect (failed on chain, expired unsent, refused): enough for a passing fault, not a loop.
 */
export const MAX_GENERATIONS = 5;

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

/** How recording a keeper intent went. */
export type RecordedIntent =
  /** Recorded now (`created`) or found recorded and still live or landed; planned ones are (re)queued. */
  | { id: string; state: IntentState; created: boolean }
  /** Every generation ended without effect: nothing more is tried for this subject. */
  | { id: null; exhausted: true };

/**
 * Records a keeper intent for `subject` under its first generation that did not end without effect, and hands it
 * to the execute queue when it is planned (again after a crash between the two: the queue ignores a second add).
 * A subject whose intent landed, or is on its way, gets nothing new.
 */
export async function recordKeeperIntent(d: KeeperDeps, subject: string, intent: Intent): Promise<RecordedIntent> {
  const now = d.now();
  for (let generation = 1; generation <= MAX_GENERATIONS; generation += 1) {
    const id = keeperIntentId(intent.kind, subject, generation);
    const r = await d.ledger.record({ id, intent, createdAt: now, deadline: now + d.settings.deadlineMs });
    if (!r.created && ENDED_WITHOUT_EFFECT.has(r.state)) continue;
    if (r.state === 'planned') await d.enqueue(id);
    return { id, state: r.state, created: r.created };
  }
  return { id: null, exhausted: true };
}

/** Parses an intent the keeper is about to make; the reason is why not, when the venue's data does not fit. */
export function keeperIntent(input: IntentInput): { ok: true; intent: Intent } | { ok: false; reason: string } {
  const parsed = intentSchema.safeParse(input);
  if (parsed.success) return { ok: true, intent: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, reason: issue ? `${issue.path.join('.') || '(intent)'}: ${issue.message}` : 'not a valid intent' };
}
