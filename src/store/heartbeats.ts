import type { Redis } from 'ioredis';
import { z } from 'zod';

/** One worker process's heartbeat: when it last beat and whether each of its BullMQ workers was running then. */
export interface WorkerBeat {
  /** Unix ms of the beat. */
  at: number;
  pid: number;
  host: string;
  /** Queue name to whether its BullMQ worker is running (false: it stopped or crashed). */
  queues: Record<string, boolean>;
  /** Unix ms when the process last finished a job (any queue), null before the first. */
  lastJobAt: number | null;
}

const beatSchema = z.object({
  at: z.number(),
  pid: z.number(),
  host: z.string(),
  queues: z.record(z.string(), z.boolean()),
  lastJobAt: z.number().nullable(),
});

/**
 * The heartbeats of a deployment's worker processes in Redis: one hash field per process (`<host>:<pid>:<random>`),
 * written every few seconds by the process's workers (see KeeperWorkers) and removed when they close. Health is
 * judged from these beats, not from a process being up: a process whose event loop hangs stops beating.
 */
export class HeartbeatStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}:heartbeat:workers`;
  }

  /** Records a beat of worker process `id`. */
  async beat(id: string, beat: WorkerBeat): Promise<void> {
    await this.redis.hset(this.key, id, JSON.stringify(beat));
  }

  /** Removes worker process `id` (it closed cleanly). */
  async remove(id: string): Promise<void> {
    await this.redis.hdel(this.key, id);
  }

  /** Every recorded beat by process id; a field that does not parse is left out. Beats older than `dropOlderThan` (unix ms) are deleted. */
  async read(dropOlderThan?: number): Promise<Map<string, WorkerBeat>> {
    const raw = await this.redis.hgetall(this.key);
    const out = new Map<string, WorkerBeat>();
    const dead: string[] = [];
    for (const [id, text] of Object.entries(raw)) {
      let parsed: ReturnType<typeof beatSchema.safeParse> | undefined;
      try {
        parsed = beatSchema.safeParse(JSON.parse(text));
      } catch {
        parsed = undefined;
      }
      if (!parsed?.success) continue;
      // A process killed without closing leaves its field: forget it once it is long dead.
      if (dropOlderThan !== undefined && parsed.data.at < dropOlderThan) dead.push(id);
      else out.set(id, parsed.data);
    }
    if (dead.length > 0) await this.redis.hdel(this.key, ...dead);
    return out;
  }
}
