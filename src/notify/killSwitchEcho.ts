import type { Redis } from 'ioredis';
import { eventsKey, parseEvent, type EventOf } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import { sleep } from '../lib/time.js';

/** The log message of a switch engaged, and of one released (the console renders both; see consoleFormat). */
export const KILL_SWITCH_ENGAGED_MSG = 'kill switch engaged';
/** See KILL_SWITCH_ENGAGED_MSG. */
export const KILL_SWITCH_RELEASED_MSG = 'kill switch released';

/** Options of a `KillSwitchEcho`. */
export interface KillSwitchEchoOptions {
  /** A connection of its own (XREAD BLOCK holds it); the echo disconnects it on close. */
  connection: Redis;
  prefix: string;
  /** The process's logger: the lines go to its console. */
  logger: Logger;
}

/**
 * Tells this process's console of every kill-switch change of the deployment, whoever made it: `kill-switch on|off`
 * in another shell, the dashboard's button, a loss limit, a worker that met an error needing a human. Each of those
 * appends a `kill-switch` event to the deployment's stream with the switch (KillSwitchStore), so the echo follows the
 * stream from its end at start (plain XREAD: every process reads every event, unlike the notifiers' consumer group)
 * and logs each change as one line: a warning when engaged (mode, reason, by), info when released (by).
 */
export class KillSwitchEcho {
  private stopping = false;
  private loop: Promise<void> | undefined;

  constructor(private readonly o: KillSwitchEchoOptions) {
    // Its failures surface as failed reads (below); the store's own connection logs Redis going away.
    o.connection.on('error', () => undefined);
  }

  /** Notes where the stream ends now (later events are echoed) and starts following it. */
  async start(): Promise<void> {
    const key = eventsKey(this.o.prefix);
    const [last] = (await this.o.connection.xrevrange(key, '+', '-', 'COUNT', 1)) as Array<[string, string[]]>;
    this.loop = this.run(key, last?.[0] ?? '0-0');
  }

  /** Stops following (the blocked read is cut by disconnecting its connection). */
  async close(): Promise<void> {
    this.stopping = true;
    this.o.connection.disconnect();
    await this.loop;
  }

  private async run(key: string, from: string): Promise<void> {
    let after = from;
    let failures = 0;
    while (!this.stopping) {
      try {
        const reply = await this.o.connection.xread('COUNT', 500, 'BLOCK', 1_000, 'STREAMS', key, after);
        failures = 0;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          after = id;
          const event = parseEvent(fields[fields.indexOf('e') + 1]);
          if (event?.type === 'kill-switch') this.echo(event);
        }
      } catch (err) {
        if (this.stopping) return;
        // Once per outage, not once a second.
        failures += 1;
        if (failures === 1) this.o.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'kill-switch changes: could not read the event stream; trying again');
        await sleep(1_000);
      }
    }
  }

  private echo(e: EventOf<'kill-switch'>): void {
    if (e.engaged) this.o.logger.warn({ prefix: this.o.prefix, engaged: true, mode: e.mode, reason: e.reason, by: e.by, at: e.at }, KILL_SWITCH_ENGAGED_MSG);
    else this.o.logger.info({ prefix: this.o.prefix, engaged: false, by: e.by, at: e.at }, KILL_SWITCH_RELEASED_MSG);
  }
}
