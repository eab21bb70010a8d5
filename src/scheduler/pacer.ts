/**
 * Wakes Redis just after each known tick of the job schedulers, so that a worker waiting for a delayed job takes it
 * at once. A worker waits for the next delayed job with a blocking pop whose timeout Redis only notices when its event
 * loop runs: with nothing else to do that is its `hz` timer, every 100 ms by default, so a tick's job would be taken
 * up to 100 ms late. Any command wakes the loop, which then times the pop out; one PING per tick does it (one per
 * distinct tick time, however many schedulers share it). A repeating job names its next tick: its own scheduled time
 * plus its `every` (cron schedules are not paced and keep Redis' resolution).
 */
export class TickPacer {
  private readonly armed = new Map<number, NodeJS.Timeout>();
  private closed = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly now: () => number = Date.now,
    /** Ticks waited for at most at once (a bound on timers, whatever the schedules). */
    private readonly maxArmed = 1_000,
  ) {}

  /** Wakes Redis 1 ms after `at` (a ms timestamp), once for that time. */
  arm(at: number): void {
    if (this.closed || this.armed.has(at) || this.armed.size >= this.maxArmed) return;
    const delay = at + 1 - this.now();
    if (delay <= 0) return;
    const timer = setTimeout(() => {
      this.armed.delete(at);
      // A failed PING only means this tick's job is taken at Redis' own pace.
      this.ping().catch(() => undefined);
    }, delay);
    timer.unref();
    this.armed.set(at, timer);
  }

  /** After a repeating job of `every` ms scheduled at `scheduledAt` ran: paces its next tick. */
  afterRepeat(scheduledAt: number, every: number | undefined): void {
    if (every !== undefined && every > 0) this.arm(scheduledAt + every);
  }

  close(): void {
    this.closed = true;
    for (const t of this.armed.values()) clearTimeout(t);
    this.armed.clear();
  }
}
