import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson, encodeJson } from '../lib/json.js';
import type { DecisionSummary, LoadedShard, LoadedStrategyState, ShardCommit, ShardEvaluation, ShardOutcome, StrategyStatePort } from '../engine/ports.js';
import { INTENT_STATES } from '../engine/states.js';
import { CREATE_INTENT_LUA_FN, intentKeys, newIntentFields } from './intentLayout.js';
import { evalScript } from './scripts.js';

const decisionSchema = z.object({
  at: z.number(),
  window: z.string(),
  outcome: z.enum(['intents', 'nothing', 'skipped', 'error']),
  intents: z.array(z.object({ id: z.string(), kind: z.string(), state: z.enum(INTENT_STATES), reason: z.string().optional() })),
  message: z.string().optional(),
});
const stateSchema = z.record(z.string(), z.unknown());
const evaluatedSchema = z.object({ at: z.number(), window: z.number() });
const messageSchema = z.object({ at: z.number(), level: z.enum(['debug', 'info', 'warn']), text: z.string() });

/** When an instance was last evaluated: its shard's last evaluation (unix ms) and the window it decided. */
export interface LastEvaluation {
  at: number;
  /** Start of the decided window, unix ms. */
  window: number;
  shard: string;
}

/** The last line an instance logged; `at` is when it first logged that text (repeats are not written again). */
export type LastMessage = z.output<typeof messageSchema>;
const intentStateSchema = z.enum(INTENT_STATES);

// One shard's evaluation: the writes of every instance that changed, and the shard's applied window, all or
// nothing, fenced by the shard window the evaluation read. KEYS[1] the shard's window, KEYS[2] the intents index,
// KEYS[3] the set of non-empty instance indexes, then per instance: its state, window, decision and intent index, then per intent its hash and initial state set.
// ARGV[1] expected shard window ('' = none yet), ARGV[2] new window, ARGV[3] number of instances, then per instance:
// state ('' = keep), decision ('' = keep), '1' to apply (move its window), number of intents, then per intent: id,
// createdAt, initial state, number of field strings, the fields. An instance whose own window is already at or
// past the new one (decided under another shard layout) is left alone: 'stale'.
// Returns {'conflict', shard window or ''} or {'ok', per instance: applied|stale|kept, per intent: created|exists, state}.
const COMMIT_SHARD_LUA = `${CREATE_INTENT_LUA_FN}
local cur = redis.call('GET', KEYS[1])
if (cur or '') ~= ARGV[1] then return {'conflict', cur or ''} end
if cur and tonumber(ARGV[2]) <= tonumber(cur) then return {'conflict', cur} end
local out = {'ok'}
local a = 4
local k = 4
for i = 1, tonumber(ARGV[3]) do
  local state, decision, apply, n = ARGV[a], ARGV[a + 1], ARGV[a + 2], tonumber(ARGV[a + 3])
  a = a + 4
  local own = redis.call('GET', KEYS[k + 1])
  local stale = apply == '1' and own and tonumber(own) >= tonumber(ARGV[2])
  if stale then out[#out + 1] = 'stale' elseif apply == '1' then out[#out + 1] = 'applied' else out[#out + 1] = 'kept' end
  for j = 0, n - 1 do
    local m = tonumber(ARGV[a + 3])
    if stale then
      out[#out + 1] = 'skipped'
      out[#out + 1] = ''
    else
      local fields = {}
      for f = a + 4, a + 3 + m do fields[#fields + 1] = ARGV[f] end
      local r = create_intent(KEYS[k + 4 + 2 * j], KEYS[2], KEYS[k + 5 + 2 * j], KEYS[k + 3], KEYS[3], ARGV[a], ARGV[a + 1], ARGV[a + 2], fields)
      out[#out + 1] = r[1]
      out[#out + 1] = r[2] or ''
    end
    a = a + 4 + m
  end
  if not stale then
    if state ~= '' then redis.call('SET', KEYS[k], state) end
    if apply == '1' then redis.call('SET', KEYS[k + 1], ARGV[2]) end
    if decision ~= '' then redis.call('SET', KEYS[k + 2], decision) end
  end
  k = k + 4 + 2 * n
end
redis.call('SET', KEYS[1], ARGV[2])
return out
`;

/**
 * Strategy state, applied window and last decision in Redis. A shard's evaluation loads its instances' states and
 * windows in one round trip and commits every change with the shard's window in one script (see `StrategyStatePort`).
 */
export class StrategyStateStore implements StrategyStatePort {
  /** The members last recorded for each shard by this process (`recordEvaluation` writes them again on a change). */
  private readonly shardMembers = new Map<string, string>();
  /** The last line recorded for each instance by this process, as `level|text`. */
  private readonly messages = new Map<string, string>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keys(instance: string) {
    const base = `${this.prefix}:strategy:${instance}`;
    return { state: `${base}:state`, window: `${base}:window`, decision: `${base}:decision`, message: `${base}:message` };
  }

  /** Hash: shard key → its last evaluation, `{ at, window }`. */
  private get evaluatedKey(): string {
    return `${this.prefix}:shard:evaluated`;
  }

  /** Hash: instance id → the shard that evaluates it. */
  private get instanceShardKey(): string {
    return `${this.prefix}:strategy:shards`;
  }

  /**
   * Records a shard's evaluation in one round trip: the shard's time and window (one field, whatever its size), which
   * instances it holds (only when that changed since this process last wrote it), and each instance's last line
   * when its text changed. At 20,000 instances deciding nothing in silence this is one write per shard per window.
   */
  async recordEvaluation(shard: string, e: ShardEvaluation): Promise<void> {
    const pipe = this.redis.pipeline();
    pipe.hset(this.evaluatedKey, shard, JSON.stringify({ at: e.at, window: e.window }));
    const members = e.instances.join('\n');
    const membersChanged = this.shardMembers.get(shard) !== members;
    if (membersChanged && e.instances.length > 0) pipe.hset(this.instanceShardKey, Object.fromEntries(e.instances.map((i) => [i, shard])));
    const changed: Array<[string, string]> = [];
    for (const [instance, m] of e.messages) {
      const seen = `${m.level}|${m.text}`;
      if (this.messages.get(instance) === seen) continue;
      changed.push([instance, seen]);
      pipe.set(this.keys(instance).message, JSON.stringify({ at: e.at, level: m.level, text: m.text }));
    }
    const results = await pipe.exec();
    const failed = results?.find(([err]) => err !== null)?.[0];
    if (failed) throw failed;
    if (membersChanged) this.shardMembers.set(shard, members);
    for (const [instance, seen] of changed) this.messages.set(instance, seen);
  }

  /** When each of `instances` was last evaluated (its shard's last evaluation); absent before its first. */
  async lastEvaluations(instances: readonly string[]): Promise<Map<string, LastEvaluation>> {
    const out = new Map<string, LastEvaluation>();
    if (instances.length === 0) return out;
    const shards = await this.redis.hmget(this.instanceShardKey, ...instances);
    const keys = [...new Set(shards.filter((s): s is string => s !== null))];
    if (keys.length === 0) return out;
    const raw = await this.redis.hmget(this.evaluatedKey, ...keys);
    const byShard = new Map<string, { at: number; window: number }>();
    keys.forEach((k, i) => {
      const text = raw[i];
      if (text !== null && text !== undefined) byShard.set(k, evaluatedSchema.parse(JSON.parse(text)));
    });
    instances.forEach((id, i) => {
      const shard = shards[i];
      const e = shard ? byShard.get(shard) : undefined;
      if (shard && e) out.set(id, { ...e, shard });
    });
    return out;
  }

  /** The last line each of `instances` logged; absent for one that never logged. */
  async lastMessages(instances: readonly string[]): Promise<Map<string, LastMessage>> {
    const out = new Map<string, LastMessage>();
    if (instances.length === 0) return out;
    const raw = await this.redis.mget(...instances.map((i) => this.keys(i).message));
    instances.forEach((id, i) => {
      const text = raw[i];
      if (text !== null && text !== undefined) out.set(id, messageSchema.parse(JSON.parse(text)));
    });
    return out;
  }

  async load(instance: string): Promise<LoadedStrategyState> {
    const k = this.keys(instance);
    const [state, window] = await this.redis.mget(k.state, k.window);
    return { state: state === null || state === undefined ? {} : stateSchema.parse(decodeJson(state)), appliedWindow: parseWindow(window ?? null) };
  }

  async loadShard(shard: string, instances: readonly string[]): Promise<LoadedShard> {
    const keys = [this.shardWindowKey(shard)];
    for (const i of instances) {
      const k = this.keys(i);
      keys.push(k.state, k.window);
    }
    const values = await this.redis.mget(...keys);
    const states = new Map<string, LoadedStrategyState>();
    instances.forEach((i, n) => {
      const state = values[1 + 2 * n] ?? null;
      states.set(i, { state: state === null ? {} : stateSchema.parse(decodeJson(state)), appliedWindow: parseWindow(values[2 + 2 * n] ?? null) });
    });
    return { appliedWindow: parseWindow(values[0] ?? null), states };
  }

  async commitShard(shard: string, c: ShardCommit): Promise<ShardOutcome> {
    const ik = intentKeys(this.prefix);
    const keys = [this.shardWindowKey(shard), ik.index, ik.active];
    const args = [c.expectedWindow === null ? '' : String(c.expectedWindow), String(c.window), String(c.instances.length)];
    for (const inst of c.instances) {
      const k = this.keys(inst.instance);
      keys.push(k.state, k.window, k.decision, ik.byInstance(inst.instance));
      const apply = inst.intents.length > 0 || inst.state !== undefined;
      args.push(inst.state === undefined ? '' : encodeJson(inst.state), inst.decision === undefined ? '' : JSON.stringify(inst.decision), apply ? '1' : '0', String(inst.intents.length));
      for (const rec of inst.intents) {
        const { initial, fields } = newIntentFields(rec);
        keys.push(ik.record(rec.id), ik.stateSet(initial));
        args.push(rec.id, String(rec.createdAt), initial, String(fields.length), ...fields);
      }
    }
    const out = (await evalScript(this.redis, COMMIT_SHARD_LUA, keys.length, ...keys, ...args)) as string[];
    if (out[0] === 'conflict') return { ok: false, appliedWindow: parseWindow(out[1] || null) };
    let at = 1;
    const instances = c.instances.map((inst) => {
      const outcome = out[at++] as 'applied' | 'stale' | 'kept';
      const intents = inst.intents.map((rec) => {
        const created = out[at++];
        const raw = out[at++];
        if (created === 'skipped') return undefined;
        const state = intentStateSchema.safeParse(raw);
        if (!state.success) throw new Error(`intent ${rec.id} exists with an unreadable state; not enqueued`);
        return { id: rec.id, created: created === 'created', state: state.data };
      });
      return { instance: inst.instance, stale: outcome === 'stale', intents: intents.filter((i) => i !== undefined) };
    });
    return { ok: true, instances };
  }

  /** Records decisions that change no state (skips, failures), in one round trip. */
  async recordDecisions(decisions: ReadonlyMap<string, DecisionSummary>): Promise<void> {
    if (decisions.size === 0) return;
    const pipe = this.redis.pipeline();
    for (const [instance, d] of decisions) pipe.set(this.keys(instance).decision, JSON.stringify(d));
    await pipe.exec();
  }

  /** Start (unix ms) of the last window a shard committed; null before its first. */
  async shardWindow(shard: string): Promise<number | null> {
    return parseWindow(await this.redis.get(this.shardWindowKey(shard)));
  }

  private shardWindowKey(shard: string): string {
    return `${this.prefix}:shard:${shard}:window`;
  }

  async recordDecision(instance: string, decision: DecisionSummary): Promise<void> {
    await this.redis.set(this.keys(instance).decision, JSON.stringify(decision));
  }

  /** The persisted state of an instance ({} before its first committed evaluation). */
  async getState(instance: string): Promise<Record<string, unknown>> {
    return (await this.load(instance)).state;
  }

  /** The last decision of an instance, if any. */
  async lastDecision(instance: string): Promise<DecisionSummary | undefined> {
    const text = await this.redis.get(this.keys(instance).decision);
    return text === null ? undefined : decisionSchema.parse(JSON.parse(text));
  }
}

function parseWindow(text: string | null): number | null {
  if (text === null) return null;
  const n = Number(text);
  if (!Number.isFinite(n)) throw new Error(`the applied decision window is not a number: ${JSON.stringify(text.slice(0, 40))}`);
  return n;
}
