import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { KillSwitchState } from '../engine/killSwitch.js';
import { KILL_SWITCH_MODES } from '../engine/killSwitch.js';
import { eventsKey, eventXaddArgs } from '../lib/events.js';

const stateSchema = z.object({
  mode: z.enum(KILL_SWITCH_MODES),
  reason: z.string(),
  at: z.number(),
  by: z.string(),
  cancelResting: z.object({ requestedAt: z.number(), doneAt: z.number().nullable() }).optional(),
});

/**
 * The kill switch in Redis: one key per deployment, read by every worker before it builds or signs anything, so a
 * switch thrown by one process (the CLI, a worker that met an error needing a human) stops them all within one job.
 */
export class KillSwitchStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}:killswitch`;
  }

  /** The switch, or null when trading runs normally. */
  async read(): Promise<KillSwitchState | null> {
    const raw = await this.redis.get(this.key);
    if (raw === null) return null;
    return parseState(raw);
  }

  /**
   * Engages the switch (replacing any earlier mode, reason and request). With `cancelResting` it also records the
   * request that the running keeper cancel the wallet's resting orders (the CLI does not hold the wallet).
   */
  async engage(mode: KillSwitchState['mode'], reason: string, by: string, now = Date.now(), options: { cancelResting?: boolean } = {}): Promise<KillSwitchState> {
    const state: KillSwitchState = { mode, reason, at: now, by, ...(options.cancelResting ? { cancelResting: { requestedAt: now, doneAt: null } } : {}) };
    // The event goes with the switch, in one transaction: whichever process throws it (the CLI, a worker, a loss
    // limit), the deployment's notifier hears it.
    await this.redis.multi().set(this.key, JSON.stringify(state)).xadd(eventsKey(this.prefix), ...this.switchEvent(state, true)).exec();
    return state;
  }

  /**
   * Marks the cancel-resting request of `requestedAt` done at `at`, if the switch still carries that request
   * undone (a switch released or engaged again since is left as it is). Optimistic: retried if the key moved.
   */
  async finishCancelResting(requestedAt: number, at: number): Promise<void> {
    const conn = this.redis.duplicate();
    try {
      for (let attempt = 0; attempt < 10; attempt += 1) {
        await conn.watch(this.key);
        const raw = await conn.get(this.key);
        const state = raw === null ? null : parseState(raw);
        if (!state?.cancelResting || state.cancelResting.requestedAt !== requestedAt || state.cancelResting.doneAt !== null) {
          await conn.unwatch();
          return;
        }
        const done = await conn.multi().set(this.key, JSON.stringify({ ...state, cancelResting: { requestedAt, doneAt: at } })).exec();
        if (done !== null) return;
      }
    } finally {
      conn.disconnect();
    }
  }

  /**
   * Engages the switch unless it is engaged already (a rule tripping it must not overwrite who stopped trading
   * first, nor turn an operator's reduce-only into halt); returns the switch as it is after the call.
   */
  async engageUnlessEngaged(mode: KillSwitchState['mode'], reason: string, by: string, now = Date.now()): Promise<KillSwitchState> {
    const state: KillSwitchState = { mode, reason, at: now, by };
    const set = await this.redis.set(this.key, JSON.stringify(state), 'NX');
    if (set === 'OK') await this.redis.xadd(eventsKey(this.prefix), ...this.switchEvent(state, true));
    return set === 'OK' ? state : ((await this.read()) ?? state);
  }

  /**
   * Releases the switch; returns whether it was engaged. The loss limits start again from the wallet's value at
   * the next reading: its peak and its first value of the day are forgotten, or a switch tripped by them would
   * trip again at once. `by` names who released it in the event (`cli`, `dashboard`).
   */
  async release(now = Date.now(), by = 'operator'): Promise<boolean> {
    const day = new Date(now).toISOString().slice(0, 10);
    const [released] = (await this.redis.multi().del(this.key).del(`${this.prefix}:risk:peak`, `${this.prefix}:risk:daystart:${day}`).exec()) ?? [];
    if (released?.[1] === 1) await this.redis.xadd(eventsKey(this.prefix), ...this.switchEvent({ mode: 'halt', reason: 'released', at: now, by }, false));
    return released?.[1] === 1;
  }

  /** The XADD arguments of the event that announces the switch engaged or released. */
  private switchEvent(state: KillSwitchState, engaged: boolean): ReturnType<typeof eventXaddArgs> {
    return eventXaddArgs({ type: 'kill-switch', at: state.at, engaged, mode: engaged ? state.mode : null, reason: state.reason, by: state.by });
  }
}

/**
 * A stored switch. A value that is not the JSON this store writes (an older keeper wrote the bare reason, or
 * someone set the key by hand) still means "halted": a kill switch must fail closed.
 */
function parseState(raw: string): KillSwitchState {
  try {
    const parsed = stateSchema.safeParse(JSON.parse(raw));
    if (parsed.success) return parsed.data;
  } catch {
    // not JSON: fall through
  }
  return { mode: 'halt', reason: raw.slice(0, 500) || 'halted', at: 0, by: 'unknown' };
}
