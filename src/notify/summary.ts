import type { Redis } from 'ioredis';
import { eventsKey, parseEvent, type EventOf, type KeeperEvent } from '../lib/events.js';

/**
 * What a summary counts from the event stream: the fees every landed transaction paid, refusals and errors. Trades,
 * claims and volume are not counted here but read from the ledger (src/store/sessionTotals.ts), by the one
 * definition of a trade that `trades` lists: a landing event is also sent for an order placed, which is no trade.
 */
export type Tally = Pick<EventOf<'summary'>, 'feesLamports' | 'refusals' | 'errors'>;

/** An empty tally. */
export function emptyTally(): Tally {
  return { feesLamports: '0', refusals: 0, errors: 0 };
}

/** Adds one event to a tally (the fees of landings and claims add up). */
export function addToTally(t: Tally, e: KeeperEvent): Tally {
  switch (e.type) {
    case 'fill':
    case 'claim':
      return { ...t, feesLamports: (BigInt(t.feesLamports) + BigInt(e.feeLamports ?? '0')).toString() };
    case 'refusal':
      return { ...t, refusals: t.refusals + 1 };
    case 'error':
      return { ...t, errors: t.errors + 1 };
    default:
      return t;
  }
}

/**
 * Tallies the deployment's events from `fromMs` (inclusive) to `toMs` (exclusive) from the stream, whichever process
 * published them: the stream's ids are the times they were appended. What the stream no longer holds (it keeps about
 * EVENTS_MAXLEN entries) is not counted.
 */
export async function tallyStream(redis: Redis, prefix: string, fromMs: number, toMs: number): Promise<Tally> {
  return (await tallyAfter(redis, prefix, emptyTally(), `${Math.max(0, Math.floor(fromMs))}-0`, toMs)).tally;
}

/**
 * Adds to `tally` the events of the stream from `start` (an XRANGE start: an id, or `(id` for after it) to `toMs`
 * (exclusive); returns the new tally and the last id read (undefined when none), to go on from next time.
 */
export async function tallyAfter(redis: Redis, prefix: string, tally: Tally, start: string, toMs: number): Promise<{ tally: Tally; last: string | undefined }> {
  const end = `(${Math.floor(toMs)}-0`;
  let from = start;
  let last: string | undefined;
  for (;;) {
    const page = await redis.xrange(eventsKey(prefix), from, end, 'COUNT', 1_000);
    for (const [id, fields] of page) {
      const e = parseEvent(fields[fields.indexOf('e') + 1]);
      if (e) tally = addToTally(tally, e);
      last = id;
    }
    if (page.length < 1_000) return { tally, last };
    from = `(${last!}`;
  }
}
