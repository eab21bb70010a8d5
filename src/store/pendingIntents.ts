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

/**
 * `readPending` for many instances at once, in two round trips whatever their number: every instance's index in
 * one pipeline, then the fields of every id found in another (most instances have nothing in flight: their index
 * is empty and costs one ZRANGE). Ids that can never be pending again are dropped from their indexes on the way.
 */
export async function readPendingMany(redis: Redis, prefix: string, instances: readonly string[], keepLandedSince: number): Promise<Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>> {
  const keys = intentKeys(prefix);
  const out = new Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>();
  if (instances.length === 0) return out;
  const ranges = redis.pipeline();
  for (const instance of instances) ranges.zrange(keys.byInstance(instance), 0, -1);
  const idLists = ((await ranges.exec()) ?? []).map(([err, ids]) => {
    if (err) throw err;
    return ids as string[];
  });
  const wanted: Array<{ instance: string; id: string }> = [];
  instances.forEach((instance, i) => {
    out.set(instance, { intents: [], corrupt: [] });
    for (const id of idLists[i] ?? []) wanted.push({ instance, id });
  });
  if (wanted.length === 0) return out;
  const fields = redis.pipeline();
  for (const w of wanted) fields.hmget(keys.record(w.id), ...FIELDS);
  const replies = (await fields.exec()) ?? [];
  const done = new Map<string, string[]>();
  wanted.forEach(({ instance, id }, i) => {
    const [err, raw] = replies[i] ?? [new Error('no reply from Redis'), null];
    if (err) throw err;
    const values = raw as Array<string | null>;
    const slot = out.get(instance)!;
    const drop = () => done.set(instance, [...(done.get(instance) ?? []), id]);
    if (values.every((v) => v === null)) return drop();
    const parsed = parseOrProblem(schema, Object.fromEntries(FIELDS.map((f, j) => [f, values[j] ?? undefined])));
    if ('problem' in parsed) {
      slot.corrupt.push({ id, problem: parsed.problem });
      return;
    }
    const r = parsed.value;
    if (!isTerminal(r.state) || (r.state === 'landed' && r.updatedAt >= keepLandedSince)) slot.intents.push({ ...r, id });
    else drop();
  });
  if (done.size > 0) {
    const prune = redis.pipeline();
    for (const [instance, ids] of done) prune.zrem(keys.byInstance(instance), ...ids);
    await prune.exec();
  }
  return out;
}
