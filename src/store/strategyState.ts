import type { Redis } from 'ioredis';
import { z } from 'zod';
import { decodeJson, encodeJson } from '../lib/json.js';
import type { CommitOutcome, DecisionSummary, EvaluationCommit, LoadedStrategyState, StrategyStatePort } from '../engine/ports.js';
import { INTENT_STATES } from '../engine/states.js';
import { CREATE_INTENT_LUA_FN, intentKeys, newIntentFields } from './intentLayout.js';

const decisionSchema = z.object({
  at: z.number(),
  window: z.string(),
  outcome: z.enum(['intents', 'nothing', 'skipped', 'error']),
  intents: z.array(z.object({ id: z.string(), kind: z.string(), state: z.enum(INTENT_STATES), reason: z.string().optional() })),
  message: z.string().optional(),
});
const stateSchema = z.record(z.string(), z.unknown());
const intentStateSchema = z.enum(INTENT_STATES);

// One evaluation's writes, all or nothing, fenced by the applied window the evaluation read: the intents (created
// only if absent), the strategy state, the new applied window and the decision. Every key is declared.
// KEYS[1] state, KEYS[2] applied window, KEYS[3] decision, KEYS[4] intents index, KEYS[5] the instance's intent
// index, then per intent: KEYS[6+2j] its hash, KEYS[7+2j] its initial state's set.
// ARGV[1] expected applied window ('' = none yet), ARGV[2] new window, ARGV[3] state ('' = keep), ARGV[4] decision,
// ARGV[5] number of intents, then per intent: id, createdAt, initial state, number of field strings, the fields.
// Returns {'conflict', applied window or ''} or {'ok', created|exists, state, created|exists, state, ...}.
const COMMIT_LUA = `${CREATE_INTENT_LUA_FN}
local cur = redis.call('GET', KEYS[2])
if (cur or '') ~= ARGV[1] then return {'conflict', cur or ''} end
if cur and tonumber(ARGV[2]) <= tonumber(cur) then return {'conflict', cur} end
local out = {'ok'}
local a = 6
for j = 0, tonumber(ARGV[5]) - 1 do
  local n = tonumber(ARGV[a + 3])
  local fields = {}
  for f = a + 4, a + 3 + n do fields[#fields + 1] = ARGV[f] end
  local r = create_intent(KEYS[6 + 2 * j], KEYS[4], KEYS[7 + 2 * j], KEYS[5], ARGV[a], ARGV[a + 1], ARGV[a + 2], fields)
  out[#out + 1] = r[1]
  out[#out + 1] = r[2] or ''
  a = a + 4 + n
end
if ARGV[3] ~= '' then redis.call('SET', KEYS[1], ARGV[3]) end
redis.call('SET', KEYS[2], ARGV[2])
redis.call('SET', KEYS[3], ARGV[4])
return out
`;

/**
 * Strategy state, applied window and last decision in Redis. An evaluation loads the state and applied window in
 * one round trip and commits its intents, state, window and decision in one script (see `StrategyStatePort`).
 */
export class StrategyStateStore implements StrategyStatePort {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keys(instance: string) {
    const base = `${this.prefix}:strategy:${instance}`;
    return { state: `${base}:state`, window: `${base}:window`, decision: `${base}:decision` };
  }

  async load(instance: string): Promise<LoadedStrategyState> {
    const k = this.keys(instance);
    const [state, window] = await this.redis.mget(k.state, k.window);
    return { state: state === null || state === undefined ? {} : stateSchema.parse(decodeJson(state)), appliedWindow: parseWindow(window ?? null) };
  }

  async commit(instance: string, c: EvaluationCommit): Promise<CommitOutcome> {
    const k = this.keys(instance);
    const ik = intentKeys(this.prefix);
    const keys = [k.state, k.window, k.decision, ik.index, ik.byInstance(instance)];
    const args = [c.expectedWindow === null ? '' : String(c.expectedWindow), String(c.window), c.state === undefined ? '' : encodeJson(c.state), JSON.stringify(c.decision), String(c.intents.length)];
    for (const rec of c.intents) {
      const { initial, fields } = newIntentFields(rec);
      keys.push(ik.record(rec.id), ik.stateSet(initial));
      args.push(rec.id, String(rec.createdAt), initial, String(fields.length), ...fields);
    }
    const out = (await this.redis.eval(COMMIT_LUA, keys.length, ...keys, ...args)) as string[];
    if (out[0] === 'conflict') return { ok: false, appliedWindow: parseWindow(out[1] || null) };
    return {
      ok: true,
      intents: c.intents.map((rec, j) => {
        const state = intentStateSchema.safeParse(out[2 + 2 * j]);
        // Only an existing record without a readable state gets here: a corrupt hash under a new intent's id.
        if (!state.success) throw new Error(`intent ${rec.id} exists with an unreadable state; not enqueued`);
        return { id: rec.id, created: out[1 + 2 * j] === 'created', state: state.data };
      }),
    };
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
