import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { KEEPER_INSTANCE, KEEPER_STRATEGY, VENUE_ORDER_STATUSES, VENUE_PRODUCTS, type KeeperIntentRecord, type KeeperLedgerPort, type KeeperRun, type KeeperStatePort, type SubjectGenerations, type SweepReport, type VenueOrderRecord } from '../engine/keeperPorts.js';
import type { Intent, IntentKind } from '../sdk/intents.js';
import { decodeJson, encodeJson } from '../lib/json.js';
import { intentKeys } from './intentLayout.js';
import { advanceGenerations, readGenerations } from './keeperGenerations.js';
import type { IntentStore } from './intents.js';
import { evalScript } from './scripts.js';

/** Claims noted for status, at most. */
const MAX_CLAIM_NOTES = 100;
/** Intent records read per round trip when scanning the ledger. */
const READ_CHUNK = 500;

/** The field of an intent's record that holds what the venue reconciliation found about its order. */
const VENUE_FIELD = 'venueOrder';

/** What the reconciliation writes onto a record; parsed on read (Redis is a boundary too). */
export const venueOrderRecordSchema = z.object({
  product: z.enum(VENUE_PRODUCTS as readonly ['trigger', 'recurring', 'prediction']),
  order: z.string().nullable(),
  position: z.string().nullable(),
  status: z.enum(VENUE_ORDER_STATUSES).nullable(),
  checkedAt: z.number().nullable(),
  changedAt: z.number().nullable(),
  fills: z.array(z.string()).optional(),
});

const runSchema = z.object({
  at: z.number(),
  durationMs: z.number(),
  outcome: z.enum(['ok', 'error', 'skipped']),
  summary: z.string(),
  counts: z.record(z.string(), z.number()),
  error: z.string().nullable(),
});

const sweepSchema = z.object({
  at: z.number(),
  stranded: z.array(z.object({ intent: z.string(), product: z.enum(VENUE_PRODUCTS as readonly ['trigger', 'recurring', 'prediction']), order: z.string(), account: z.string(), mint: z.string(), amount: z.bigint() })),
  unclaimed: z.array(z.object({ position: z.string(), marketId: z.string(), payoutMicroUsd: z.bigint() })),
  unclaimedMicroUsd: z.bigint(),
});

// Writes the venue field only onto a record that exists. KEYS[1] the intent hash; ARGV[1] field, ARGV[2] value.
const SET_VENUE_LUA = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
`;

// Releases a lock only if it still holds this run's token. KEYS[1] the lock; ARGV[1] the token.
const UNLOCK_LUA = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`;

/** The Redis keys of the keeper jobs' own records under a prefix. */
export function keeperKeys(prefix: string) {
  return {
    tracked: `${prefix}:keeper:tracked`,
    ended: `${prefix}:keeper:ended`,
    cursor: `${prefix}:keeper:cursor`,
    claims: `${prefix}:keeper:claims`,
    runs: `${prefix}:keeper:runs`,
    sweep: `${prefix}:keeper:sweep`,
    lock: (task: string) => `${prefix}:keeper:lock:${task}`,
    /** Where a subject's keeper intents stand, by its first intent's id (see SubjectGenerations). */
    generations: (key: string) => `${prefix}:keeper:generations:${key}`,
  };
}

/**
 * The keeper jobs' records in Redis: the ledger as they use it (keeper intents recorded through the intent store,
 * the venue's word on an order written onto the intent's own record), the intents they track until their orders
 * end, where each subject's generations of intents stand, their run locks and last runs, the claims they made and
 * the last sweep.
 */
export class KeeperStore implements KeeperLedgerPort, KeeperStatePort {
  private readonly keys: ReturnType<typeof keeperKeys>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly intents: IntentStore,
  ) {
    this.keys = keeperKeys(prefix);
  }

  async record(rec: { id: string; intent: Intent; createdAt: number; deadline: number }): Promise<{ created: boolean; state: KeeperIntentRecord['state'] }> {
    return this.intents.create({ id: rec.id, instance: KEEPER_INSTANCE, strategy: KEEPER_STRATEGY, intent: rec.intent, createdAt: rec.createdAt, deadline: rec.deadline });
  }

  async read(ids: readonly string[]): Promise<KeeperIntentRecord[]> {
    const { records } = await this.intents.read(ids);
    const venue = await readVenueOrders(this.redis, this.prefix, records.map((r) => r.id));
    return records.map((r) => ({
      id: r.id,
      instance: r.instance,
      kind: r.kind,
      intent: r.intent,
      state: r.state,
      signatures: r.signatures.length > 0 ? r.signatures : r.signature ? [r.signature] : [],
      quote: r.quote,
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      venueOrder: venue.get(r.id) ?? null,
      error: r.error,
    }));
  }

  async landedSince(since: number, kinds: readonly IntentKind[]): Promise<string[]> {
    const keys = intentKeys(this.prefix);
    const ids = await this.redis.zrangebyscore(keys.index, since, '+inf');
    const wanted = new Set<string>(kinds);
    const out: string[] = [];
    // Only the kind and state of each are read, a chunk at a time: the window may hold many intents of other kinds.
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      const chunk = ids.slice(i, i + READ_CHUNK);
      const pipe = this.redis.pipeline();
      for (const id of chunk) pipe.hmget(keys.record(id), 'kind', 'state');
      const replies = (await pipe.exec()) ?? [];
      chunk.forEach((id, n) => {
        const [kind, state] = (replies[n]?.[1] as Array<string | null> | undefined) ?? [];
        if (state === 'landed' && kind && wanted.has(kind)) out.push(id);
      });
    }
    return out;
  }

  async setVenueOrder(id: string, venue: VenueOrderRecord): Promise<void> {
    await evalScript(this.redis, SET_VENUE_LUA, 1, intentKeys(this.prefix).record(id), VENUE_FIELD, JSON.stringify(venue));
  }

  async generations(key: string): Promise<SubjectGenerations> {
    return readGenerations(this.redis, this.keys.generations(key));
  }

  async advanceGenerations(key: string, from: number, next: SubjectGenerations): Promise<SubjectGenerations> {
    return advanceGenerations(this.redis, this.keys.generations(key), from, next);
  }

  async tracked(): Promise<string[]> {
    return this.redis.smembers(this.keys.tracked);
  }

  async track(ids: readonly string[]): Promise<void> {
    if (ids.length > 0) await this.redis.sadd(this.keys.tracked, ...ids);
  }

  async ended(id: string, at: number): Promise<void> {
    await this.redis.multi().srem(this.keys.tracked, id).zadd(this.keys.ended, at, id).exec();
  }

  async endedSince(since: number): Promise<string[]> {
    // Older entries are no longer swept: drop them, so the set does not grow with every order ever made.
    await this.redis.zremrangebyscore(this.keys.ended, '-inf', `(${since}`);
    return this.redis.zrange(this.keys.ended, 0, -1);
  }

  async cursor(): Promise<number | null> {
    const raw = await this.redis.get(this.keys.cursor);
    return raw !== null && /^\d+$/.test(raw) ? Number(raw) : null;
  }

  async setCursor(at: number): Promise<void> {
    await this.redis.set(this.keys.cursor, String(at));
  }

  async noteClaim(id: string, at: number): Promise<void> {
    // NX: the first time a claim was recorded is when it was made; a later cycle meeting it again changes nothing.
    // Status lists the latest; older notes are dropped so the set does not grow with every claim ever made.
    await this.redis.multi().zadd(this.keys.claims, 'NX', at, id).zremrangebyrank(this.keys.claims, 0, -(MAX_CLAIM_NOTES + 1)).exec();
  }

  async lock(task: string, ttlMs: number): Promise<string | null> {
    const token = randomUUID();
    const ok = await this.redis.set(this.keys.lock(task), token, 'PX', Math.max(1, Math.ceil(ttlMs)), 'NX');
    return ok === 'OK' ? token : null;
  }

  async unlock(task: string, token: string): Promise<void> {
    await evalScript(this.redis, UNLOCK_LUA, 1, this.keys.lock(task), token);
  }

  async recordRun(task: string, run: KeeperRun): Promise<void> {
    await this.redis.hset(this.keys.runs, task, JSON.stringify(run));
  }

  async writeSweep(report: SweepReport): Promise<void> {
    await this.redis.set(this.keys.sweep, encodeJson(report));
  }

  async lastSweep(): Promise<SweepReport | null> {
    const raw = await this.redis.get(this.keys.sweep);
    if (raw === null) return null;
    const parsed = sweepSchema.safeParse(safeDecode(raw));
    return parsed.success ? parsed.data : null;
  }
}

/** The venue fields of intent records, by id (records without one, or with one that does not parse, left out). */
export async function readVenueOrders(redis: Redis, prefix: string, ids: readonly string[]): Promise<Map<string, VenueOrderRecord>> {
  const out = new Map<string, VenueOrderRecord>();
  if (ids.length === 0) return out;
  const keys = intentKeys(prefix);
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hget(keys.record(id), VENUE_FIELD);
  const replies = (await pipe.exec()) ?? [];
  ids.forEach((id, i) => {
    const raw = replies[i]?.[1];
    if (typeof raw !== 'string') return;
    const parsed = venueOrderRecordSchema.safeParse(safeJson(raw));
    if (parsed.success) out.set(id, parsed.data);
  });
  return out;
}

/** What status shows of the keeper jobs: their last runs, the latest claims recorded, and the last sweep. */
export interface KeeperStatusData {
  runs: Record<string, KeeperRun>;
  /** Claim intents the keeper recorded, newest first, with where each stands now. */
  claims: Array<{ id: string; position: string; state: string; at: number; payoutMicroUsd: bigint | null; error: string | null }>;
  sweep: SweepReport | null;
}

/** Reads what status shows of the keeper jobs; `maxClaims` newest claims at most. */
export async function readKeeperStatus(redis: Redis, prefix: string, intents: IntentStore, maxClaims = 10): Promise<KeeperStatusData> {
  const keys = keeperKeys(prefix);
  const [rawRuns, claimIds, rawSweep] = await Promise.all([redis.hgetall(keys.runs), redis.zrevrange(keys.claims, 0, Math.max(0, maxClaims - 1), 'WITHSCORES'), redis.get(keys.sweep)]);
  const runs: Record<string, KeeperRun> = {};
  for (const [task, raw] of Object.entries(rawRuns)) {
    const parsed = runSchema.safeParse(safeJson(raw));
    if (parsed.success) runs[task] = parsed.data;
  }
  const at = new Map<string, number>();
  for (let i = 0; i + 1 < claimIds.length; i += 2) at.set(claimIds[i]!, Number(claimIds[i + 1]));
  const { records } = await intents.read([...at.keys()]);
  const claims = records.flatMap((r) => {
    if (r.intent.kind !== 'prediction.claim') return [];
    const payout = r.quote?.payoutMicroUsd;
    return [{ id: r.id, position: r.intent.positionPubkey, state: r.state, at: at.get(r.id) ?? r.createdAt, payoutMicroUsd: typeof payout === 'bigint' ? payout : null, error: r.error ? `${r.error.code}: ${r.error.message}` : null }];
  });
  const sweep = rawSweep === null ? null : sweepSchema.safeParse(safeDecode(rawSweep));
  return { runs, claims, sweep: sweep?.success ? sweep.data : null };
}

function safeJson(raw: string): unknown {
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

function safeDecode(raw: string): unknown {
  try {
    return decodeJson(raw);
  } catch {
    return undefined;
  }
}
