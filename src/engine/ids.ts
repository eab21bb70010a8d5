import { createHash } from 'node:crypto';
import { intentSubject, type Intent } from '../sdk/intents.js';

/**
 * The deterministic id of an intent: strategy instance, kind, subject, key and decision window. It is the BullMQ
 * jobId and the key of the intent's record, so the same decision made twice (a re-delivered evaluate job, two
 * workers, a restart) is one intent. BullMQ forbids ':' in ids and all-digit ids; this never produces either.
 */
export function intentId(instanceId: string, intent: Intent, window: number | string): string {
  const h = createHash('sha256')
    .update([instanceId, intent.kind, intentSubject(intent), intent.key ?? '', String(window)].join('\u0000'))
    .digest('hex')
    .slice(0, 20);
  return `${instanceId}.${intent.kind}.${h}`;
}

/**
 * A decision window: `id` goes into the intent ids (the same window decides the same intents), `start` (unix ms)
 * orders windows, also across a change of cadence (window ids of different cadences do not compare).
 */
export interface DecisionWindow {
  id: number;
  start: number;
}

/**
 * The window of an evaluation scheduled at `scheduledAtMs`: the `every` cadence's slot that holds it, or, for a
 * cron schedule (no cadence), the scheduled instant itself.
 */
export function windowOf(scheduledAtMs: number, everyMs: number | undefined): DecisionWindow {
  if (everyMs === undefined) return { id: scheduledAtMs, start: scheduledAtMs };
  const id = decisionWindow(scheduledAtMs, everyMs);
  return { id, start: id * Math.max(1, everyMs) };
}

/** The decision window of an evaluation at `scheduledAtMs` for a cadence of `cadenceMs`. */
export function decisionWindow(scheduledAtMs: number, cadenceMs: number): number {
  return Math.floor(scheduledAtMs / Math.max(1, cadenceMs));
}
