import type { Redis } from 'ioredis';
import { z } from 'zod';
import { evalScript } from './scripts.js';

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

  /** An instance's realised P&L, volume and fill count. */
  async summary(instance: string): Promise<{ realizedUsd: number; volumeUsd: number; fills: number }> {
    const h = await this.redis.hmget(`${this.prefix}:pnl:${instance}`, 'realizedUsd', 'volumeUsd', 'fills');
    const n = z.coerce.number();
    return { realizedUsd: n.parse(h[0] ?? 0), volumeUsd: n.parse(h[1] ?? 0), fills: n.parse(h[2] ?? 0) };
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

  /** Realised P&L of every book (instances no longer configured included), summed, USD: the daily summary's total. Read-only. */
  async realizedTotalUsd(): Promise<number> {
    return (await Promise.all((await this.instances()).map((i) => this.summary(i)))).reduce((sum, s) => sum + s.realizedUsd, 0);
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
