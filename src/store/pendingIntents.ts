import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson } from '../lib/json.js';
import { INTENT_KINDS, intentSchema, type IntentKind } from '../sdk/intents.js';
import type { PendingIntentData } from '../engine/ports.js';
import { INTENT_STATES, isTerminal } from '../engine/states.js';
import { intentKeys, parseOrProblem, type CorruptIntent } from './intentLayout.js';

/** One intent of an instance that may not show in the wallet view yet (see `readPending`): the engine's port type. */
export type PendingRecord = PendingIntentData;

const FIELDS = ['id', 'state', 'kind', 'intent', 'createdAt', 'updatedAt', 'windowStart'] as const;
const schema = z.object({
  id: z.string(),
  state: z.enum(INTENT_STATES),
  kind: z.custom<IntentKind>((v) => typeof v === 'string' && (INTENT_KINDS as readonly string[]).includes(v), 'unknown intent kind'),
  intent: z.string().transform((t) => intentSchema.parse(decodeJson(t))),
  createdAt: z.coerce.number(),
  updatedAt: z.coerce.number(),
  windowStart: z.coerce.number().optional().transform((v) => v ?? null),
});

/**
 * An instance's intents whose effect may not be in a wallet view yet: every one in a non-terminal state, and those
 * that landed at or after `keepLandedSince` (unix ms; the engine shows a landing only when it is newer than the
 * wallet snapshot it decides on). Two round trips: the instance's index, then the fields of each record in one
 * pipeline. Ids that can never be pending again (other terminal states, older landings, vanished records) are
 * dropped from the index on the way, so it stays as small as what is in flight. A record that does not parse is
 * named in `corrupt` and kept in the index (nobody can tell whether it is still in flight).
 */
export async function readPending(redis: Redis, prefix: string, instance: string, keepLandedSince: number): Promise<{ intents: PendingRecord[]; corrupt: CorruptIntent[] }> {
  const keys = intentKeys(prefix);
  const indexKey = keys.byInstance(instance);
  const ids = await redis.zrange(indexKey, 0, -1);
  if (ids.length === 0) return { intents: [], corrupt: [] };
  const pipe = redis.pipeline();
  for (const id of ids) pipe.hmget(keys.record(id), ...FIELDS);
  const replies = (await pipe.exec()) ?? [];
  const intents: PendingRecord[] = [];
  const corrupt: CorruptIntent[] = [];
  const done: string[] = [];
  ids.forEach((id, i) => {
    const [err, raw] = replies[i] ?? [new Error('no reply from Redis'), null];
    if (err) throw err;
    const values = raw as Array<string | null>;
    if (values.every((v) => v === null)) {
      done.push(id);
      return;
    }
    const parsed = parseOrProblem(schema, Object.fromEntries(FIELDS.map((f, j) => [f, values[j] ?? undefined])));
    if ('problem' in parsed) {
      corrupt.push({ id, problem: parsed.problem });
      return;
    }
    const r = parsed.value;
    if (!isTerminal(r.state) || (r.state === 'landed' && r.updatedAt >= keepLandedSince)) intents.push({ ...r, id });
    else done.push(id);
  });
  if (done.length > 0) await redis.zrem(indexKey, ...done);
  return { intents, corrupt };
}

// Drops ids that can never be pending again from an instance's index, and the index from the set of non-empty ones
// once it is empty (in one script: an id added meanwhile keeps it in the set). KEYS[1] the index, KEYS[2] the set.
const PRUNE_LUA = `
if #ARGV > 0 then redis.call('ZREM', KEYS[1], unpack(ARGV)) end
if redis.call('ZCARD', KEYS[1]) == 0 then redis.call('SREM', KEYS[2], KEYS[1]) end
return 1
`;

/**
 * `readPending` for many instances at once, in three round trips whatever their number: which of their indexes
 * are not empty (one SMISMEMBER on the set every new intent adds its instance's index to), those indexes in one
 * pipeline, then the fields of every id found in another. Most instances have nothing in flight and cost nothing
 * but their name in the first call. Ids that can never be pending again are dropped on the way, and an index left
 * empty leaves the set.
 */
export async function readPendingMany(redis: Redis, prefix: string, instances: readonly string[], keepLandedSince: number, landed?: LandedCache): Promise<Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>> {
  const keys = intentKeys(prefix);
  const out = new Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>(instances.map((i) => [i, { intents: [], corrupt: [] }]));
  if (instances.length === 0) return out;
  const member = (await redis.smismember(keys.active, ...instances.map((i) => keys.byInstance(i))));
  const active = instances.filter((_, n) => member[n] === 1);
  if (active.length === 0) return out;
  const ranges = redis.pipeline();
  for (const instance of active) ranges.zrange(keys.byInstance(instance), 0, -1);
  const idLists = ((await ranges.exec()) ?? []).map(([err, ids]) => {
    if (err) throw err;
    return ids as string[];
  });
  const wanted: Array<{ instance: string; id: string }> = [];
  const done = new Map<string, string[]>();
  active.forEach((instance, i) => {
    const ids = idLists[i] ?? [];
    if (ids.length === 0) done.set(instance, []);
    for (const id of ids) wanted.push({ instance, id });
  });
  if (wanted.length > 0) {
    // A landing parsed before is checked by its state and time alone (a ledger cleared and written again differs);
    // one that changed is read whole in a second round trip.
    const known = wanted.map(({ id }) => landed?.get(id));
    const first = redis.pipeline();
    wanted.forEach(({ id }, i) => (known[i] ? first.hmget(keys.record(id), 'state', 'updatedAt') : first.hmget(keys.record(id), ...FIELDS)));
    const replies = replyValues(await first.exec());
    const reread: number[] = [];
    known.forEach((cached, i) => {
      if (!cached) return;
      const [state, updatedAt] = replies[i]!;
      if (state === 'landed' && updatedAt === String(cached.updatedAt)) return;
      landed!.delete(wanted[i]!.id);
      reread.push(i);
    });
    if (reread.length > 0) {
      const second = redis.pipeline();
      for (const i of reread) second.hmget(keys.record(wanted[i]!.id), ...FIELDS);
      replyValues(await second.exec()).forEach((values, n) => {
        replies[reread[n]!] = values;
        known[reread[n]!] = undefined;
      });
    }
    wanted.forEach(({ instance, id }, i) => {
      const values = replies[i]!;
      const slot = out.get(instance)!;
      const drop = () => done.set(instance, [...(done.get(instance) ?? []), id]);
      const cached = known[i];
      if (cached) {
        if (cached.updatedAt >= keepLandedSince) return void slot.intents.push(cached);
        landed!.delete(id);
        return drop();
      }
      if (values.every((v) => v === null)) return drop();
      const parsed = parseOrProblem(schema, Object.fromEntries(FIELDS.map((f, j) => [f, values[j] ?? undefined])));
      if ('problem' in parsed) {
        slot.corrupt.push({ id, problem: parsed.problem });
        return;
      }
      const r = { ...parsed.value, id };
      if (r.state === 'landed' && r.updatedAt >= keepLandedSince) landed?.set(id, r);
      if (!isTerminal(r.state) || (r.state === 'landed' && r.updatedAt >= keepLandedSince)) slot.intents.push(r);
      else drop();
    });
  }
  if (done.size > 0) {
    const prune = redis.pipeline();
    for (const [instance, ids] of done) prune.eval(PRUNE_LUA, 2, keys.byInstance(instance), keys.active, ...ids);
    await prune.exec();
  }
  return out;
}

/** The values of a pipeline of HMGETs; throws the first error. */
function replyValues(replies: Array<[Error | null, unknown]> | null): Array<Array<string | null>> {
  return (replies ?? []).map(([err, values]) => {
    if (err) throw err;
    return values as Array<string | null>;
  });
}

/**
 * Landed intents as the pending reads parsed them, by id. Landed is a state no intent leaves, so what a landed
 * record shows a strategy never changes: it is read and parsed once, not every tick while it is shown. Entries
 * leave when their landing is too old to show (and all at once past `max`, a bound on memory).
 */
export class LandedCache {
  private readonly byId = new Map<string, PendingRecord>();

  constructor(private readonly max = 200_000) {}

  get(id: string): PendingRecord | undefined {
    return this.byId.get(id);
  }

  set(id: string, r: PendingRecord): void {
    if (this.byId.size >= this.max) this.byId.clear();
    this.byId.set(id, r);
  }

  delete(id: string): void {
    this.byId.delete(id);
  }
}

/**
 * Adds every instance index of the ledger to the set of non-empty ones, once per deployment: the ledger of a
 * version that did not keep that set is read correctly from then on. Idempotent and safe while keepers run (an
 * index added twice is one member; one pruned meanwhile is pruned again by the next read).
 */
export async function indexActiveInstances(redis: Redis, prefix: string): Promise<number> {
  const keys = intentKeys(prefix);
  const marker = `${keys.active}:indexed`;
  if ((await redis.exists(marker)) === 1) return 0;
  let cursor = '0';
  let added = 0;
  do {
    const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:intents:instance:*`, 'COUNT', 1_000);
    cursor = next;
    if (found.length > 0) added += await redis.sadd(keys.active, ...found);
  } while (cursor !== '0');
  await redis.set(marker, '1');
  return added;
}
