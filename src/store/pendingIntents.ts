import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson } from '../lib/json.js';
import { INTENT_KINDS, intentSchema, type IntentKind } from '../sdk/intents.js';
import type { PendingIntentData } from '../engine/ports.js';
import { INTENT_STATES, isTerminal } from '../engine/states.js';
import { intentKeys, parseOrProblem, type CorruptIntent } from './intentLayout.js';
import { evalScript } from './scripts.js';

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

// What may be pending for many instances, in one call: for each instance index (KEYS[2..]) that is in the set of
// non-empty ones (KEYS[1]), 'active' then its ids with each record's state and updatedAt ('' when the record is
// gone); an index not in the set gives an empty list. ARGV[1] is the records' key prefix (the records share the indexes' slot: one
// prefix, one hash tag).
const PENDING_LUA = `
local out = {}
for i = 2, #KEYS do
  local row = {}
  if redis.call('SISMEMBER', KEYS[1], KEYS[i]) == 1 then
    row[1] = 'active'
    for _, id in ipairs(redis.call('ZRANGE', KEYS[i], 0, -1)) do
      local f = redis.call('HMGET', ARGV[1] .. id, 'state', 'updatedAt')
      row[#row + 1] = id
      row[#row + 1] = f[1] or ''
      row[#row + 1] = f[2] or ''
    end
  end
  out[#out + 1] = row
end
return out
`;

/**
 * `readPending` for many instances at once, whatever their number in one script and one more round trip: the script
 * lists each instance's ids with their state and update time (an instance with nothing in flight costs its name),
 * then the records that are not already known are read whole in one pipeline. A landing parsed before (`landed`)
 * is taken as it was when its state and time are unchanged; a ledger cleared and written again differs, and is read
 * afresh. Ids that can never be pending again are dropped on the way, and an index left empty leaves the set.
 */
export async function readPendingMany(redis: Redis, prefix: string, instances: readonly string[], keepLandedSince: number, landed?: LandedCache): Promise<Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>> {
  const keys = intentKeys(prefix);
  const out = new Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>(instances.map((i) => [i, { intents: [], corrupt: [] }]));
  if (instances.length === 0) return out;
  const rows = (await evalScript(redis, PENDING_LUA, instances.length + 1, keys.active, ...instances.map((i) => keys.byInstance(i)), keys.record(''))) as string[][];
  const done = new Map<string, string[]>();
  const drop = (instance: string, id: string) => done.set(instance, [...(done.get(instance) ?? []), id]);
  // Per instance, in index order: a record already known (kept), or one to read whole (null until read).
  const order = new Map<string, Array<{ id: string; known: PendingRecord | undefined }>>();
  const wanted: Array<{ instance: string; id: string }> = [];
  instances.forEach((instance, i) => {
    const row = rows[i] ?? [];
    if (row.length === 0) return;
    // An index in the set of non-empty ones that is empty leaves the set.
    if (row.length === 1) done.set(instance, []);
    const list: Array<{ id: string; known: PendingRecord | undefined }> = [];
    for (let j = 1; j < row.length; j += 3) {
      const id = row[j]!;
      const state = row[j + 1]!;
      const updatedAt = row[j + 2]!;
      if (state === '') {
        drop(instance, id);
        continue;
      }
      const cached = landed?.get(id);
      if (cached && state === 'landed' && updatedAt === String(cached.updatedAt)) {
        if (cached.updatedAt >= keepLandedSince) list.push({ id, known: cached });
        else {
          landed!.delete(id);
          drop(instance, id);
        }
        continue;
      }
      if (cached) landed!.delete(id);
      // Terminal and never shown again: dropped without reading the record.
      if (state === 'failed' || state === 'expired' || state === 'rejected' || (state === 'landed' && Number(updatedAt) < keepLandedSince)) {
        drop(instance, id);
        continue;
      }
      list.push({ id, known: undefined });
      wanted.push({ instance, id });
    }
    order.set(instance, list);
  });
  const parsedById = new Map<string, PendingRecord | { problem: string } | null>();
  if (wanted.length > 0) {
    const fields = redis.pipeline();
    for (const w of wanted) fields.hmget(keys.record(w.id), ...FIELDS);
    replyValues(await fields.exec()).forEach((values, i) => {
      const { id } = wanted[i]!;
      if (values.every((v) => v === null)) return void parsedById.set(id, null);
      const parsed = parseOrProblem(schema, Object.fromEntries(FIELDS.map((f, j) => [f, values[j] ?? undefined])));
      parsedById.set(id, 'problem' in parsed ? { problem: parsed.problem } : { ...parsed.value, id });
    });
  }
  for (const [instance, list] of order) {
    const slot = out.get(instance)!;
    for (const { id, known } of list) {
      if (known) {
        slot.intents.push(known);
        continue;
      }
      const r = parsedById.get(id);
      if (r === null || r === undefined) {
        drop(instance, id);
      } else if ('problem' in r) {
        slot.corrupt.push({ id, problem: r.problem });
      } else if (!isTerminal(r.state) || (r.state === 'landed' && r.updatedAt >= keepLandedSince)) {
        if (r.state === 'landed') landed?.set(id, r);
        slot.intents.push(r);
      } else {
        drop(instance, id);
      }
    }
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
