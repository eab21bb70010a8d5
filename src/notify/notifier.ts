import type { EventType, KeeperEvent } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import { withRetry } from '../lib/retry.js';
import { sleep } from '../lib/time.js';
import { NotifyError, type Sink } from './sinks/http.js';

/** How a sink is paced and retried (the config's `notify` values). */
export interface SinkPolicy {
  /** Token bucket: messages refilled per minute, and the bucket's size. */
  perMinute: number;
  burst: number;
  /** How long the first event of a burst waits for more before its message goes. */
  coalesceMs: number;
  /** Events held; past it the oldest are dropped (counted, with a warning). */
  queueSize: number;
  retries: number;
  /** Events per message at most (the rest go in the next one). */
  maxBatch?: number;
}

/**
 * One sink's queue and sender. `enqueue` only pushes into a bounded queue and wakes the sender: whatever the sink
 * does (refuse, hang, vanish) happens in the sender's own loop, never in the caller's. The sender waits for a
 * token, takes everything queued (a burst becomes one message) and sends it with backoff on transient failures.
 */
export class SinkRunner {
  private queue: KeeperEvent[] = [];
  private wake: (() => void) | undefined;
  private stopping = false;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;
  private tokens: number;
  private refilledAt: number;
  /** Counters since start: messages sent, events dropped from a full queue, messages given up after retries. */
  readonly counts = { sent: 0, dropped: 0, failed: 0 };

  constructor(
    readonly sink: Sink,
    private readonly accepts: ReadonlySet<EventType>,
    private readonly policy: SinkPolicy,
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = policy.burst;
    this.refilledAt = now();
  }

  /** Queues the events this sink takes. Never waits, never throws. */
  enqueue(events: readonly KeeperEvent[]): void {
    if (this.stopping) return;
    const mine = events.filter((e) => this.accepts.has(e.type));
    if (mine.length === 0) return;
    this.queue.push(...mine);
    const over = this.queue.length - this.policy.queueSize;
    if (over > 0) {
      this.queue.splice(0, over);
      const before = this.counts.dropped;
      this.counts.dropped += over;
      if (before === 0 || Math.floor(before / 100) !== Math.floor(this.counts.dropped / 100)) {
        this.logger.warn({ sink: this.sink.name, dropped: this.counts.dropped }, 'notifications: the sink is behind; dropped the oldest queued events');
      }
    }
    this.wake?.();
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Gives what is queued up to `graceMs` to go, then stops (an in-flight send is aborted). */
  async close(graceMs = 2_000): Promise<void> {
    this.stopping = true;
    const deadline = this.now() + graceMs;
    while (this.queue.length > 0 && this.now() < deadline && this.loop) await sleep(50);
    this.abort.abort();
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      if (this.queue.length === 0) {
        if (this.stopping) return;
        await new Promise<void>((r) => (this.wake = r));
        this.wake = undefined;
        continue;
      }
      try {
        if (!this.stopping) await sleep(this.policy.coalesceMs, signal);
        await this.takeToken(signal);
      } catch {
        return; // aborted
      }
      const batch = this.queue.splice(0, this.policy.maxBatch ?? 50);
      try {
        await withRetry(() => this.sink.send(batch, signal), {
          policy: { retries: this.policy.retries, baseDelayMs: 1_000, maxDelayMs: 60_000 },
          signal,
          delayHint: (err) => (err instanceof NotifyError ? err.retryAfterMs : undefined),
          onRetry: (err, attempt, delayMs) => this.logger.debug({ sink: this.sink.name, attempt, delayMs: Math.round(delayMs), err: err instanceof Error ? err.message : String(err) }, 'notifications: send failed; retrying'),
        });
        this.counts.sent += 1;
      } catch (err) {
        if (signal.aborted) return;
        this.counts.failed += 1;
        this.logger.warn({ sink: this.sink.name, events: batch.length, failed: this.counts.failed, err: err instanceof Error ? err.message : String(err) }, 'notifications: gave up sending a message');
      }
    }
  }

  private async takeToken(signal: AbortSignal): Promise<void> {
    const perMs = this.policy.perMinute / 60_000;
    for (;;) {
      const t = this.now();
      this.tokens = Math.min(this.policy.burst, this.tokens + (t - this.refilledAt) * perMs);
      this.refilledAt = t;
      if (this.tokens >= 1) {
        this.tokens -= 1;
        return;
      }
      await sleep(Math.ceil((1 - this.tokens) / perMs), signal);
    }
  }
}

/** Fans the stream's events out to every sink's runner. */
export class Notifier {
  constructor(readonly runners: readonly SinkRunner[]) {}

  start(): void {
    for (const r of this.runners) r.start();
  }

  /** Hands events to each sink that takes them; returns at once. */
  handle(events: readonly KeeperEvent[]): void {
    for (const r of this.runners) r.enqueue(events);
  }

  async close(graceMs?: number): Promise<void> {
    await Promise.all(this.runners.map((r) => r.close(graceMs)));
  }
}
