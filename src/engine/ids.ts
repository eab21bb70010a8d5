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

/** The decision window of an evaluation at `scheduledAtMs` for a cadence of `cadenceMs`. */
export function decisionWindow(scheduledAtMs: number, cadenceMs: number): number {
  return Math.floor(scheduledAtMs / Math.max(1, cadenceMs));
}
