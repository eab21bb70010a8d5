// Notifications (issue 13, item 5), piece by piece against real parts: a local HTTP receiver, a real Redis. The
// sinks' pacing (token bucket, bursts coalesced into one message), retries with backoff, a bounded queue that drops
// its oldest events, secrets kept out of errors, and the event stream in Redis shared by the processes.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { eventsKey, type KeeperEvent } from '../../src/lib/events.js';
import { createLogger } from '../../src/lib/logger.js';
import { dailySummary, emptyTally, Notifier, SinkRunner, StreamPublisher, StreamReader, tallyAfter, tallyStream, telegramSink, webhookSink, discordSink, msUntil, type SinkPolicy } from '../../src/notify/index.js';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore } from '../../src/store/intents.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { beginSession } from '../../src/store/sessions.js';
import { ledgerTotals } from '../../src/store/sessionTotals.js';
import { SOL, USDC } from '../cli/fixtures.js';
import { freePort } from '../helpers/keeper.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';

interface Received {
  path: string;
  body: Record<string, unknown>;
}

/** A local receiver answering each request with `answer` (status, headers), or never (`hang`). */
async function receiver(answer: (n: number) => { status: number; headers?: Record<string, string> } | 'hang' = () => ({ status: 200 })) {
  const got: Received[] = [];
  const hanging: ServerResponse[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(body || '{}') as Record<string, unknown> });
      const a = answer(got.length);
      if (a === 'hang') return void hanging.push(res);
      res.writeHead(a.status, a.headers).end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, got, close: () => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))) };
}

const fill = (n: number): Extract<KeeperEvent, { type: 'fill' }> => ({ type: 'fill', at: Date.now(), instance: `dca-${n}`, intent: `i${n}`, kind: 'swap', signature: `sig${n}` });
const POLICY: SinkPolicy = { perMinute: 600, burst: 10, coalesceMs: 0, queueSize: 100, retries: 3 };

function captured() {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) } });
  return { logger, lines };
}

const until = async (what: string, check: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('a sink', () => {
  const closers: Array<() => Promise<unknown>> = [];
  afterEach(async () => {
    for (const c of closers.splice(0).reverse()) await c();
  });

  it('sends a burst as one message once it has waited for the rest of it', async () => {
    const r = await receiver();
    closers.push(r.close);
    const runner = new SinkRunner(webhookSink({ url: `${r.url}/hook`, prefix: 'jk-t', timeoutMs: 2_000 }), new Set(['fill', 'claim']), { ...POLICY, coalesceMs: 200 }, captured().logger);
    runner.start();
    closers.push(() => runner.close());
    for (let i = 1; i <= 7; i += 1) runner.enqueue([fill(i)]);
    runner.enqueue([{ type: 'error', at: Date.now(), message: 'not for this sink' }]);
    await until('a message', () => r.got.length === 1);
    await new Promise((res) => setTimeout(res, 300));
    expect(r.got).toHaveLength(1);
    expect(r.got[0]!.path).toBe('/hook');
    expect((r.got[0]!.body.events as KeeperEvent[]).map((e) => (e as { intent: string }).intent)).toEqual(['i1', 'i2', 'i3', 'i4', 'i5', 'i6', 'i7']);
    expect(r.got[0]!.body).toMatchObject({ source: 'jup-keeper', prefix: 'jk-t' });
    expect(r.got[0]!.body.text).toMatch(/^jup-keeper jk-t: 7 events\n• filled dca-1: swap/);
  });

  it('sends no more messages than its token bucket allows; what waits goes together in the next one', async () => {
    const r = await receiver();
    closers.push(r.close);
    // One message at once, then one a second.
    const runner = new SinkRunner(webhookSink({ url: r.url, prefix: 'p', timeoutMs: 2_000 }), new Set(['fill']), { ...POLICY, perMinute: 60, burst: 1 }, captured().logger);
    runner.start();
    closers.push(() => runner.close(0));
    runner.enqueue([fill(1)]);
    await until('the first message', () => r.got.length === 1);
    const firstAt = Date.now();
    for (let i = 2; i <= 20; i += 1) runner.enqueue([fill(i)]);
    await until('the second message', () => r.got.length === 2, 5_000);
    expect(Date.now() - firstAt).toBeGreaterThanOrEqual(800);
    expect((r.got[1]!.body.events as KeeperEvent[]).length).toBe(19);
  });

  it('retries a failing receiver with backoff and honours Retry-After', async () => {
    const r = await receiver((n) => (n === 1 ? { status: 503 } : n === 2 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 204 }));
    closers.push(r.close);
    const { logger, lines } = captured();
    const runner = new SinkRunner(webhookSink({ url: r.url, prefix: 'p', timeoutMs: 2_000 }), new Set(['fill']), POLICY, logger);
    runner.start();
    closers.push(() => runner.close(0));
    const t0 = Date.now();
    runner.enqueue([fill(1)]);
    await until('three attempts', () => r.got.length === 3, 15_000);
    await until('the count', () => runner.counts.sent === 1);
    // 503, then about 1 s of backoff; 429, then the 1 s it asked for.
    expect(Date.now() - t0).toBeGreaterThanOrEqual(1_400);
    expect(runner.counts).toEqual({ sent: 1, dropped: 0, failed: 0 });
    expect(lines.filter((l) => l.msg === 'notifications: send failed; retrying').map((l) => l.err)).toEqual(['webhook notification failed: HTTP 503', 'webhook notification failed: HTTP 429 (rate limited)']);
  });

  it('never makes its caller wait on a receiver that does not answer, and drops its oldest events when full', async () => {
    const r = await receiver(() => 'hang');
    closers.push(r.close);
    const { logger, lines } = captured();
    const runner = new SinkRunner(webhookSink({ url: r.url, prefix: 'p', timeoutMs: 60_000 }), new Set(['fill']), { ...POLICY, queueSize: 5, burst: 100 }, logger);
    runner.start();
    runner.enqueue([fill(0)]);
    await until('the hanging request', () => r.got.length === 1);
    const t0 = performance.now();
    for (let i = 1; i <= 1_000; i += 1) runner.enqueue([fill(i)]);
    expect(performance.now() - t0).toBeLessThan(500);
    expect(runner.counts.dropped).toBe(995);
    expect(lines.filter((l) => l.msg === 'notifications: the sink is behind; dropped the oldest queued events').length).toBeLessThanOrEqual(11);
    // Closing gives up on the hanging send after its grace.
    const c0 = Date.now();
    await runner.close(200);
    expect(Date.now() - c0).toBeLessThan(2_000);
  });

  it('keeps the Telegram token and a Discord webhook URL out of every error', async () => {
    const token = `123456:SECRET-${randomUUID()}`;
    const hookSecret = `hooksecret-${randomUUID()}`;
    const r = await receiver(() => ({ status: 401 }));
    closers.push(r.close);
    const dead = `http://127.0.0.1:${await freePort()}`;
    const errors: string[] = [];
    for (const sink of [telegramSink({ token, chatId: '42', apiUrl: r.url, prefix: 'p', timeoutMs: 2_000 }), telegramSink({ token, chatId: '42', apiUrl: dead, prefix: 'p', timeoutMs: 2_000 }), discordSink({ url: `${r.url}/api/webhooks/1/${hookSecret}`, prefix: 'p', timeoutMs: 2_000 }), discordSink({ url: `${dead}/api/webhooks/1/${hookSecret}`, prefix: 'p', timeoutMs: 2_000 })]) {
      const err = await sink.send([fill(1)], new AbortController().signal).then(() => undefined, (e: unknown) => e as Error);
      expect(err).toBeInstanceOf(Error);
      errors.push(`${err!.message} ${JSON.stringify(err)} ${String(err!.stack)}`);
    }
    expect(errors.join('\n')).not.toContain('SECRET');
    expect(errors.join('\n')).not.toContain(hookSecret);
    expect(errors[0]).toContain('telegram notification failed: HTTP 401');
    expect(errors[1]).toContain('telegram notification failed: network error ECONNREFUSED');
    // Telegram got sendMessage to the chat, with the token only in the path.
    expect(r.got[0]).toMatchObject({ path: `/bot${token}/sendMessage`, body: { chat_id: '42', text: expect.stringContaining('filled dca-1: swap') } });
    expect(r.got[1]).toMatchObject({ path: `/api/webhooks/1/${hookSecret}`, body: { content: expect.stringContaining('filled dca-1') } });
  });

  it('fans events out to each sink by the events it takes', async () => {
    const a = await receiver();
    const b = await receiver();
    closers.push(a.close, b.close);
    const log = captured().logger;
    const n = new Notifier([new SinkRunner(webhookSink({ url: a.url, prefix: 'p', timeoutMs: 2_000 }), new Set(['fill']), POLICY, log), new SinkRunner(webhookSink({ url: b.url, prefix: 'p', timeoutMs: 2_000 }), new Set(['kill-switch']), POLICY, log)]);
    n.start();
    closers.push(() => n.close(0));
    n.handle([fill(1), { type: 'kill-switch', at: Date.now(), engaged: true, mode: 'halt', reason: 'r', by: 'cli' }]);
    await until('both', () => a.got.length === 1 && b.got.length === 1);
    expect((a.got[0]!.body.events as KeeperEvent[]).map((e) => e.type)).toEqual(['fill']);
    expect(b.got[0]!.body.text).toBe('jup-keeper p\nKILL SWITCH ENGAGED (halt) by cli: r');
  });

  it('finds the next daily summary time in UTC', () => {
    const t = Date.parse('2026-11-27T06:00:00Z');
    expect(msUntil('00:00', t)).toBe(18 * 3_600_000);
    expect(msUntil('06:30', t)).toBe(30 * 60_000);
    expect(msUntil('06:00', t)).toBe(86_400_000);
  });
});

describe('the event stream in Redis', () => {
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  const prefix = `notify-test-${randomUUID().slice(0, 8)}`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('carries what one process publishes to the notifiers of the deployment, each event to one of them', async () => {
    const { logger } = captured();
    const got: Array<{ reader: number; events: KeeperEvent[] }> = [];
    const readers = [1, 2].map((i) => new StreamReader({ connection: redis.duplicate(), prefix, logger, onEvents: (events) => got.push({ reader: i, events }) }));
    for (const r of readers) await r.start();
    const publisher = new StreamPublisher(redis, prefix, logger);
    const local: KeeperEvent[] = [];
    publisher.subscribe((e) => local.push(e));
    for (let i = 0; i < 50; i += 1) publisher.publish(fill(i));
    expect(local).toHaveLength(50);
    await publisher.flush();
    await until('every event read', () => got.flatMap((g) => g.events).length >= 50);
    for (const r of readers) await r.close();
    const intents = got.flatMap((g) => g.events.map((e) => (e as { intent: string }).intent));
    expect(intents.sort()).toEqual(Array.from({ length: 50 }, (_, i) => `i${i}`).sort());
  });

  it('appends a kill-switch event whoever throws the switch, and another when it is released', async () => {
    const p2 = `${prefix}-ks`;
    const before = Date.now();
    const store = new KillSwitchStore(redis, p2);
    await store.engage('halt', 'testing', 'cli', before);
    await store.engageUnlessEngaged('halt', 'a loss limit', 'risk:drawdown'); // already engaged: no event
    await store.release();
    const entries = await redis.xrange(eventsKey(p2), '-', '+');
    expect(entries.map(([, f]) => JSON.parse(f[1]!) as KeeperEvent)).toEqual([
      { type: 'kill-switch', at: before, engaged: true, mode: 'halt', reason: 'testing', by: 'cli' },
      expect.objectContaining({ type: 'kill-switch', engaged: false, mode: null }),
    ]);
    await redis.del(eventsKey(p2));
  });

  it('sends the daily summary of the last 24 hours once per deployment, whichever notifier comes first, counting the trades of the ledger', async () => {
    const p4 = `${prefix}-daily`;
    const { logger } = captured();
    const publisher = new StreamPublisher(redis, p4, logger);
    const session = await beginSession(redis, p4, Date.now() - 60_000);
    // A swap that landed (a trade) and a limit order placed and still resting (no trade): both announced on landing.
    const intents = new IntentStore(redis, p4);
    const land = async (id: string, intent: Intent, result: Record<string, unknown>) => {
      const t = Date.now();
      await intents.create({ id, instance: 'dca', strategy: 'dca@1.0.0', intent, createdAt: t, deadline: t + 60_000 });
      for (const to of ['built', 'guarded'] as const) await intents.move(id, null, to, {}, t);
      await intents.move(id, null, 'signed', { signature: 'sig', signatures: ['sig'] }, t);
      await intents.move(id, null, 'landed', { result }, t);
    };
    await land('dca.swap.1', { kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 20_000_000n }, { inAmount: 20_000_000n, outAmount: 100_000_000n });
    await land('dca.trigger.1', { kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 5_000_000n, takingAmount: 25_000_000n }, {});
    publisher.publish({ ...fill(1), usd: 20, feeLamports: '5000' });
    publisher.publish({ ...fill(2), kind: 'trigger.create', usd: 5, feeLamports: '5000' });
    publisher.publish({ type: 'refusal', at: Date.now(), instance: 'x', intent: 'y', kind: 'swap', rule: 'max-notional', message: 'm' });
    await publisher.flush();
    const sent: KeeperEvent[] = [];
    publisher.subscribe((e) => sent.push(e));
    const o = { redis, prefix: p4, summaryEveryMs: 60_000, sendNotifications: true, env: {} as never, session, totals: (w: { session?: number; from?: number; to?: number }) => ledgerTotals(redis, p4, w), logger };
    const at = Date.now() + 5;
    // Two notifiers at midnight: one summary.
    await Promise.all([dailySummary(o, publisher, () => at), dailySummary(o, publisher, () => at)]);
    expect(sent).toEqual([{ type: 'summary', at, period: expect.stringMatching(/^24 h to \d{4}-\d\d-\d\d \d\d:\d\d UTC$/), session: session.id, trades: 1, claims: 0, volumeUsd: 20, feesLamports: '10000', refusals: 1, errors: 0, pnlUsd: 0, unrealizedUsd: null }]);
    await redis.del(eventsKey(p4), ...(await redis.keys(`${p4}:*`)));
  });

  it('tallies a window of the stream: fees, refusals, errors (trades are the ledger\'s)', async () => {
    const p3 = `${prefix}-tally`;
    const publisher = new StreamPublisher(redis, p3, captured().logger);
    const t0 = Date.now();
    publisher.publish({ ...fill(1), usd: 10.5, feeLamports: '5000' });
    publisher.publish({ ...fill(2), usd: 2, feeLamports: '5000' });
    publisher.publish({ type: 'claim', at: t0, instance: 'keeper', intent: 'c', signature: 's', reason: 'r', feeLamports: '5000' });
    publisher.publish({ type: 'refusal', at: t0, instance: 'x', intent: 'y', kind: 'swap', rule: 'max-notional', message: 'm' });
    publisher.publish({ type: 'error', at: t0, message: 'e' });
    await publisher.flush();
    expect(await tallyStream(redis, p3, t0 - 1_000, Date.now() + 1)).toEqual({ feesLamports: '15000', refusals: 1, errors: 1 });
    expect(await tallyStream(redis, p3, Date.now() + 10_000, Date.now() + 20_000)).toEqual({ feesLamports: '0', refusals: 0, errors: 0 });
    // Read on from a cursor: what was counted is not counted again, and the stream's trimming cannot lose it.
    const first = await tallyAfter(redis, p3, emptyTally(), `${t0 - 1_000}-0`, Date.now() + 1);
    publisher.publish({ ...fill(3), usd: 1, feeLamports: '5000' });
    await publisher.flush();
    await redis.xtrim(eventsKey(p3), 'MAXLEN', 1);
    const next = await tallyAfter(redis, p3, first.tally, `(${first.last!}`, Date.now() + 1);
    expect(next.tally).toEqual({ feesLamports: '20000', refusals: 1, errors: 1 });
    await redis.del(eventsKey(p3));
  });
});
