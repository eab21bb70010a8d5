import type { Redis } from 'ioredis';
import type { KeeperEnv } from '../config/env.js';
import type { NotifyConfig } from '../config/notifySchema.js';
import { KeeperError } from '../lib/errors.js';
import type { EventType } from '../lib/events.js';
import { onLoggedError, type Logger } from '../lib/logger.js';
import { KillSwitchEcho } from './killSwitchEcho.js';
import { Notifier, SinkRunner, type SinkPolicy } from './notifier.js';
import { StreamPublisher } from './publisher.js';
import { StreamReader } from './reader.js';
import type { Sink } from './sinks/http.js';
import { discordSink } from './sinks/discord.js';
import { telegramSink } from './sinks/telegram.js';
import { webhookSink } from './sinks/webhook.js';
import { emptyTally, tallyAfter, tallyStream, type Tally } from './summary.js';

/** What the event stream of a keeper process needs. */
export interface EventsOptions {
  redis: Redis;
  prefix: string;
  /** `logging.summaryEvery`: how often the console gets a summary line (and one at stop). */
  summaryEveryMs: number;
  /** The notifications config, and whether this process sends them (one role does: the scheduler's). */
  notify?: NotifyConfig | undefined;
  sendNotifications: boolean;
  env: KeeperEnv;
  /** The session this keeper run is (src/store/sessions.ts): the console summary covers it. */
  session: { id: number; startedAt: number };
  /**
   * The ledger's trades (claims among them) and volume of a window, with the session's realised and unrealised
   * P&L (src/store/sessionTotals.ts): by the one definition of a trade, so a summary counts what `trades` lists.
   */
  totals: (w: { session?: number; from?: number; to?: number }) => Promise<LedgerTotalsOf>;
  logger: Logger;
  now?: () => number;
}

/** What the ledger says of a summary's window (src/store/sessionTotals.ts's LedgerTotals). */
export interface LedgerTotalsOf {
  trades: number;
  claims: number;
  volumeUsd: number;
  realizedUsd: number | null;
  unrealizedUsd: number | null;
}

/** The running event stream of a process: its publisher, the console summary, and (maybe) the notifier. */
export interface RunningEvents {
  publisher: StreamPublisher;
  /** Logs the summary line of the run so far. */
  logSummary(): Promise<void>;
  /** Logs a last summary, stops the notifier (giving queued messages a moment), flushes the stream. */
  close(): Promise<void>;
}

/**
 * Starts the process's part of the event stream: a publisher the engine, the executor and the keeper publish to
 * (plus every error log line), a summary line on the console every `summaryEveryMs` and at stop, a console line for
 * every kill-switch change of the deployment (KillSwitchEcho: from any process), and, in the process that sends
 * notifications, the stream reader, the sinks and the daily summary. Throws KeeperError NOTIFY_CONFIG when a
 * configured sink lacks its secret in the environment.
 */
export async function startEvents(o: EventsOptions): Promise<RunningEvents> {
  const now = o.now ?? Date.now;
  const startedAt = now();
  const log = o.logger.child({ component: 'notify' });
  const publisher = new StreamPublisher(o.redis, o.prefix, log);
  const sinks = o.notify ? configuredSinks(o.notify, o.env, o.prefix) : [];
  const stopErrors = onLoggedError((e) => publisher.publish({ type: 'error', at: now(), ...(e.component ? { component: e.component } : {}), message: e.message }));

  // The run's tally, read on from where the last summary stopped: the stream's trimming loses nothing counted.
  let run = { tally: emptyTally(), next: `${startedAt}-0` };
  const session = o.session;
  const summary = async (): Promise<void> => {
    await publisher.close(1_000);
    const [read, totals] = await Promise.all([tallyAfter(o.redis, o.prefix, run.tally, run.next, now() + 1), o.totals({ session: session.id })]);
    run = { tally: read.tally, next: read.last ? `(${read.last}` : run.next };
    o.logger.info({ period: `session ${session.id}`, session: session.id, sinceMs: now() - session.startedAt, ...summaryFields(read.tally, totals) }, 'summary');
  };
  let summarizing: Promise<void> | undefined;
  const tick = setInterval(() => {
    // A periodic task never overlaps itself.
    summarizing ??= summary()
      .catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not compute the summary'))
      .finally(() => (summarizing = undefined));
  }, o.summaryEveryMs);
  tick.unref();

  let notifier: Notifier | undefined;
  let reader: StreamReader | undefined;
  let daily: NodeJS.Timeout | undefined;
  if (o.notify && o.sendNotifications && sinks.length > 0) {
    const n = o.notify;
    const policy: SinkPolicy = { perMinute: n.rateLimit.perMinute, burst: n.rateLimit.burst, coalesceMs: n.coalesce, queueSize: n.queueSize, retries: n.retries };
    notifier = new Notifier(sinks.map(({ sink, events }) => new SinkRunner(sink, new Set(events), policy, log, now)));
    notifier.start();
    const active = notifier;
    reader = new StreamReader({ connection: o.redis.duplicate(), prefix: o.prefix, onEvents: (events) => active.handle(events), logger: log });
    await reader.start();
    const arm = (): void => {
      daily = setTimeout(() => {
        dailySummary(o, publisher, now).catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not send the daily summary'));
        arm();
      }, msUntil(n.dailySummaryAt, now()));
      daily.unref();
    };
    arm();
    log.info({ sinks: sinks.map((s) => ({ sink: s.sink.name, events: s.events })) }, 'notifications on');
  }
  const echo = new KillSwitchEcho({ connection: o.redis.duplicate(), prefix: o.prefix, logger: o.logger.child({ component: 'kill-switch' }) });
  await echo.start().catch(async (err: unknown) => {
    // A start that fails here leaves nothing running behind it.
    clearInterval(tick);
    clearTimeout(daily);
    stopErrors();
    await echo.close();
    await reader?.close();
    await notifier?.close(0);
    throw err;
  });

  return {
    publisher,
    logSummary: summary,
    close: async () => {
      clearInterval(tick);
      clearTimeout(daily);
      await summarizing;
      // Bounded: a Redis gone at shutdown must not hold the stop.
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), 3_000)));
      const done = await Promise.race([summary().catch((err: unknown) => log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not compute the summary')), late]);
      clearTimeout(timer);
      if (done === 'late') log.warn('no summary at stop: Redis did not answer in time');
      stopErrors();
      await echo.close();
      await reader?.close();
      await notifier?.close(2_000);
      await publisher.close();
    },
  };
}

/** The sinks the config names, with their secrets from the environment. */
function configuredSinks(n: NotifyConfig, env: KeeperEnv, prefix: string): Array<{ sink: Sink; events: EventType[] }> {
  const out: Array<{ sink: Sink; events: EventType[] }> = [];
  if (n.webhook) {
    const url = env.NOTIFY_WEBHOOK_URL ?? n.webhook.url;
    if (!url) throw new KeeperError('NOTIFY_CONFIG', 'halt', 'notify.webhook needs a URL: notify.webhook.url, or NOTIFY_WEBHOOK_URL in the environment');
    out.push({ sink: webhookSink({ url, prefix, timeoutMs: n.timeout }), events: n.webhook.events });
  }
  if (n.telegram) {
    if (!env.TELEGRAM_BOT_TOKEN) throw new KeeperError('NOTIFY_CONFIG', 'halt', 'notify.telegram needs the bot token in the environment: TELEGRAM_BOT_TOKEN');
    out.push({ sink: telegramSink({ token: env.TELEGRAM_BOT_TOKEN, chatId: n.telegram.chatId, apiUrl: n.telegram.apiUrl, prefix, timeoutMs: n.timeout }), events: n.telegram.events });
  }
  if (n.discord) {
    if (!env.DISCORD_WEBHOOK_URL) throw new KeeperError('NOTIFY_CONFIG', 'halt', 'notify.discord needs the webhook URL in the environment: DISCORD_WEBHOOK_URL');
    out.push({ sink: discordSink({ url: env.DISCORD_WEBHOOK_URL, prefix, timeoutMs: n.timeout }), events: n.discord.events });
  }
  return out;
}

/**
 * The summary of the 24 hours before now, published once per day for the deployment: the first notifier to take
 * the day's key sends it (several processes may run one).
 */
export async function dailySummary(o: EventsOptions, publisher: StreamPublisher, now: () => number): Promise<void> {
  const at = now();
  const day = new Date(at - 60_000).toISOString().slice(0, 10);
  const won = await o.redis.set(`${o.prefix}:notify:daily:${day}`, String(at), 'EX', 2 * 86_400, 'NX');
  if (won !== 'OK') return;
  const [tally, totals] = await Promise.all([tallyStream(o.redis, o.prefix, at - 86_400_000, at), o.totals({ from: at - 86_400_000, to: at })]);
  publisher.publish({ type: 'summary', at, period: `24 h to ${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`, session: o.session.id, ...summaryFields(tally, totals) });
}

/** A summary's counts: the stream's fees, refusals and errors, the ledger's trades, volume and P&L (rounded to cents). */
function summaryFields(tally: Tally, t: LedgerTotalsOf): Tally & { trades: number; claims: number; volumeUsd: number; pnlUsd: number | null; unrealizedUsd: number | null } {
  const cents = (n: number | null) => (n === null ? null : round2(n));
  return { trades: t.trades, claims: t.claims, volumeUsd: round2(t.volumeUsd), ...tally, pnlUsd: cents(t.realizedUsd), unrealizedUsd: cents(t.unrealizedUsd) };
}

/** Milliseconds from `nowMs` to the next `HH:MM` UTC. */
export function msUntil(hhmm: string, nowMs: number): number {
  const [h, m] = hhmm.split(':').map(Number) as [number, number];
  const d = new Date(nowMs);
  let next = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), h, m);
  if (next <= nowMs) next += 86_400_000;
  return next - nowMs;
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}
