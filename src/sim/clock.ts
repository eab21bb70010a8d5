/** Milliseconds per slot, as on mainnet. */
export const SLOT_MS = 400;
/** Slot of the simulator's genesis: a realistic mainnet-sized number. */
export const GENESIS_SLOT = 380_000_000n;
/** Block height trails the slot by the skipped slots of history; kept different so code cannot confuse the two. */
export const BLOCK_HEIGHT_OFFSET = 16_000_000n;

/**
 * The simulator's clock. Simulated time runs at `speed` times real time from `startMs`, plus any manual advance;
 * speed 0 freezes it so tests move time only through `advance`. Slots and block heights derive from it.
 */
export class SimClock {
  readonly startMs: number;
  private speed: number;
  private readonly realNow: () => number;
  private anchorReal: number;
  private anchorSim: number;

  constructor(options: { speed?: number; startMs?: number; realNow?: () => number } = {}) {
    this.realNow = options.realNow ?? Date.now;
    this.speed = options.speed ?? 1;
    if (!(this.speed >= 0) || !Number.isFinite(this.speed)) throw new RangeError(`clock speed must be a finite number >= 0, got ${options.speed}`);
    this.startMs = options.startMs ?? this.realNow();
    this.anchorReal = this.realNow();
    this.anchorSim = this.startMs;
  }

  /** Simulated unix time in ms. */
  now(): number {
    return this.anchorSim + (this.realNow() - this.anchorReal) * this.speed;
  }

  /** Simulated ms since the simulator started. */
  elapsed(): number {
    return this.now() - this.startMs;
  }

  /** Moves simulated time forward by `ms`. */
  advance(ms: number): void {
    if (!(ms >= 0) || !Number.isFinite(ms)) throw new RangeError(`can only advance the clock by a finite number of ms >= 0, got ${ms}`);
    this.rebase();
    this.anchorSim += ms;
  }

  /** Changes the speed from now on. */
  setSpeed(speed: number): void {
    if (!(speed >= 0) || !Number.isFinite(speed)) throw new RangeError(`clock speed must be a finite number >= 0, got ${speed}`);
    this.rebase();
    this.speed = speed;
  }

  getSpeed(): number {
    return this.speed;
  }

  /** The current slot. */
  slot(): bigint {
    return GENESIS_SLOT + BigInt(Math.floor(this.elapsed() / SLOT_MS));
  }

  /** The current block height (every slot produces a block in the simulator). */
  blockHeight(): bigint {
    return this.slot() - BLOCK_HEIGHT_OFFSET;
  }

  /** Simulated ms until the given block height is reached (0 if already passed). */
  msUntilBlockHeight(height: bigint): number {
    const slots = height - this.blockHeight();
    return slots <= 0n ? 0 : Number(slots) * SLOT_MS;
  }

  private rebase(): void {
    const real = this.realNow();
    this.anchorSim += (real - this.anchorReal) * this.speed;
    this.anchorReal = real;
  }
}
