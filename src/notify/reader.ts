import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { eventsKey, parseEvent, type KeeperEvent } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/time.js';

/** The consumer group of the deployment's notifiers: each event goes to one of them, whichever process runs it. */
export const NOTIFY_GROUP = 'notify';

/** Options of a `StreamReader`. */
export interface StreamReaderOptions {
  /** A connection of its own (XREADGROUP BLOCK holds it); the reader disconnects it on close. */
  connection: Redis;
  prefix: string;
  onEvents: (events: KeeperEvent[]) => void;
  logger: Logger;
  /** Events older than this when read (a backlog left while no notifier ran) are skipped. */
  maxAgeMs?: number;
  now?: () => number;
}

/**
 * Reads the deployment's event stream as a member of the `notify` consumer group: several keeper processes each
 * running a notifier share the events (each told once), and a restart goes on from where the group stopped. Events
 * are acknowledged when handed over: notifications are best effort, at most once.
 */
export class StreamReader {
  private stopping = false;
  private loop: Promise<void> | undefined;
  private readonly consumer = `${hostname()}:${process.pid}`;

  constructor(private readonly o: StreamReaderOptions) {
    // Its failures surface as failed reads (below); the store's own connection logs Redis going away.
    o.connection.on('error', () => undefined);
  }

  /** Creates the group (at the stream's end, if new) and starts reading. */
  async start(): Promise<void> {
    const key = eventsKey(this.o.prefix);
    await this.o.connection.xgroup('CREATE', key, NOTIFY_GROUP, '$', 'MKSTREAM').catch((err: unknown) => {
      if (!(err instanceof Error && err.message.startsWith('BUSYGROUP'))) throw err;
    });
    this.loop = this.run(key);
  }

  /** Stops reading (the blocked read is cut by disconnecting its connection). */
  async close(): Promise<void> {
    this.stopping = true;
    this.o.connection.disconnect();
    await this.loop;
  }

  private async run(key: string): Promise<void> {
    const maxAge = this.o.maxAgeMs ?? 3_600_000;
    const now = this.o.now ?? Date.now;
    let failures = 0;
    while (!this.stopping) {
      try {
        const reply = (await this.o.connection.xreadgroup('GROUP', NOTIFY_GROUP, this.consumer, 'COUNT', 200, 'BLOCK', 1_000, 'STREAMS', key, '>')) as Array<[string, Array<[string, string[]]>]> | null;
        const entries = reply?.[0]?.[1] ?? [];
        if (entries.length === 0) continue;
        const events: KeeperEvent[] = [];
        for (const [, fields] of entries) {
          const event = parseEvent(fields[fields.indexOf('e') + 1]);
          if (event && now() - event.at <= maxAge) events.push(event);
        }
        await this.o.connection.xack(key, NOTIFY_GROUP, ...entries.map(([id]) => id));
        failures = 0;
        if (events.length > 0) this.o.onEvents(events);
      } catch (err) {
        if (this.stopping) return;
        // NOGROUP: the stream was deleted (a fresh paper session clears the namespace): create the group again.
        if (err instanceof Error && err.message.startsWith('NOGROUP')) {
          await this.o.connection.xgroup('CREATE', key, NOTIFY_GROUP, '0', 'MKSTREAM').catch(() => undefined);
          continue;
        }
        // Once per outage, not once a second.
        failures += 1;
        if (failures === 1) this.o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'notifications: could not read the event stream; trying again');
        await sleep(1_000);
      }
    }
  }
}
