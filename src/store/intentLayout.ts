import { z } from 'zod';
import { encodeJson } from '../lib/json.js';
import type { IntentState } from '../engine/states.js';
import type { NewIntentRecord } from '../engine/ports.js';

// How an intent record is laid out in Redis, shared by the intent store (one create) and the evaluation commit
// (many creates with the strategy state, in one script), so that both write the same thing.

/**
 * Lua: creates one intent record if absent and indexes it (all intents by creation time, the initial state's set,
 * the instance's own index, which the pending read uses, and the set of instance indexes that are not empty, so a
 * shard's pending read touches only those). Returns {'created', state} or {'exists', state}.
 */
export const CREATE_INTENT_LUA_FN = `
local function create_intent(hash, index, stateSet, byInstance, active, id, createdAt, initial, fields)
  if redis.call('EXISTS', hash) == 1 then return {'exists', redis.call('HGET', hash, 'state')} end
  redis.call('HSET', hash, unpack(fields))
  redis.call('ZADD', index, createdAt, id)
  redis.call('SADD', stateSet, id)
  redis.call('ZADD', byInstance, createdAt, id)
  redis.call('SADD', active, byInstance)
  return {'created', initial}
end
`;

/** What a new intent record is made of: the engine's record, whose window start a direct caller may leave out. */
export type NewIntent = Omit<NewIntentRecord, 'windowStart'> & { windowStart?: number | undefined };

/** The initial state and the hash fields (as field, value, field, value, ...) of a new intent record. */
export function newIntentFields(rec: NewIntent): { initial: IntentState; fields: string[] } {
  const initial: IntentState = rec.rejection ? 'rejected' : 'planned';
  const fields: Record<string, string> = {
    id: rec.id,
    instance: rec.instance,
    strategy: rec.strategy,
    kind: rec.intent.kind,
    intent: encodeJson(rec.intent),
    state: initial,
    fence: '0',
    attempt: '1',
    createdAt: String(rec.createdAt),
    updatedAt: String(rec.createdAt),
    deadline: String(rec.deadline),
  };
  if (rec.rejection) fields.error = JSON.stringify(rec.rejection);
  if (rec.windowStart !== undefined) fields.windowStart = String(rec.windowStart);
  return { initial, fields: Object.entries(fields).flat() };
}

/** The Redis keys of the intent ledger under a prefix. */
export function intentKeys(prefix: string) {
  return {
    record: (id: string) => `${prefix}:intent:${id}`,
    /** Every intent id, scored by creation time. */
    index: `${prefix}:intents`,
    stateSet: (state: IntentState) => `${prefix}:intents:state:${state}`,
    /** Ids of an instance's intents that may still be pending (pruned by the pending read), scored by creation time. */
    byInstance: (instance: string) => `${prefix}:intents:instance:${instance}`,
    /** The instance indexes (their keys) that may hold ids: what a shard's pending read looks into. */
    active: `${prefix}:intents:active`,
  };
}

/** An intent record that is present but does not parse. */
export interface CorruptIntent {
  id: string;
  /** The first field that failed and why. */
  problem: string;
}

/** Parses a stored record; its transforms may throw (bad JSON, a bad intent), which is a problem too, not a crash. */
export function parseOrProblem<S extends z.ZodType>(schema: S, raw: unknown): { value: z.output<S> } | { problem: string } {
  try {
    const parsed = schema.safeParse(raw);
    if (parsed.success) return { value: parsed.data };
    const issue = parsed.error.issues[0];
    return { problem: issue ? `${issue.path.join('.') || '(record)'}: ${issue.message}` : 'does not parse' };
  } catch (err) {
    return { problem: err instanceof z.ZodError ? (err.issues[0]?.message ?? 'does not parse') : err instanceof Error ? err.message : String(err) };
  }
}
