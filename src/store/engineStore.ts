import type { Redis } from 'ioredis';
import type { IntentLedger, MarketData, NotionalReservation, PredictionData, RiskCounters, SnapshotSource, WalletData } from '../engine/ports.js';
import type { KillSwitchState } from '../engine/killSwitch.js';
import type { IntentStore } from './intents.js';
import { KillSwitchStore } from './killSwitch.js';
import type { SnapshotStore } from './snapshots.js';
import { evalScript } from './scripts.js';

export { StrategyStateStore } from './strategyState.js';

/** The intent ledger port over the Redis intent store. */
export function intentLedger(store: IntentStore): IntentLedger {
  return {
    pending: (instance, keepLandedSince) => store.pending(instance, keepLandedSince),
    pendingMany: (instances, keepLandedSince) => store.pendingMany(instances, keepLandedSince),
  };
}

/** The snapshot port over the snapshot store. */
export function snapshotSource(snapshots: SnapshotStore): SnapshotSource {
  return {
    market: async (): Promise<MarketData | undefined> => snapshots.read('market'),
    prediction: async (): Promise<PredictionData | undefined> => snapshots.read('prediction'),
    wallet: async (): Promise<WalletData | undefined> => snapshots.read('wallet'),
    priceHistory: (mints, now, asOf) => snapshots.priceHistory(mints, now, asOf),
  };
}

// Reserves USD for many intents in order, each once (an intent found reserved counts as reserved and adds nothing).
// KEYS: the day's total, the day's reservations (intent id -> USD), then one instance total of the day per instance
// named. ARGV[1] the daily limit, then per intent: id, USD, the index of its instance's key in KEYS, its instance's
// limit ('' for none). Returns per intent 1 when reserved, 0 over the daily limit, -1 over the instance's.
const RESERVE_MANY_LUA = `
local limit = tonumber(ARGV[1])
local total = tonumber(redis.call('GET', KEYS[1]) or '0')
local out = {}
local touched = {}
for i = 2, #ARGV, 4 do
  local id, usd, k, own = ARGV[i], ARGV[i + 1], tonumber(ARGV[i + 2]), ARGV[i + 3]
  local add = tonumber(usd)
  if redis.call('HEXISTS', KEYS[2], id) == 1 then
    out[#out + 1] = 1
  elseif total + add > limit then
    out[#out + 1] = 0
  elseif own ~= '' and tonumber(redis.call('GET', KEYS[k]) or '0') + add > tonumber(own) then
    out[#out + 1] = -1
  else
    redis.call('HSET', KEYS[2], id, usd)
    total = tonumber(redis.call('INCRBYFLOAT', KEYS[1], usd))
    redis.call('INCRBYFLOAT', KEYS[k], usd)
    touched[k] = true
    out[#out + 1] = 1
  end
end
if next(touched) ~= nil then
  redis.call('EXPIRE', KEYS[1], 172800)
  redis.call('EXPIRE', KEYS[2], 172800)
  for k in pairs(touched) do redis.call('EXPIRE', KEYS[k], 172800) end
end
return out
`;

// Adds ARGV[2] lamports of fees for intent ARGV[1] once. KEYS: the day's total, the day's recorded intents.
const FEE_LUA = `
if redis.call('HSETNX', KEYS[2], ARGV[1], ARGV[2]) == 0 then return 0 end
redis.call('INCRBY', KEYS[1], ARGV[2])
redis.call('EXPIRE', KEYS[1], 172800)
redis.call('EXPIRE', KEYS[2], 172800)
return 1
`;

// Records a value ARGV[1]. KEYS: the peak, the day's first reading. Returns {peak, dayStart} as strings.
const OBSERVE_LUA = `
local v = tonumber(ARGV[1])
local peak = tonumber(redis.call('GET', KEYS[1]) or '-1')
if v > peak then peak = v; redis.call('SET', KEYS[1], ARGV[1]) end
redis.call('SET', KEYS[2], ARGV[1], 'NX', 'EX', 172800)
return {tostring(peak), redis.call('GET', KEYS[2])}
`;

/** The UTC day of a time, as the risk counters key it. */
export function utcDay(now: number): string {
  return new Date(now).toISOString().slice(0, 10);
}

/**
 * Risk counters (per UTC day: notional reserved by intent, by instance, fees, refusals by rule; the wallet's peak
 * value and first value of the day) and the kill switch, in Redis so every worker sees them at once.
 */
export class RiskStore implements RiskCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(name: string, now?: number): string {
    return now === undefined ? `${this.prefix}:risk:${name}` : `${this.prefix}:risk:${name}:${utcDay(now)}`;
  }

  async reserveNotional(r: NotionalReservation, now: number): Promise<'ok' | 'daily' | 'budget'> {
    return (await this.reserveNotionalMany([r], now))[0]!;
  }

  async reserveNotionalMany(rs: readonly NotionalReservation[], now: number): Promise<Array<'ok' | 'daily' | 'budget'>> {
    if (rs.length === 0) return [];
    const dailyLimit = rs[0]!.dailyLimit;
    if (rs.some((r) => r.dailyLimit !== dailyLimit)) throw new Error('reserveNotionalMany: one daily limit per call');
    const keys = [this.key('notional', now), this.key('reserved', now)];
    const slot = new Map<string, number>();
    const args: string[] = [String(dailyLimit)];
    for (const r of rs) {
      let k = slot.get(r.instance);
      if (k === undefined) {
        keys.push(`${this.key('budget', now)}:${r.instance}`);
        k = keys.length;
        slot.set(r.instance, k);
      }
      args.push(r.intentId, r.usd.toFixed(6), String(k), r.instanceLimit === undefined ? '' : String(r.instanceLimit));
    }
    const out = (await evalScript(this.redis, RESERVE_MANY_LUA, keys.length, ...keys, ...args)) as number[];
    return out.map((c) => (c === 1 ? 'ok' : c === -1 ? 'budget' : 'daily'));
  }

  /** Today's traded notional in USD. */
  async dailyNotional(now: number): Promise<number> {
    return Number((await this.redis.get(this.key('notional', now))) ?? 0);
  }

  /** Records what a landed intent paid in fees (once per intent). */
  async recordFee(intentId: string, lamports: bigint, now: number): Promise<void> {
    await evalScript(this.redis, FEE_LUA, 2, this.key('fees', now), this.key('feeIds', now), intentId, lamports.toString());
  }

  async dailyFeeLamports(now: number): Promise<bigint> {
    return BigInt((await this.redis.get(this.key('fees', now))) ?? '0');
  }

  async observeValue(usd: number, now: number): Promise<{ peakUsd: number; dayStartUsd: number }> {
    const [peak, dayStart] = (await evalScript(this.redis, OBSERVE_LUA, 2, this.key('peak'), this.key('daystart', now), usd.toFixed(6))) as [string, string];
    return { peakUsd: Number(peak), dayStartUsd: Number(dayStart) };
  }

  async countRefusal(rule: string, now: number): Promise<void> {
    await this.countRefusals(new Map([[rule, 1]]), now);
  }

  async countRefusals(byRule: ReadonlyMap<string, number>, now: number): Promise<void> {
    if (byRule.size === 0) return;
    const key = this.key('refusals', now);
    const tx = this.redis.multi();
    for (const [rule, n] of byRule) tx.hincrby(key, rule, n);
    await tx.expire(key, 172800).exec();
  }

  /** Today's refusals of the gate by rule. */
  async refusalsToday(now: number): Promise<Record<string, number>> {
    const raw = await this.redis.hgetall(this.key('refusals', now));
    return Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, Number(v)]));
  }

  /** The wallet's peak value and today's first reading, as the loss limits measure them. */
  async valueMarks(now: number): Promise<{ peakUsd: number | null; dayStartUsd: number | null }> {
    const [peak, dayStart] = await this.redis.mget(this.key('peak'), this.key('daystart', now));
    return { peakUsd: peak === null ? null : Number(peak), dayStartUsd: dayStart === null ? null : Number(dayStart) };
  }

  async trip(reason: string, by: string, now: number): Promise<KillSwitchState> {
    return new KillSwitchStore(this.redis, this.prefix).engageUnlessEngaged('halt', reason, by, now);
  }

  async killSwitch(): Promise<KillSwitchState | null> {
    return new KillSwitchStore(this.redis, this.prefix).read();
  }

  /** Why trading is stopped (either mode of the kill switch), or null. */
  async halted(): Promise<string | null> {
    return (await this.killSwitch())?.reason ?? null;
  }

  /** Engages the kill switch in `halt` mode with a reason, or releases it with null. */
  async setHalted(reason: string | null, by = 'worker'): Promise<void> {
    const store = new KillSwitchStore(this.redis, this.prefix);
    if (reason === null) await store.release();
    else await store.engage('halt', reason, by);
  }
}
