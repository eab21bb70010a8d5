import type { SimToken, TokenCategory } from '../catalog.js';
import { Rng } from '../rng.js';
import type { Venue } from '../venue.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** The trading-stats intervals of Tokens V2 (`stats5m` ... `stats24h`), in ms. */
export const STAT_INTERVALS = { '5m': 5 * MINUTE, '1h': HOUR, '6h': 6 * HOUR, '24h': DAY } as const;
/** A Tokens V2 stats interval. */
export type StatInterval = keyof typeof STAT_INTERVALS;
/** The longer intervals of Ultra's search (`stats7d`, `stats30d`), in ms: price change only, as the service sends. */
export const LONG_INTERVALS = { '7d': 7 * DAY, '30d': 30 * DAY } as const;

/** SwapStats of one interval (jupiter-api.md §4). Volumes are USD; changes are percent. */
export interface SwapStats {
  priceChange: number | null;
  holderChange: number;
  liquidityChange: number;
  volumeChange: number;
  buyVolume: number;
  sellVolume: number;
  buyOrganicVolume: number;
  sellOrganicVolume: number;
  numBuys: number;
  numSells: number;
  numTraders: number;
  numOrganicBuyers: number;
  numNetBuyers: number;
}

/** Daily volume as a multiple of the token's liquidity: stables and new launches churn, LSTs barely trade. */
const TURNOVER: Record<TokenCategory, number> = { sol: 1.2, stable: 2.5, lst: 0.05, jup: 0.25, bluechip: 0.3, meme: 0.6, new: 3 };
/** Average trade size in USD, which turns volume into trade counts. */
const AVG_TRADE_USD: Record<TokenCategory, number> = { sol: 600, stable: 900, lst: 4_000, jup: 500, bluechip: 400, meme: 150, new: 45 };
/** A window is the sum of this many units, each with its own seeded activity level, so windows roll smoothly. */
const UNITS = 12;

/** A uniform [0, 1) value from a 32-bit key and an integer: cheap, stateless, the same for the same inputs. */
function noise(key: number, n: number): number {
  let h = (key ^ Math.imul(n | 0, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return ((h ^ (h >>> 16)) >>> 0) / 4_294_967_296;
}

/** Rounds to `digits` decimals (the service sends floats with a few decimals). */
export function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/** A price with 12 significant digits: the walk's float noise (0.000019999999999999998) is not sent. */
export function priceValue(x: number): number {
  return Number(x.toPrecision(12));
}

/** Price change over the last `ms` of simulated time, in percent; null when the token is not priced. */
export function priceChangePct(venue: Venue, token: SimToken, ms: number): number | null {
  const now = venue.prices.usd(token.mint);
  const then = venue.prices.usdAgo(token.mint, ms);
  if (now === undefined || then === undefined || then <= 0) return null;
  return round((now / then - 1) * 100, 6);
}

/**
 * Trading stats of a token over an interval ending now. The price change comes from the price book; volumes, trade
 * and trader counts are drawn from seeded streams per time unit (unit = interval / 12), so the same seed at the
 * same simulated time gives the same stats, whatever the order of requests.
 */
export function swapStats(venue: Venue, token: SimToken, interval: StatInterval): SwapStats {
  const ms = STAT_INTERVALS[interval];
  const unitMs = ms / UNITS;
  const key = new Rng(venue.seed, `stats:${token.mint}:${interval}`).nextUint32();
  const last = Math.floor(venue.clock.elapsed() / unitMs);
  const unitVolume = token.liquidityUsd * TURNOVER[token.category] * (unitMs / DAY);
  let volume = 0;
  let previous = 0;
  for (let i = 0; i < UNITS; i += 1) {
    volume += unitVolume * (0.4 + 1.2 * noise(key, last - i));
    previous += unitVolume * (0.4 + 1.2 * noise(key, last - UNITS - i));
  }
  const priceChange = priceChangePct(venue, token, ms);
  const tilt = Math.max(-0.12, Math.min(0.12, (priceChange ?? 0) / 200));
  const buyShare = 0.5 + tilt + 0.04 * (noise(key ^ 0x5bd1e995, last) - 0.5);
  const buyVolume = volume * buyShare;
  const sellVolume = volume - buyVolume;
  const organicShare = 0.02 + 0.25 * (token.organicScore / 100);
  const avgTrade = AVG_TRADE_USD[token.category];
  const numBuys = Math.round(buyVolume / avgTrade);
  const numSells = Math.round((sellVolume / avgTrade) * (0.9 + 0.2 * noise(key ^ 0x27d4eb2f, last)));
  const numTraders = Math.max(numBuys + numSells > 0 ? 1 : 0, Math.round((numBuys + numSells) * (token.category === 'new' ? 0.25 : 0.05)));
  const hours = ms / HOUR;
  const holderDrift = token.category === 'new' ? 2 : 0;
  return {
    priceChange,
    holderChange: round((holderDrift + (noise(key ^ 0x165667b1, last) - 0.45) * 0.2) * Math.sqrt(hours), 4),
    liquidityChange: round((noise(key ^ 0x61c88647, last) - 0.5) * 3 * Math.sqrt(hours / 24), 4),
    volumeChange: round((volume / previous - 1) * 100, 4),
    buyVolume: round(buyVolume, 2),
    sellVolume: round(sellVolume, 2),
    buyOrganicVolume: round(buyVolume * organicShare, 2),
    sellOrganicVolume: round(sellVolume * organicShare * (0.9 + 0.2 * noise(key ^ 0x9e3779b9, last)), 2),
    numBuys,
    numSells,
    numTraders,
    numOrganicBuyers: Math.round(numTraders * (token.organicScore / 100) * 0.15),
    numNetBuyers: Math.round(numTraders * (buyShare - 0.5) * 0.8),
  };
}

/** Total volume (buys plus sells) of a stats object, USD. */
export function volumeOf(stats: SwapStats): number {
  return stats.buyVolume + stats.sellVolume;
}
