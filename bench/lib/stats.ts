// Figures of the benchmark and the arithmetic on samples.

/** One measured figure, as bench/results.json holds it. */
export interface Figure {
  name: string;
  /** The measurement (null when the run could not produce it; `note` says why). */
  value: number | null;
  unit: string;
  /** What the figure is measured above (the Redis round trips of the path), if it has one. */
  floor: number | null;
  /** The target, e.g. "<= 200" (in `unit`), or null for a figure reported without one. */
  target: string | null;
  /** Whether the value meets the target (null without a target or a value). */
  met: boolean | null;
  /** How it was measured: N, duration, what the quick run changed. */
  note?: string;
}

/** A figure with an upper bound. */
export function atMost(name: string, value: number | null, unit: string, limit: number, extra: { floor?: number | null; note?: string } = {}): Figure {
  return { name, value: round(value), unit, floor: round(extra.floor ?? null), target: `<= ${limit}`, met: value === null ? null : value <= limit, note: extra.note };
}

/** A figure with a lower bound. */
export function atLeast(name: string, value: number | null, unit: string, limit: number, extra: { floor?: number | null; note?: string } = {}): Figure {
  return { name, value: round(value), unit, floor: round(extra.floor ?? null), target: `>= ${limit}`, met: value === null ? null : value >= limit, note: extra.note };
}

/** A figure that must equal a value. */
export function exactly(name: string, value: number | null, unit: string, wanted: number, extra: { note?: string } = {}): Figure {
  return { name, value: round(value), unit, floor: null, target: `== ${wanted}`, met: value === null ? null : value === wanted, note: extra.note };
}

/** A figure reported without a target. */
export function info(name: string, value: number | null, unit: string, extra: { floor?: number | null; note?: string } = {}): Figure {
  return { name, value: round(value), unit, floor: round(extra.floor ?? null), target: null, met: null, note: extra.note };
}

/** A figure that could not be measured: the reason is in the note, the target stays (unmet). */
export function failed(name: string, unit: string, target: string | null, why: string): Figure {
  return { name, value: null, unit, floor: null, target, met: target === null ? null : false, note: `not measured: ${why}` };
}

function round(v: number | null): number | null {
  if (v === null || !Number.isFinite(v)) return v === null ? null : v;
  const abs = Math.abs(v);
  const digits = abs >= 100 ? 1 : abs >= 1 ? 2 : 4;
  return Number(v.toFixed(digits));
}

/** The p-quantile (0..1) of values by nearest rank; NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))]!;
}

/** MB from bytes. */
export function mb(bytes: number): number {
  return bytes / 2 ** 20;
}
