import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { globEscape, scanKeys } from './scan.js';

/**
 * Whether a keeper is running, told by the keeper itself: each keeper process (any role) writes its own heartbeat
 * key every few seconds with a TTL a few beats long, and deletes it when it stops cleanly. A process that dies or
 * hangs stops beating and its key expires: nobody has to notice the death for status to tell it. The deployment's
 * meta hash keeps the last beat and the clean stop, so a stopped keeper still says since when.
 */

/** How often a keeper process beats, ms. */
export const BEAT_EVERY_MS = 5_000;
/** How long a beat stays alive without a new one, ms (four beats: a loaded machine may delay one or two). */
export const BEAT_TTL_MS = 20_000;

const beatSchema = z.object({
  pid: z.number(),
  host: z.string(),
  role: z.string(),
  startedAt: z.number(),
  at: z.number(),
  wallet: z.string().nullable(),
  /** The URL of this process's dashboard, when it serves one (a busy default port moves it: tools read it here). */
  dashboard: z.string().nullable().optional(),
});

/** One keeper process's heartbeat. */
export type KeeperBeat = z.output<typeof beatSchema> & { id: string };

/** What the keeper processes of a deployment say about themselves. */
export interface KeeperPresence {
  /** Processes whose heartbeat has not expired, oldest start first. */
  alive: KeeperBeat[];
  /** Unix ms of the last beat any process wrote (kept after they stop), null when none ever beat. */
  lastBeatAt: number | null;
  /** Unix ms when a process last stopped cleanly, null when none did (or one started after). */
  stoppedAt: number | null;
}

/** The key of one process's heartbeat, and the pattern of them all, under a prefix. */
export function heartbeatKeys(prefix: string): { beat: (id: string) => string; pattern: string } {
  return { beat: (id) => `${prefix}:heartbeat:keeper:${id}`, pattern: `${globEscape(prefix)}:heartbeat:keeper:*` };
}

/** Writes this process's heartbeat while the keeper runs (start() / close(), as every long-lived part). */
export class KeeperHeartbeat {
  private readonly id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> | undefined;
  private readonly startedAt = Date.now();
  private startValueNoted = false;
  private dashboard: string | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly o: {
      role: string;
      wallet: string | null;
      everyMs?: number;
      ttlMs?: number;
      onError?: (err: unknown) => void;
      /** The wallet's value now (USD), once it can be told; asked at each beat until it answers, then noted once. */
      startValue?: () => Promise<number | undefined>;
    },
  ) {}

  /** Beats once (awaited: a keeper whose first beat fails has no working Redis), then every few seconds. */
  async start(): Promise<void> {
    await this.redis.hdel(`${this.prefix}:meta`, 'stoppedAt');
    await this.beat();
    this.timer = setInterval(() => {
      // Never overlaps itself: a Redis slower than the interval skips beats (and the key may expire: rightly).
      if (this.beating) return;
      this.beating = this.beat()
        .catch((err: unknown) => this.o.onError?.(err))
        .finally(() => (this.beating = undefined));
    }, this.o.everyMs ?? BEAT_EVERY_MS);
    this.timer.unref();
  }

  private async beat(): Promise<void> {
    const at = Date.now();
    const beat: z.input<typeof beatSchema> = { pid: process.pid, host: hostname(), role: this.o.role, startedAt: this.startedAt, at, wallet: this.o.wallet, dashboard: this.dashboard };
    await this.redis
      .multi()
      .set(heartbeatKeys(this.prefix).beat(this.id), JSON.stringify(beat), 'PX', this.o.ttlMs ?? BEAT_TTL_MS)
      .hset(`${this.prefix}:meta`, 'lastBeatAt', String(at))
      .exec();
    if (this.o.startValue && !this.startValueNoted) {
      const usd = await this.o.startValue();
      if (usd !== undefined && Number.isFinite(usd)) {
        // HSETNX: of several processes of one deployment, the first to see the wallet notes it.
        await this.redis.hsetnx(`${this.prefix}:meta`, 'startValueUsd', usd.toFixed(6));
        this.startValueNoted = true;
      }
    }
  }

  /** Records the URL of this process's dashboard (null: none) and beats at once, so status shows it now. */
  async setDashboard(url: string | null): Promise<void> {
    this.dashboard = url;
    await this.beating;
    await this.beat();
  }

  /** Stops beating, removes the heartbeat and notes the clean stop. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.beating;
    await this.redis.multi().del(heartbeatKeys(this.prefix).beat(this.id)).hset(`${this.prefix}:meta`, 'stoppedAt', String(Date.now())).exec();
  }
}

/** Reads the heartbeats of a deployment and its last beat and clean stop. Read-only. */
export async function readPresence(redis: Redis, prefix: string): Promise<KeeperPresence> {
  const keys = await scanKeys(redis, heartbeatKeys(prefix).pattern);
  const values = keys.length > 0 ? await redis.mget(...keys) : [];
  const head = heartbeatKeys(prefix).beat('');
  const alive = keys.flatMap((k, i) => {
    const parsed = beatSchema.safeParse(safeJson(values[i]));
    return parsed.success ? [{ ...parsed.data, id: k.slice(head.length) }] : [];
  });
  const [lastBeat, stopped] = await redis.hmget(`${prefix}:meta`, 'lastBeatAt', 'stoppedAt');
  const num = (v: string | null | undefined) => (v && /^\d+$/.test(v) ? Number(v) : null);
  return { alive: alive.sort((a, b) => a.startedAt - b.startedAt), lastBeatAt: num(lastBeat), stoppedAt: num(stopped) };
}

/**
 * The prefixes of the deployments on this Redis with a keeper alive now (a heartbeat that has not expired), sorted.
 * Scans the whole keyspace: for a command run by a person, not for a loop.
 */
export async function livePrefixes(redis: Redis): Promise<string[]> {
  const marker = ':heartbeat:keeper:';
  const found = new Set<string>();
  for (const k of await scanKeys(redis, `*${marker}*`)) found.add(k.slice(0, k.lastIndexOf(marker)));
  return [...found].sort();
}

function safeJson(raw: string | null | undefined): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** What a start says of the deployment in its meta hash (status and the dashboard read it). */
export interface KeeperStartMeta {
  venue: string;
  /** Scheme and host only: a provider's key in the path or query is never stored. */
  venueUrl: string;
  rpcUrl: string;
  wallet: string;
  config: string;
  startedAt: number;
  strategies: ReadonlyArray<{ id: string; strategy: string; version: string; schedule: unknown }>;
}

/** Records a start in the deployment's meta hash; the wallet's value at start is noted again by this start's heartbeat. */
export async function recordKeeperStart(redis: Redis, prefix: string, m: KeeperStartMeta): Promise<void> {
  await redis
    .multi()
    .hdel(`${prefix}:meta`, 'startValueUsd')
    .hset(`${prefix}:meta`, { venue: m.venue, venueUrl: m.venueUrl, rpcUrl: m.rpcUrl, wallet: m.wallet, config: m.config, startedAt: String(m.startedAt), strategies: JSON.stringify(m.strategies) })
    .exec();
}
