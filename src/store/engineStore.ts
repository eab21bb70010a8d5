import type { Redis } from 'ioredis';
import type { IntentLedger, MarketData, NotionalReservation, PredictionData, RiskCounters, SnapshotSource, WalletData } from '../engine/ports.js';
import type { KillSwitchState } from '../engine/killSwitch.js';
import type { IntentStore } from './intents.js';
import { KillSwitchStore } from './killSwitch.js';
import type { SnapshotStore } from './snapshots.js';

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
  };
}

// Reserves ARGV[2] USD for intent ARGV[1] once. KEYS: the day's total, the day's reservations (intent id -> USD),
// the instance's total of the day. ARGV[3] the daily limit, ARGV[4] the instance's ('' for none).
// Returns 1 when reserved (or already reserved by this intent), 0 over the daily limit, -1 over the instance's.
const RESERVE_LUA = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1 then return 1 end
local add = tonumber(ARGV[2])
if tonumber(redis.call('GET', KEYS[1]) or '0') + add > tonumber(ARGV[3]) then return 0 end
if ARGV[4] ~= '' and tonumber(redis.call('GET', KEYS[3]) or '0') + add > tonumber(ARGV[4]) then return -1 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('INCRBYFLOAT', KEYS[1], ARGV[2])
redis.call('INCRBYFLOAT', KEYS[3], ARGV[2])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], 172800) end
return 1
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
    const keys = [this.key('notional', now), this.key('reserved', now), `${this.key('budget', now)}:${r.instance}`];
    const out = await this.redis.eval(RESERVE_LUA, 3, ...keys, r.intentId, r.usd.toFixed(6), String(r.dailyLimit), r.instanceLimit === undefined ? '' : String(r.instanceLimit));
    return out === 1 ? 'ok' : out === -1 ? 'budget' : 'daily';
  }

  /** Today's traded notional in USD. */
  async dailyNotional(now: number): Promise<number> {
    return Number((await this.redis.get(this.key('notional', now))) ?? 0);
  }

  /** Records what a landed intent paid in fees (once per intent). */
  async recordFee(intentId: string, lamports: bigint, now: number): Promise<void> {
    await this.redis.eval(FEE_LUA, 2, this.key('fees', now), this.key('feeIds', now), intentId, lamports.toString());
  }

  async dailyFeeLamports(now: number): Promise<bigint> {
    return BigInt((await this.redis.get(this.key('fees', now))) ?? '0');
  }

  async observeValue(usd: number, now: number): Promise<{ peakUsd: number; dayStartUsd: number }> {
    const [peak, dayStart] = (await this.redis.eval(OBSERVE_LUA, 2, this.key('peak'), this.key('daystart', now), usd.toFixed(6))) as [string, string];
    return { peakUsd: Number(peak), dayStartUsd: Number(dayStart) };
  }

  async countRefusal(rule: string, now: number): Promise<void> {
    const key = this.key('refusals', now);
    await this.redis.multi().hincrby(key, rule, 1).expire(key, 172800).exec();
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
