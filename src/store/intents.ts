import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson, encodeJson } from '../lib/json.js';
import { INTENT_KINDS, intentSchema, type Intent, type IntentKind } from '../sdk/intents.js';
import { ALLOWED_FROM, INTENT_STATES, isTerminal, TERMINAL_STATES, type IntentState } from '../engine/states.js';
import { CREATE_INTENT_LUA_FN, intentKeys, newIntentFields, parseOrProblem, type CorruptIntent, type NewIntent } from './intentLayout.js';
import { indexActiveInstances, LandedCache, readPending, readPendingMany, type PendingRecord } from './pendingIntents.js';
import { DurableWriter, type StoreDurability } from './durable.js';
import { evalScript } from './scripts.js';

export type { CorruptIntent, NewIntent } from './intentLayout.js';
export type { PendingRecord } from './pendingIntents.js';

/** One intent's record in the ledger. */
export interface IntentRecord {
  id: string;
  /** Strategy instance id. */
  instance: string;
  /** Strategy name@version that decided it. */
  strategy: string;
  kind: IntentKind;
  intent: Intent;
  state: IntentState;
  /** Bumped by every claim; a move carrying an older fence is refused (someone else owns the intent now). */
  fence: number;
  attempt: number;
  createdAt: number;
  updatedAt: number;
  /** Unix ms after which no new attempt is made. */
  deadline: number;
  requestId: string | null;
  /** Base64 of the signed transaction of the current attempt (not secret: only signatures leave the process). */
  signedTx: string | null;
  signature: string | null;
  /** Signatures of every attempt, oldest first. */
  signatures: string[];
  lastValidBlockHeight: bigint | null;
  /** How the current attempt's transaction is submitted (ultra execute with its requestId, RPC, ...). */
  route: Record<string, unknown> | null;
  /** What the venue quoted for the current attempt. */
  quote: Record<string, unknown> | null;
  /** Outcome details (amounts, slot) once landed or failed. */
  result: Record<string, unknown> | null;
  /** Why it failed, expired or was rejected; `rule` names the risk-gate or guard rule that refused it. */
  error: IntentError | null;
}

/** Why an intent failed, expired or was rejected. */
export interface IntentError {
  code: string;
  message: string;
  /** The rule of the risk gate or of the pre-sign guard that refused it (guard rules comma-separated). */
  rule?: string;
}

/** Fields a move may set. */
export type IntentPatch = Partial<Pick<IntentRecord, 'attempt' | 'requestId' | 'signedTx' | 'signature' | 'signatures' | 'lastValidBlockHeight' | 'route' | 'quote' | 'result' | 'error'>>;

/** Options of `IntentStore.move`. */
export interface MoveOptions {
  /** Return only once the write is durable; throws KeeperError REDIS_NOT_DURABLE (action `retry`) otherwise. */
  durable?: boolean;
  /** The call's move token (default: a fresh random one). A move repeated with the same token is a no-op. */
  token?: string;
}

/** Options of the IntentStore constructor. */
export interface IntentStoreOptions {
  /** How durable moves are confirmed on this Redis (`checkRedis`'s `durability` and `replicas`). */
  durability?: StoreDurability;
}

/** Result of a move. */
export type MoveResult = { ok: true; from: IntentState } | { ok: false; reason: 'fence' | 'state' | 'missing'; state: IntentState | null };

const stateSchema = z.enum(INTENT_STATES);
const str = z.string();
const maybe = z.string().optional().transform((v) => (v === undefined || v === '' ? null : v));
const recordSchema = z.object({
  id: str,
  instance: str,
  strategy: str,
  kind: z.custom<IntentKind>((v) => typeof v === 'string' && (INTENT_KINDS as readonly string[]).includes(v), 'unknown intent kind'),
  intent: str.transform((t) => intentSchema.parse(decodeJson(t))),
  state: stateSchema,
  fence: z.coerce.number().int(),
  attempt: z.coerce.number().int(),
  createdAt: z.coerce.number(),
  updatedAt: z.coerce.number(),
  deadline: z.coerce.number(),
  requestId: maybe,
  signedTx: maybe,
  signature: maybe,
  signatures: maybe.transform((t) => (t ? z.array(z.string()).parse(JSON.parse(t)) : [])),
  lastValidBlockHeight: maybe.transform((t) => (t ? BigInt(t) : null)),
  route: maybe.transform((t) => (t ? z.record(z.string(), z.unknown()).parse(decodeJson(t)) : null)),
  quote: maybe.transform((t) => (t ? z.record(z.string(), z.unknown()).parse(decodeJson(t)) : null)),
  result: maybe.transform((t) => (t ? z.record(z.string(), z.unknown()).parse(decodeJson(t)) : null)),
  error: maybe.transform((t): IntentError | null => (t ? z.object({ code: z.string(), message: z.string(), rule: z.string().optional() }).parse(JSON.parse(t)) : null)),
});

// Moves an intent if its fence matches (when given) and its state is one the target allows. Keeps the per-state
// index sets and the update time in the same atomic step. Every key is declared (Redis Cluster routes a script by
// its KEYS; with a hash-tagged prefix they all share one slot).
// KEYS[1] intent hash, KEYS[2..] the per-state id sets in the order of ARGV[6]; ARGV[1] fence ('' = unfenced),
// ARGV[2] target state, ARGV[3] allowed states (csv), ARGV[4] id, ARGV[5] now, ARGV[6] every state (csv),
// ARGV[7] move token, ARGV[8..] field/value pairs.
// The move token makes a repeated call a no-op: ioredis re-sends a command whose reply was lost in a reconnect, so
// a move can run twice; the second run finds its own token and answers as the first did (instead of "state", which
// the executor would take for corruption and halt on). It rewrites the token to the same value: that changes no
// data but makes the current connection's last write follow the original move, so a WAIT/WAITAOF after it covers it.
const MOVE_LUA = `
local cur = redis.call('HMGET', KEYS[1], 'state', 'fence', 'moveToken', 'moveFrom')
if not cur[1] then return {'missing', ''} end
if cur[3] == ARGV[7] then
  redis.call('HSET', KEYS[1], 'moveToken', ARGV[7])
  return {'ok', cur[4]}
end
if ARGV[1] ~= '' and cur[2] ~= ARGV[1] then return {'fence', cur[1]} end
local allowed = false
for s in string.gmatch(ARGV[3], '[^,]+') do if s == cur[1] then allowed = true end end
if not allowed then return {'state', cur[1]} end
local setOf = {}
local k = 2
for s in string.gmatch(ARGV[6], '[^,]+') do setOf[s] = KEYS[k]; k = k + 1 end
if not setOf[cur[1]] or not setOf[ARGV[2]] then return redis.error_reply('MOVE: unknown state ' .. cur[1] .. ' or ' .. ARGV[2]) end
local n = #ARGV
if n >= 8 then
  local pairs = {}
  for i = 8, n do pairs[#pairs + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], unpack(pairs))
end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'updatedAt', ARGV[5], 'moveToken', ARGV[7], 'moveFrom', cur[1])
redis.call('SREM', setOf[cur[1]], ARGV[4])
redis.call('SADD', setOf[ARGV[2]], ARGV[4])
return {'ok', cur[1]}
`;

// Claims an intent unless it ended: KEYS[1] its hash, ARGV[1] the terminal states (csv). Returns nil when there is
// no record (no id, as get judges), else {new fence, or false when ended or without a state, the hash's fields
// and values}: a record without a state is not claimed, and fails to parse as get's would.
const CLAIM_LUA = `
local cur = redis.call('HMGET', KEYS[1], 'id', 'state')
if not cur[1] then return nil end
local fence = false
local claimable = cur[2] ~= false
for s in string.gmatch(ARGV[1], '[^,]+') do if s == cur[2] then claimable = false end end
if claimable then fence = redis.call('HINCRBY', KEYS[1], 'fence', 1) end
return {fence, redis.call('HGETALL', KEYS[1])}
`;

// Creates the record only if absent. KEYS[1] intent hash, KEYS[2] index zset, KEYS[3] the initial state's set,
// KEYS[4] the instance's index zset; ARGV[1] id, ARGV[2] createdAt, ARGV[3] initial state, ARGV[4..] field/value pairs.
const CREATE_LUA = `${CREATE_INTENT_LUA_FN}
local fields = {}
for i = 4, #ARGV do fields[#fields + 1] = ARGV[i] end
return create_intent(KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], ARGV[1], ARGV[2], ARGV[3], fields)
`;

/** The intent ledger in Redis: the system of record of what the bot decided and what happened to it. */
export class IntentStore {
  private readonly durable: DurableWriter;
  /** Landings the pending reads of this store parsed (see LandedCache). */
  private readonly landed = new LandedCache();

  /**
   * `options.durability` (from `checkRedis` at start-up) says how `move(..., { durable: true })` makes a write
   * durable; without it durable moves are plain moves (paper, tests, read-only commands).
   */
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    options: IntentStoreOptions = {},
  ) {
    this.durable = new DurableWriter(redis, options.durability);
  }

  private key(id: string): string {
    return `${this.prefix}:intent:${id}`;
  }
  private get indexKey(): string {
    return `${this.prefix}:intents`;
  }
  private get stateSetPrefix(): string {
    return `${this.prefix}:intents:state:`;
  }

  /**
   * Records a new intent, in `planned` or directly in `rejected` (with its reason) when the risk gate refused it;
   * returns created: false (and changes nothing) if the id already exists.
   */
  async create(rec: NewIntent): Promise<{ created: boolean; state: IntentState }> {
    const { initial, fields } = newIntentFields(rec);
    const k = intentKeys(this.prefix);
    const out = (await evalScript(this.redis, CREATE_LUA, 5, k.record(rec.id), k.index, k.stateSet(initial), k.byInstance(rec.instance), k.active, rec.id, String(rec.createdAt), initial, ...fields)) as [string, string];
    return { created: out[0] === 'created', state: stateSchema.parse(out[1]) };
  }

  /** The record, parsed; undefined when absent. */
  async get(id: string): Promise<IntentRecord | undefined> {
    const raw = await this.redis.hgetall(this.key(id));
    if (!raw.id) return undefined;
    return recordSchema.parse(raw);
  }

  /** Whether an intent with this id is recorded. */
  async exists(id: string): Promise<boolean> {
    return (await this.redis.exists(this.key(id))) === 1;
  }

  /** Takes ownership of an intent: bumps and returns its fence. Earlier owners' moves will be refused. */
  async claim(id: string): Promise<number> {
    return this.redis.hincrby(this.key(id), 'fence', 1);
  }

  /**
   * `claim` and `get` in one step, for a worker about to carry an intent on: the record as the claim left it, and
   * its new fence; an ended intent (terminal) is read and left unclaimed (fence null); undefined when absent (nothing
   * is created, where a bare claim would make a hash of its fence alone).
   */
  async claimUnlessEnded(id: string): Promise<{ fence: number | null; record: IntentRecord } | undefined> {
    const out = (await evalScript(this.redis, CLAIM_LUA, 1, this.key(id), [...TERMINAL_STATES].join(','))) as [number | false, string[]] | null;
    if (!out) return undefined;
    const flat = out[1];
    const raw: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) raw[flat[i]!] = flat[i + 1]!;
    return { fence: typeof out[0] === 'number' ? out[0] : null, record: recordSchema.parse(raw) };
  }

  /**
   * Moves an intent to `to` if the fence (when given) and the current state allow it. Idempotent per call: a move
   * re-sent after a reconnect (or repeated with the same `opts.token`) answers as the first run did and changes
   * nothing. With `opts.durable` it returns only once the write is durable (WAITAOF, or the fsync-always reply plus
   * WAIT for replicas), and throws a KeeperError REDIS_NOT_DURABLE (action `retry`) when that cannot be confirmed:
   * the move may then have been applied but must not be relied on (call `confirmDurable` before acting on it later).
   */
  async move(id: string, fence: number | null, to: IntentState, patch: IntentPatch = {}, now = Date.now(), opts: MoveOptions = {}): Promise<MoveResult> {
    const fields: string[] = [];
    for (const [k, v] of Object.entries(patch)) {
      if (v === undefined) continue;
      let value: string;
      if (v === null) value = '';
      else if (k === 'signatures' || k === 'error') value = JSON.stringify(v);
      else if (k === 'result' || k === 'route' || k === 'quote') value = encodeJson(v);
      else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'bigint') value = String(v);
      else value = encodeJson(v);
      fields.push(k, value);
    }
    const keys = [this.key(id), ...INTENT_STATES.map((s) => `${this.stateSetPrefix}${s}`)];
    const args = [fence === null ? '' : String(fence), to, ALLOWED_FROM[to].join(','), id, String(now), INTENT_STATES.join(','), opts.token ?? randomUUID(), ...fields];
    const out = (await this.durable.eval(MOVE_LUA, keys, args, opts.durable === true)) as [string, string];
    if (out[0] === 'ok') return { ok: true, from: stateSchema.parse(out[1]) };
    return { ok: false, reason: out[0] as 'fence' | 'state' | 'missing', state: out[1] ? stateSchema.parse(out[1]) : null };
  }

  /**
   * Returns once every ledger write made so far is durable (a no-op where durable moves need no wait). For a job
   * that finds an intent already `signed` after a REDIS_NOT_DURABLE: confirm before the bytes leave the process.
   */
  async confirmDurable(): Promise<void> {
    await this.durable.barrier(`${this.prefix}:durable-barrier`);
  }

  /** Closes the dedicated connections durable moves use (the shared connection belongs to the caller). */
  async close(): Promise<void> {
    await this.durable.close();
  }

  /** Ids in a state. */
  async idsIn(state: IntentState): Promise<string[]> {
    return this.redis.smembers(`${this.stateSetPrefix}${state}`);
  }

  /**
   * The intents sent and not yet recorded landed or failed (state `submitted`), with their signatures: what the wallet
   * feed asks the chain about around its reads (see Feeds.refreshWallet).
   */
  async sentSignatures(): Promise<Array<{ id: string; signature: string }>> {
    const ids = await this.idsIn('submitted');
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hget(this.key(id), 'signature');
    const replies = (await pipe.exec()) ?? [];
    return ids.flatMap((id, i) => {
      const [err, signature] = replies[i] ?? [null, null];
      return !err && typeof signature === 'string' && signature !== '' ? [{ id, signature }] : [];
    });
  }

  /** Ids of intents not yet in a terminal state. */
  async liveIds(): Promise<string[]> {
    const live = INTENT_STATES.filter((s) => !isTerminal(s));
    const lists = await Promise.all(live.map((s) => this.idsIn(s)));
    return lists.flat();
  }

  /** Count of intents per state. */
  /** How many intents are in one state (one SCARD). */
  countInState(state: IntentState): Promise<number> {
    return this.redis.scard(`${this.stateSetPrefix}${state}`);
  }

  async countByState(): Promise<Record<IntentState, number>> {
    const counts = await Promise.all(INTENT_STATES.map((s) => this.redis.scard(`${this.stateSetPrefix}${s}`)));
    return Object.fromEntries(INTENT_STATES.map((s, i) => [s, counts[i] ?? 0])) as Record<IntentState, number>;
  }

  /** The most recent intents that parse, newest first (corrupt ones are left out; `list()` names them). */
  async recent(limit = 100): Promise<IntentRecord[]> {
    const ids = await this.redis.zrevrange(this.indexKey, 0, Math.max(0, limit - 1));
    return (await this.read(ids)).records;
  }

  /** Every intent that parses, oldest first (corrupt ones are left out; `list()` names them). */
  async all(): Promise<IntentRecord[]> {
    return (await this.list()).records;
  }

  /**
   * Every intent, oldest first, in two round trips. A record that does not parse is left out of `records` and
   * named in `corrupt`, never thrown: one damaged hash must not hide every other intent from status and the CLI.
   */
  async list(): Promise<IntentListing> {
    return this.read(await this.redis.zrange(this.indexKey, 0, -1));
  }

  /** The records of `ids` in one round trip, in that order: absent ones left out, corrupt ones named. */
  async read(ids: readonly string[]): Promise<IntentListing> {
    if (ids.length === 0) return { records: [], corrupt: [] };
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hgetall(this.key(id));
    const replies = (await pipe.exec()) ?? [];
    const out: IntentListing = { records: [], corrupt: [] };
    ids.forEach((id, i) => {
      const [err, raw] = replies[i] ?? [new Error('no reply'), null];
      if (err) throw err;
      const hash = raw as Record<string, string>;
      if (Object.keys(hash).length === 0) return;
      const parsed = parseOrProblem(recordSchema, hash);
      if ('problem' in parsed) out.corrupt.push({ id, problem: parsed.problem });
      else out.records.push(parsed.value);
    });
    return out;
  }

  /**
   * The instance's intents whose effect may not be in a wallet view yet: every one in a non-terminal state, and
   * those that landed at or after `keepLandedSince` (unix ms). Two round trips; see `readPending`.
   */
  pending(instance: string, keepLandedSince: number): Promise<{ intents: PendingRecord[]; corrupt: CorruptIntent[] }> {
    return readPending(this.redis, this.prefix, instance, keepLandedSince);
  }

  /** Indexes a ledger written before the set of non-empty instance indexes existed (once; see indexActiveInstances). */
  indexActiveInstances(): Promise<number> {
    return indexActiveInstances(this.redis, this.prefix);
  }

  /** `pending` for many instances in three round trips; see `readPendingMany`. */
  pendingMany(instances: readonly string[], keepLandedSince: number): Promise<Map<string, { intents: PendingRecord[]; corrupt: CorruptIntent[] }>> {
    return readPendingMany(this.redis, this.prefix, instances, keepLandedSince, this.landed);
  }
}

/** Intent records read in bulk: those that parse, and those that do not. */
export interface IntentListing {
  records: IntentRecord[];
  corrupt: CorruptIntent[];
}

