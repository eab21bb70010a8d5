import { z } from 'zod';

// The keeper's event stream: what an operator is told about (fills, claims, refusals, kill-switch trips, errors,
// summaries). Every process of a deployment appends to one Redis stream per prefix, `<prefix>:events`: a scheduler,
// workers on other machines and the `kill-switch` command are separate processes, and a notifier must hear them all.
// Modules that produce events only see `EventPublisher` (sync, never throws, never waits): publishing can never slow
// or fail the code path that publishes.

/** The kinds of event, as the config's `notify.*.events` names them. */
export const EVENT_TYPES = ['fill', 'claim', 'refusal', 'kill-switch', 'error', 'summary'] as const;
/** A kind of event. */
export type EventType = (typeof EVENT_TYPES)[number];

/** One leg of a fill, in base units with what it takes to show it in human units. */
const legSchema = z.object({ mint: z.string(), symbol: z.string(), amount: z.string(), decimals: z.number().int().min(0).max(30) });
/** A leg of a fill (`amount` in base units, as a decimal string). */
export type FillLeg = z.output<typeof legSchema>;

const base = { at: z.number() };

/** An event as it travels the stream (parsed on read: the stream is outside data). */
export const keeperEventSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('fill'),
    ...base,
    instance: z.string(),
    intent: z.string(),
    kind: z.string(),
    signature: z.string().nullable(),
    /** What was paid, and what was received (a swap); an order or deposit has only `in`. */
    in: legSchema.optional(),
    out: legSchema.optional(),
    /** The executed price (see `fillPrice`), when both legs are known. */
    price: z.number().optional(),
    priceUnit: z.string().optional(),
    /** USD value of the trade at feed prices, when known. */
    usd: z.number().optional(),
    feeLamports: z.string().optional(),
  }),
  z.object({ type: z.literal('claim'), ...base, instance: z.string(), intent: z.string(), signature: z.string().nullable(), reason: z.string(), feeLamports: z.string().optional() }),
  z.object({ type: z.literal('refusal'), ...base, instance: z.string(), intent: z.string(), kind: z.string(), rule: z.string(), message: z.string() }),
  z.object({ type: z.literal('kill-switch'), ...base, engaged: z.boolean(), mode: z.string().nullable(), reason: z.string(), by: z.string() }),
  z.object({ type: z.literal('error'), ...base, component: z.string().optional(), message: z.string() }),
  z.object({
    type: z.literal('summary'),
    ...base,
    /** What the summary covers: "session 3" (the keeper run so far) or "24 h to 2026-11-27 06:00 UTC". */
    period: z.string(),
    /** Trades by the one definition (src/store/trades.ts), claims included: what `trades` lists for the period. */
    trades: z.number(),
    claims: z.number(),
    volumeUsd: z.number(),
    feesLamports: z.string(),
    refusals: z.number(),
    errors: z.number(),
    /** Realised P&L of the current session, USD. */
    pnlUsd: z.number().nullable(),
    /** Unrealised P&L (holdings bought at the latest prices, less their cost), USD. */
    unrealizedUsd: z.number().nullable().optional(),
    /** The session the P&L is of (and the period, for a session's summary). */
    session: z.number().optional(),
  }),
]);

/** An event of the stream. */
export type KeeperEvent = z.output<typeof keeperEventSchema>;
/** An event of one type. */
export type EventOf<T extends EventType> = Extract<KeeperEvent, { type: T }>;

/** Takes events. `publish` returns at once, never throws, and never waits on I/O. */
export interface EventPublisher {
  publish(event: KeeperEvent): void;
}

/** A publisher that drops everything (the default where no stream is wired). */
export const nullPublisher: EventPublisher = { publish: () => undefined };

/** The Redis stream of a deployment's events. */
export function eventsKey(prefix: string): string {
  return `${prefix}:events`;
}

/** Entries kept in the stream (approximately: XADD MAXLEN ~). */
export const EVENTS_MAXLEN = 10_000;

/** The XADD arguments after the key that append one event: capped length, auto id, one field. */
export function eventXaddArgs(event: KeeperEvent): ['MAXLEN', '~', string, '*', 'e', string] {
  return ['MAXLEN', '~', String(EVENTS_MAXLEN), '*', 'e', JSON.stringify(event)];
}

/** An event read back from the stream's `e` field; undefined when it is not one (an older or foreign entry). */
export function parseEvent(raw: string | undefined): KeeperEvent | undefined {
  if (raw === undefined) return undefined;
  try {
    const parsed = keeperEventSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
