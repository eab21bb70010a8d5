import type { Redis } from 'ioredis';
import { z } from 'zod';
import { evalScript } from './scripts.js';
import type { MarketSnapshot } from './snapshots.js';

// Applies one fill to an instance's average-cost book. KEYS[1] the book hash.
// ARGV: inputMint, inAmount, inUsd, outputMint, outAmount, outUsd. Amounts are base-unit integers as strings,
// USD values decimals. Selling `in` realises proceeds (outUsd) minus the average cost of the units sold; units with
// no recorded cost (held before the bot traded) are costed at the fill's own input value.
const FILL_LUA = `
local function num(k) return tonumber(redis.call('HGET', KEYS[1], k) or '0') end
local inMint, inAmt, inUsd = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local outMint, outAmt, outUsd = ARGV[4], tonumber(ARGV[5]), tonumber(ARGV[6])
local qty, cost = num('qty:' .. inMint), num('cost:' .. inMint)
local coveredQty = math.min(qty, inAmt)
local basis = 0
if qty > 0 then basis = cost * coveredQty / qty end
basis = basis + inUsd * (inAmt - coveredQty) / math.max(inAmt, 1)
redis.call('HSET', KEYS[1], 'qty:' .. inMint, tostring(qty - coveredQty), 'cost:' .. inMint, tostring(cost - (qty > 0 and cost * coveredQty / qty or 0)))
redis.call('HINCRBYFLOAT', KEYS[1], 'qty:' .. outMint, tostring(outAmt))
redis.call('HINCRBYFLOAT', KEYS[1], 'cost:' .. outMint, tostring(outUsd))
redis.call('HINCRBYFLOAT', KEYS[1], 'realizedUsd', tostring(outUsd - basis))
redis.call('HINCRBYFLOAT', KEYS[1], 'volumeUsd', tostring(inUsd))
redis.call('HINCRBY', KEYS[1], 'fills', 1)
return 1
`;

/** Which sessions a P&L covers: the current one (see src/store/sessions.ts) or every one. */
export type PnlScope = 'session' | 'all';

/** Realised P&L per strategy instance, by average cost, kept in Redis. */
export class PnlStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  /** Records a landed swap with the USD values of both legs at the time it landed. */
  async recordFill(instance: string, fill: { inputMint: string; inAmount: bigint; inUsd: number; outputMint: string; outAmount: bigint; outUsd: number }): Promise<void> {
    await evalScript(this.redis, FILL_LUA, 1, `${this.prefix}:pnl:${instance}`, fill.inputMint, fill.inAmount.toString(), fill.inUsd.toFixed(8), fill.outputMint, fill.outAmount.toString(), fill.outUsd.toFixed(8));
  }

  /**
   * An instance's realised P&L, volume and fill count: of every session (`all`, the default), or of the current one
   * only (`session`: the book less what it held at the session's start, noted by beginSession).
   */
  async summary(instance: string, scope: PnlScope = 'all'): Promise<{ realizedUsd: number; volumeUsd: number; fills: number }> {
    const h = await this.redis.hmget(`${this.prefix}:pnl:${instance}`, 'realizedUsd', 'volumeUsd', 'fills', 'baseRealizedUsd', 'baseVolumeUsd', 'baseFills');
    const n = z.coerce.number().catch(0);
    const total = { realizedUsd: n.parse(h[0] ?? 0), volumeUsd: n.parse(h[1] ?? 0), fills: n.parse(h[2] ?? 0) };
    if (scope === 'all') return total;
    return { realizedUsd: total.realizedUsd - n.parse(h[3] ?? 0), volumeUsd: total.volumeUsd - n.parse(h[4] ?? 0), fills: total.fills - n.parse(h[5] ?? 0) };
  }

  /**
   * What an instance holds by its book (bought by its swaps and not sold yet): per mint, the base units and their
   * average cost in USD. Read-only.
   */
  async holdings(instance: string): Promise<Array<{ mint: string; qty: number; costUsd: number }>> {
    const raw = await this.redis.hgetall(`${this.prefix}:pnl:${instance}`);
    const out: Array<{ mint: string; qty: number; costUsd: number }> = [];
    for (const [field, value] of Object.entries(raw)) {
      if (!field.startsWith('qty:')) continue;
      const mint = field.slice('qty:'.length);
      const qty = Number(value);
      if (Number.isFinite(qty) && qty > 0) out.push({ mint, qty, costUsd: Number(raw[`cost:${mint}`] ?? 0) });
    }
    return out.sort((a, b) => (a.mint < b.mint ? -1 : 1));
  }

  /** Realised P&L of every book (instances no longer configured included), summed, USD, of `scope`. Read-only. */
  async realizedTotalUsd(scope: PnlScope = 'all'): Promise<number> {
    return (await Promise.all((await this.instances()).map((i) => this.summary(i, scope)))).reduce((sum, s) => sum + s.realizedUsd, 0);
  }

  /**
   * Unrealised P&L of every book, USD: what the swaps bought and still hold, at the market's prices, less their
   * average cost; mints without a price are named and left out. Null without a market snapshot. Read-only.
   */
  async unrealizedTotalUsd(market: MarketSnapshot | undefined): Promise<{ usd: number; unpriced: string[] } | null> {
    if (!market) return null;
    let usd = 0;
    const unpriced = new Set<string>();
    for (const id of await this.instances()) {
      const u = unrealizedOf(await this.holdings(id), market);
      usd += u.unrealizedUsd;
      for (const m of u.unpriced) unpriced.add(m);
    }
    return { usd, unpriced: [...unpriced].sort() };
  }

  /** Ids of the instances that have a P&L book (including ones no longer configured), sorted. Read-only. */
  async instances(): Promise<string[]> {
    const found = new Set<string>();
    const head = `${this.prefix}:pnl:`;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', `${head}*`, 'COUNT', 500);
      for (const k of keys) found.add(k.slice(head.length));
      cursor = next;
    } while (cursor !== '0');
    return [...found].sort();
  }
}

/** A book's holdings at the market's prices, less their cost, USD; mints without a price are named and left out. */
export function unrealizedOf(holdings: ReadonlyArray<{ mint: string; qty: number; costUsd: number }>, market: MarketSnapshot | undefined): { unrealizedUsd: number; unpriced: string[] } {
  let usd = 0;
  const unpriced: string[] = [];
  for (const h of holdings) {
    const p = market?.prices[h.mint];
    if (!p || !(p.usd > 0)) unpriced.push(h.mint);
    else usd += (h.qty / 10 ** p.decimals) * p.usd - h.costUsd;
  }
  return { unrealizedUsd: usd, unpriced };
}
