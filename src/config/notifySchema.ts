import { z } from 'zod';
import { EVENT_TYPES } from '../lib/events.js';
import { formatDuration, parseDuration } from './duration.js';

// Written like schema.ts's `duration`, which cannot be imported here: schema.ts imports this file.
function duration(min: number, max: number) {
  const expected = 'expected a duration such as "500ms", "10s", "5m" or "1h"';
  return z.custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', { message: expected }).transform((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === undefined || ms < min || ms > max) {
      ctx.addIssue({ code: 'custom', message: ms === undefined ? `${expected}, got ${JSON.stringify(v)}` : `must be between ${formatDuration(min)} and ${formatDuration(max)}, got ${formatDuration(ms)}` });
      return z.NEVER;
    }
    return ms;
  });
}

/** Which events a sink is sent (src/lib/events.ts); all of them when not listed. */
const events = z.array(z.enum(EVENT_TYPES)).min(1).default([...EVENT_TYPES]);

/**
 * Notifications (src/notify): where the keeper's events go. Secrets never come from here: the Telegram bot token is
 * TELEGRAM_BOT_TOKEN and a Discord webhook URL (which carries its secret) DISCORD_WEBHOOK_URL, in the environment.
 */
export const notifySchema = z.strictObject({
  /** A generic webhook: each message is one POST of JSON `{ source, prefix, text, events }`. */
  webhook: z
    .strictObject({
      /** The receiver; NOTIFY_WEBHOOK_URL (from the environment) when not given here, or when the URL holds a secret. */
      url: z.string().url().optional(),
      events,
    })
    .optional(),
  /** Telegram Bot API sendMessage to one chat; the bot token is TELEGRAM_BOT_TOKEN. */
  telegram: z
    .strictObject({
      chatId: z.union([z.string().min(1), z.number().int()]).transform(String),
      events,
      /** The Bot API origin (a local Bot API server, or a test receiver). */
      apiUrl: z.string().url().default('https://api.telegram.org'),
    })
    .optional(),
  /** A Discord channel webhook; its URL (which carries the secret) is DISCORD_WEBHOOK_URL. */
  discord: z.strictObject({ events }).optional(),
  /** Per sink: a token bucket of `burst` messages refilled at `perMinute`; what waits is coalesced into one message. */
  rateLimit: z.strictObject({ perMinute: z.number().int().min(1).max(600).default(20), burst: z.number().int().min(1).max(100).default(5) }).default({ perMinute: 20, burst: 5 }),
  /** How long the first event of a burst waits for the rest before a message goes (coalescing). */
  coalesce: duration(0, 60_000).default(1_000),
  /** Events waiting per sink; past it the oldest are dropped, counted in a warning. */
  queueSize: z.number().int().min(1).max(100_000).default(500),
  /** Retries of a failed send (backoff from 1 s, doubling, up to 60 s; a 429's Retry-After is honoured). */
  retries: z.number().int().min(0).max(20).default(4),
  /** Longest one send may take. */
  timeout: duration(100, 120_000).default(10_000),
  /** UTC time of day ("HH:MM") of the daily summary of the previous 24 hours. */
  dailySummaryAt: z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (UTC)').default('00:00'),
});

/** The `notify` section, parsed. */
export type NotifyConfig = z.output<typeof notifySchema>;

/** The `logging` section: level, console format, and how often the console prints a summary line. */
export const loggingSchema = z.strictObject({
  level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).default('info'),
  /** `auto`: human lines when stderr is a terminal, JSON lines otherwise; `--log-format` overrides it. */
  format: z.enum(['auto', 'json', 'pretty']).default('auto'),
  /** How often a summary line (trades, volume, fees, P&L, refusals) is logged; one is logged at stop too. */
  summaryEvery: duration(10_000, 86_400_000).default(300_000),
});
