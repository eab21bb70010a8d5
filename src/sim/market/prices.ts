import { Rng } from '../rng.js';
import type { SimClock } from '../clock.js';
import type { SimToken } from '../catalog.js';

/** Simulated ms between two steps of the random walk. */
export const PRICE_TICK_MS = 1_000;
const TICKS_PER_DAY = 86_400_000 / PRICE_TICK_MS;

interface Walk {
  rng: Rng;
  /** Log price at `tick`. */
  logPrice: number;
  tick: number;
  stepSigma: number;
  /** Log-price at each 1-minute boundary, kept for 24 h changes: index = minute. */
  minuteLog: number[];
}

/**
 * USD prices following a seeded geometric random walk per token: the same seed gives the same price at the same
 * simulated time, whatever the order or timing of requests. Pegged tokens (LSTs) follow their peg. A price set
 * through the control API rescales the walk from then on.
 */
export class PriceBook {
  private readonly walks = new Map<string, Walk>();
  private readonly overrides = new Map<string, number>();
  private readonly bySymbol: Map<string, SimToken>;
  private readonly byMint: Map<string, SimToken>;

  constructor(
    private readonly tokens: readonly SimToken[],
    private readonly seed: number | string,
    private readonly clock: SimClock,
  ) {
    this.bySymbol = new Map(tokens.map((t) => [t.symbol, t]));
    this.byMint = new Map(tokens.map((t) => [t.mint, t]));
    for (const t of tokens) {
      this.walks.set(t.mint, {
        rng: new Rng(seed, `price:${t.mint}`),
        logPrice: Math.log(t.usd),
        tick: 0,
        stepSigma: t.dailyVol / Math.sqrt(TICKS_PER_DAY),
        minuteLog: [Math.log(t.usd)],
      });
    }
  }

  /** Current tick of the walk. */
  currentTick(): number {
    return Math.max(0, Math.floor(this.clock.elapsed() / PRICE_TICK_MS));
  }

  /** USD price of a mint now; undefined for an unknown mint. */
  usd(mint: string): number | undefined {
    const token = this.byMint.get(mint);
    if (!token) return undefined;
    return this.usdAtTick(token, this.currentTick());
  }

  /** USD price 24 h ago (or at the start, when younger), for priceChange24h. */
  usd24hAgo(mint: string): number | undefined {
    return this.usdAgo(mint, 86_400_000);
  }

  /** USD price `ms` of simulated time ago, at minute resolution (the start price when the walk is younger). */
  usdAgo(mint: string, ms: number): number | undefined {
    const token = this.byMint.get(mint);
    if (!token) return undefined;
    return this.usdAtTick(token, Math.max(0, this.currentTick() - Math.floor(ms / PRICE_TICK_MS)), true);
  }

  /** Pins a mint's price now; the walk continues from it. */
  setUsd(mint: string, usd: number): void {
    const token = this.byMint.get(mint);
    if (!token) throw new RangeError(`unknown mint ${mint}`);
    if (!(usd > 0) || !Number.isFinite(usd)) throw new RangeError(`price must be a positive number, got ${usd}`);
    const raw = this.rawAtTick(token, this.currentTick());
    this.overrides.set(mint, usd / raw);
  }

  private usdAtTick(token: SimToken, tick: number, historical = false): number {
    const factor = this.overrides.get(token.mint) ?? 1;
    return this.rawAtTick(token, tick, historical) * factor;
  }

  private rawAtTick(token: SimToken, tick: number, historical = false): number {
    if (token.peg) {
      const peg = this.bySymbol.get(token.peg.symbol);
      if (!peg) throw new Error(`peg ${token.peg.symbol} of ${token.symbol} is not listed`);
      return this.usdAtTick(peg, tick, historical) * token.peg.ratio;
    }
    const walk = this.walks.get(token.mint)!;
    if (historical) {
      this.advance(walk, this.currentTick());
      const minute = Math.floor(tick / 60);
      return Math.exp(walk.minuteLog[Math.min(minute, walk.minuteLog.length - 1)] ?? walk.logPrice);
    }
    this.advance(walk, tick);
    return Math.exp(walk.logPrice);
  }

  private advance(walk: Walk, tick: number): void {
    while (walk.tick < tick) {
      walk.logPrice += walk.stepSigma * walk.rng.normal();
      walk.tick += 1;
      if (walk.tick % 60 === 0) walk.minuteLog.push(walk.logPrice);
    }
  }
}
