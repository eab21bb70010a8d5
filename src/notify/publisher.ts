import type { Redis } from 'ioredis';
import { eventsKey, eventXaddArgs, type EventPublisher, type KeeperEvent } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';

/** Options of a `StreamPublisher`. */
export interface StreamPublisherOptions {
  /** Events held while Redis is slow or away; past it the oldest are dropped (counted, with a warning). */
  maxBuffered?: number;
}

/**
 * The process's side of the event stream: `publish` hands the event to in-process listeners (the console summary)
 * and buffers it; a flush, never awaited by a publisher, appends the buffer to `<prefix>:events` in one pipeline.
 * A Redis that is slow or away fills the buffer, which drops its oldest events: trading never waits on it.
 */
export class StreamPublisher implements EventPublisher {
  private buffer: KeeperEvent[] = [];
  private flushing: Promise<void> | undefined;
  private scheduled = false;
  private readonly listeners = new Set<(e: KeeperEvent) => void>();
  private readonly maxBuffered: number;
  /** Events dropped because the buffer was full, since start. */
  dropped = 0;
  /** Events whose append to Redis failed, since start. */
  failed = 0;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
    options: StreamPublisherOptions = {},
  ) {
    this.maxBuffered = options.maxBuffered ?? 1_000;
  }

  /** Sync, never throws: listeners run now (their throws are swallowed), the append happens later. */
  publish(event: KeeperEvent): void {
    for (const l of this.listeners) {
      try {
        l(event);
      } catch {
        // a listener's bug must not reach the publisher's caller
      }
    }
    this.buffer.push(event);
    if (this.buffer.length > this.maxBuffered) {
      const over = this.buffer.length - this.maxBuffered;
      this.buffer.splice(0, over);
      this.dropped += over;
      // Warn at the first drop and then every 100th: a stuck Redis must not turn into a log flood.
      if (this.dropped === over || Math.floor(this.dropped / 100) !== Math.floor((this.dropped - over) / 100)) {
        this.logger.warn({ dropped: this.dropped }, 'event stream: Redis is behind; dropped the oldest unsent events');
      }
    }
    this.schedule();
  }

  /** Calls `fn` with every event published in this process; returns the unsubscribe. */
  subscribe(fn: (e: KeeperEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  /** Appends what is buffered (waits for a flush in progress first). */
  async flush(): Promise<void> {
    while (this.flushing || this.buffer.length > 0) {
      if (this.flushing) await this.flushing;
      else this.startFlush();
    }
  }

  /** Flushes, giving up after `timeoutMs` (a Redis that is gone must not hold the shutdown). */
  async close(timeoutMs = 2_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.flush(), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      if (!this.flushing) this.startFlush();
    });
  }

  private startFlush(): void {
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return;
    const key = eventsKey(this.prefix);
    const pipeline = this.redis.pipeline();
    for (const e of batch) pipeline.xadd(key, ...eventXaddArgs(e));
    this.flushing = pipeline
      .exec()
      .then((results) => {
        const errors = (results ?? []).filter(([err]) => err !== null).length;
        if (errors > 0) this.noteFailure(errors, (results ?? []).find(([err]) => err !== null)?.[0]);
      })
      .catch((err: unknown) => this.noteFailure(batch.length, err))
      .finally(() => {
        this.flushing = undefined;
        if (this.buffer.length > 0) this.schedule();
      });
  }

  private noteFailure(count: number, err: unknown): void {
    this.failed += count;
    this.logger.warn({ failed: this.failed, err: err instanceof Error ? err.message : String(err) }, 'event stream: could not append events to Redis; they are lost');
  }
}
