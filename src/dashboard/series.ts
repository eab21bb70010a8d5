import type { Redis } from 'ioredis';
import { z } from 'zod';
import { walletValueUsd } from '../engine/walletValue.js';
import type { Logger } from '../lib/logger.js';
import { snapshotSource } from '../store/engineStore.js';
import { PnlStore } from '../store/pnl.js';
import type { SnapshotStore } from '../store/snapshots.js';

/** Points kept (a day at the default of one every 30 s). */
export const MAX_POINTS = 2_880;

/** One point of the chart: the wallet's value and the realised P&L of every strategy at a wallet reading. */
export interface ValuePoint {
  /** Unix ms of the wallet snapshot valued. */
  at: number;
  /** The wallet's value at feed prices, USD. */
  valueUsd: number;
  /** Realised P&L of all strategies together, USD. */
  pnlUsd: number;
  /** The wallet valued: a new paper session's new wallet starts a new line. */
  wallet?: string | undefined;
}

const pointSchema = z.object({ at: z.number(), valueUsd: z.number(), pnlUsd: z.number(), wallet: z.string().optional() });

/**
 * The wallet's value and the realised P&L over time, for the dashboard's chart: a sorted set in Redis scored by the
 * wallet snapshot's time, trimmed to the latest MAX_POINTS. Cleared with the rest of a fresh paper session.
 */
export class ValueSeries {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private get key(): string {
    return `${this.prefix}:dashboard:value`;
  }

  /** Adds a point unless one of the same wallet reading is there. */
  async add(p: ValuePoint): Promise<void> {
    const exists = await this.redis.zcount(this.key, p.at, p.at);
    if (exists > 0) return;
    await this.redis.multi().zadd(this.key, p.at, JSON.stringify(p)).zremrangebyrank(this.key, 0, -(MAX_POINTS + 1)).exec();
  }

  /** The points since `since` (unix ms), oldest first, of `wallet` only when given; one that does not parse is left out. */
  async read(since = 0, wallet?: string): Promise<ValuePoint[]> {
    const raw = await this.redis.zrangebyscore(this.key, since, '+inf');
    const out: ValuePoint[] = [];
    for (const text of raw) {
      try {
        const parsed = pointSchema.safeParse(JSON.parse(text));
        if (parsed.success && (wallet === undefined || parsed.data.wallet === undefined || parsed.data.wallet === wallet)) out.push(parsed.data);
      } catch {
        // not JSON: left out
      }
    }
    return out;
  }

  /** The time of the latest point, or null. */
  async lastAt(): Promise<number | null> {
    const last = await this.redis.zrevrange(this.key, 0, 0, 'WITHSCORES');
    return last.length === 2 ? Number(last[1]) : null;
  }
}

/** What the sampler values: the snapshots and the P&L books of the deployment. */
export interface SamplerDeps {
  redis: Redis;
  prefix: string;
  snapshots: SnapshotStore;
  series: ValueSeries;
  logger: Logger;
}

/**
 * Values the latest wallet snapshot and records it with the realised P&L, at most once per `everyMs` and once per
 * wallet reading. A wallet holding anything the feed cannot price is still recorded (that part left out) only when
 * the market snapshot has prices at all.
 */
export async function sampleValue(d: SamplerDeps, everyMs: number): Promise<ValuePoint | undefined> {
  // One cheap read until a point is due: the snapshots (the market's may be large) are read only then.
  const last = await d.series.lastAt();
  if (last !== null && Date.now() - last < everyMs) return undefined;
  const source = snapshotSource(d.snapshots);
  const [wallet, market, prediction] = await Promise.all([source.wallet(), source.market(), source.prediction()]);
  if (!wallet || !market || Object.keys(market.prices).length === 0) return undefined;
  if (last !== null && wallet.at - last < everyMs) return undefined;
  const value = walletValueUsd(market, wallet, prediction);
  const pnl = new PnlStore(d.redis, d.prefix);
  let pnlUsd = 0;
  for (const id of await pnl.instances()) pnlUsd += (await pnl.summary(id)).realizedUsd;
  const point = { at: wallet.at, valueUsd: round(value.usd), pnlUsd: round(pnlUsd), wallet: wallet.address };
  await d.series.add(point);
  return point;
}

/** Runs `sampleValue` every `checkMs` until closed; never overlaps itself. */
export function startSampler(d: SamplerDeps, everyMs: number, checkMs = Math.min(everyMs, 2_000)): { close(): Promise<void> } {
  let running: Promise<void> | undefined;
  const tick = () => {
    if (running) return;
    running = sampleValue(d, everyMs)
      .then(() => undefined)
      .catch((err: unknown) => d.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not record the wallet value for the dashboard chart'))
      .finally(() => (running = undefined));
  };
  const timer = setInterval(tick, checkMs);
  timer.unref();
  tick();
  return {
    close: async () => {
      clearInterval(timer);
      await running;
    },
  };
}

function round(usd: number): number {
  return Math.round(usd * 1e6) / 1e6;
}
