import type { Redis } from 'ioredis';
import type { IntentLedger, MarketData, PredictionData, RiskCounters, SnapshotSource, WalletData } from '../engine/ports.js';
import type { KillSwitchState } from '../engine/killSwitch.js';
import type { IntentStore } from './intents.js';
import { KillSwitchStore } from './killSwitch.js';
import type { SnapshotStore } from './snapshots.js';

export { StrategyStateStore } from './strategyState.js';

/** The intent ledger port over the Redis intent store. */
export function intentLedger(store: IntentStore): IntentLedger {
  return {
    pending: (instance, keepLandedSince) => store.pending(instance, keepLandedSince),
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

// Adds ARGV[1] to the day's total unless it would pass ARGV[2]. KEYS[1] the day's counter.
const RESERVE_LUA = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local add = tonumber(ARGV[1])
if cur + add > tonumber(ARGV[2]) then return 0 end
redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('EXPIRE', KEYS[1], 172800)
return 1
`;

/** Risk counters (daily notional) and the kill switch, in Redis so every worker sees them at once. */
export class RiskStore implements RiskCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async reserveNotional(usd: number, limit: number, now: number): Promise<boolean> {
    const day = new Date(now).toISOString().slice(0, 10);
    const ok = await this.redis.eval(RESERVE_LUA, 1, `${this.prefix}:risk:notional:${day}`, usd.toFixed(6), String(limit));
    return ok === 1;
  }

  /** Today's traded notional in USD. */
  async dailyNotional(now: number): Promise<number> {
    const day = new Date(now).toISOString().slice(0, 10);
    return Number((await this.redis.get(`${this.prefix}:risk:notional:${day}`)) ?? 0);
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
