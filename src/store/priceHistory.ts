import type { Redis } from 'ioredis';
import type { PricePoint } from '../sdk/context.js';
import { evalScript } from './scripts.js';

/**
 * The price history the engine keeps: per mint, one sorted set `<prefix>:hist:<mint>` of samples scored by their time
 * (unix ms), each member `<at>:<usd>`. A sample is taken from the market snapshot the feed writes, at most one per
 * resolution period (the first snapshot of each period), and samples older than the retention are dropped as new
 * ones come. Shared by every strategy instance; it survives a restart of the keeper (it is in Redis).
 */

/** How the history is kept: for how long, and one sample per how many ms. */
export interface PriceHistoryOptions {
  /** Retention, ms (`feeds.priceHistory`). */
  keepMs: number;
  /** At most one sample per this period, ms (`feeds.priceHistoryResolution`). */
  resolutionMs: number;
}

/** The key of a mint's history. */
export function priceHistoryKey(prefix: string, mint: string): string {
  return `${prefix}:hist:${mint}`;
}

// Writes the market snapshot and samples its prices, in one round trip. KEYS[1] the snapshot, then one history key
// per mint. ARGV[1] the snapshot's text, ARGV[2] its time (ms), ARGV[3] the resolution (ms), ARGV[4] the oldest
// time kept (ms), ARGV[5] the retention (ms: the histories' TTL, so a mint no longer watched goes away), then per
// history key the new member. A sample is added only when the last one is of an earlier resolution period (so
// neither a faster feed nor a replayed or older snapshot adds one). Returns how many samples were added.
const APPEND_LUA = `
redis.call('SET', KEYS[1], ARGV[1])
local res = tonumber(ARGV[3])
local period = math.floor(tonumber(ARGV[2]) / res)
local added = 0
for i = 2, #KEYS do
  local last = redis.call('ZRANGE', KEYS[i], -1, -1, 'WITHSCORES')
  if #last == 0 or math.floor(tonumber(last[2]) / res) < period then
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[4 + i])
    added = added + 1
  end
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', '(' .. ARGV[4])
  redis.call('PEXPIRE', KEYS[i], ARGV[5])
end
return added
`;

/**
 * Writes the market snapshot's text under `snapshotKey` and samples each priced mint into its history, in one script.
 * Returns how many samples were added.
 */
export async function writeMarketWithHistory(
  redis: Redis,
  prefix: string,
  options: PriceHistoryOptions,
  snapshotKey: string,
  text: string,
  snapshot: { at: number; prices: Readonly<Record<string, { usd: number }>> },
): Promise<number> {
  const keys: string[] = [];
  const members: string[] = [];
  for (const [mint, price] of Object.entries(snapshot.prices)) {
    if (!Number.isFinite(price.usd) || !(price.usd > 0)) continue;
    keys.push(priceHistoryKey(prefix, mint));
    members.push(`${snapshot.at}:${price.usd}`);
  }
  const added = await evalScript(redis, APPEND_LUA, 1 + keys.length, snapshotKey, ...keys, text, snapshot.at, options.resolutionMs, snapshot.at - options.keepMs, options.keepMs, ...members);
  return Number(added);
}

const NO_POINTS: readonly PricePoint[] = Object.freeze([]);

/** A member `<at>:<usd>` as a point, or undefined when it does not parse (Redis is a boundary: nothing is trusted). */
function parseMember(member: string): PricePoint | undefined {
  const colon = member.indexOf(':');
  if (colon <= 0) return undefined;
  const at = Number(member.slice(0, colon));
  const usd = Number(member.slice(colon + 1));
  if (!Number.isSafeInteger(at) || !Number.isFinite(usd) || !(usd > 0)) return undefined;
  return Object.freeze({ at, usd });
}

/**
 * One mint's history as last read: its points (frozen, oldest first), the member of its newest one, and the time of
 * the newest market snapshot it is known to include (a read issued after that snapshot was seen).
 */
interface Cached {
  points: readonly PricePoint[];
  lastMember: string | undefined;
  syncedAt: number;
}

/**
 * Reads histories for evaluations. Each process keeps the series it read, so a read asks Redis only for what came
 * after its newest point (a few members, in one pipeline for all the mints asked), and hands out the same frozen
 * array until a sample comes or one leaves the retention: a shard's evaluation reads each of its mints once, and
 * its instances share the arrays. Samples are written with the market snapshot, in one script: a series read after
 * the snapshot of time T was seen holds every sample up to T, so the shards deciding on that snapshot after the first
 * one read nothing. A series whose newest point is gone from Redis (a flush, a gap longer than the retention) is
 * read again whole.
 */
export class PriceHistoryReader {
  private readonly cache = new Map<string, Cached>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly keepMs: number,
  ) {}

  /**
   * The histories of `mints` within the retention at `now` (oldest first; empty when there is none), including at
   * least every sample of the market snapshots up to `asOf` (the snapshot the caller decides on, already read): a
   * series read since that snapshot was seen is not read again.
   */
  async read(mints: readonly string[], now: number, asOf = Infinity): Promise<Map<string, readonly PricePoint[]>> {
    const since = now - this.keepMs;
    const unique = [...new Set(mints)];
    if (unique.length === 0) return new Map();
    const before = unique.map((mint) => this.cache.get(mint));
    if (before.every((c) => c !== undefined && c.syncedAt >= asOf)) {
      return new Map(unique.map((mint, i) => [mint, this.keep(mint, fromMembers([], since, before[i]), asOf)] as const));
    }
    // Only a snapshot already seen may be vouched for: the caller read it before asking (see above).
    const synced = Number.isFinite(asOf) ? asOf : -Infinity;
    const pipe = this.redis.pipeline();
    unique.forEach((mint, i) => pipe.zrange(priceHistoryKey(this.prefix, mint), newestAt(before[i], since) ?? since, '+inf', 'BYSCORE'));
    const replies = await execAll(pipe);
    const out = new Map<string, readonly PricePoint[]>();
    const whole: string[] = [];
    unique.forEach((mint, i) => {
      const c = before[i];
      const members = replies[i]!;
      if (newestAt(c, since) === undefined) out.set(mint, this.keep(mint, fromMembers(members, since, undefined), synced));
      // The newest point read before is the first member from its time on, unless Redis lost it.
      else if (members[0] !== c!.lastMember) whole.push(mint);
      else out.set(mint, this.keep(mint, fromMembers(members.slice(1), since, c), synced));
    });
    if (whole.length > 0) {
      const again = this.redis.pipeline();
      for (const mint of whole) again.zrange(priceHistoryKey(this.prefix, mint), since, '+inf', 'BYSCORE');
      const rereads = await execAll(again);
      whole.forEach((mint, i) => out.set(mint, this.keep(mint, fromMembers(rereads[i]!, since, undefined), synced, true)));
    }
    return out;
  }

  /**
   * Caches a mint's series, known to include the snapshots up to `syncedAt`, unless a concurrent read already cached
   * a newer one (which includes them too: it saw a later sample); returns its points.
   */
  private keep(mint: string, series: Omit<Cached, 'syncedAt'>, syncedAt: number, replace = false): readonly PricePoint[] {
    const current = this.cache.get(mint);
    const synced = Math.max(syncedAt, replace ? -Infinity : (current?.syncedAt ?? -Infinity));
    if (replace || !current || lastAt(series.points) >= lastAt(current.points)) this.cache.set(mint, { points: series.points, lastMember: series.lastMember, syncedAt: synced });
    else if (current.syncedAt < synced) this.cache.set(mint, { ...current, syncedAt: synced });
    return series.points;
  }
}

const lastAt = (points: readonly PricePoint[]): number => (points.length > 0 ? points[points.length - 1]!.at : -Infinity);

/** The time of a cached series' newest point when a read can start there (it is within the retention). */
function newestAt(c: Cached | undefined, since: number): number | undefined {
  if (c?.lastMember === undefined || c.points.length === 0) return undefined;
  const at = lastAt(c.points);
  return at >= since ? at : undefined;
}

/**
 * `base`'s points (frozen, oldest first) with those of `members` appended and those before `since` dropped; `base`
 * itself when nothing changed.
 */
function fromMembers(members: readonly string[], since: number, base: Cached | undefined): Omit<Cached, 'syncedAt'> {
  const points = base?.points ?? NO_POINTS;
  let first = 0;
  while (first < points.length && points[first]!.at < since) first += 1;
  const added: PricePoint[] = [];
  let lastMember = base?.lastMember;
  let newest = lastAt(points);
  for (const m of members) {
    const p = parseMember(m);
    if (p === undefined || p.at < since || p.at <= newest) continue;
    added.push(p);
    newest = p.at;
    lastMember = m;
  }
  if (first === 0 && added.length === 0 && base) return base;
  const kept = Object.freeze(first === 0 ? [...points, ...added] : [...points.slice(first), ...added]);
  return { points: kept, lastMember: kept.length > 0 ? lastMember : undefined };
}

/** Runs a pipeline of ZRANGEs; a failed command fails the read (an evaluation on a partial history would mislead). */
async function execAll(pipe: ReturnType<Redis['pipeline']>): Promise<string[][]> {
  const results = (await pipe.exec()) ?? [];
  return results.map(([err, value]) => {
    if (err) throw err;
    return Array.isArray(value) ? value.map(String) : [];
  });
}
