/** Money is bigint in base units; these helpers are the only place human decimal amounts are converted. */

const DIGITS = /^\d+$/;
const SIGNED_DIGITS = /^-?\d+$/;
const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** Largest value of a Solana u64 amount. */
export const U64_MAX = (1n << 64n) - 1n;

/** Parses a string of base-10 digits (a raw token amount) into bigint; throws RangeError naming the input. */
export function parseBaseUnits(value: string, what = 'amount'): bigint {
  if (!DIGITS.test(value)) throw new RangeError(`${what} must be a non-negative integer string, got ${JSON.stringify(value)}`);
  return BigInt(value);
}

/** Parses a signed integer string into bigint. */
export function parseSignedUnits(value: string, what = 'amount'): bigint {
  if (!SIGNED_DIGITS.test(value)) throw new RangeError(`${what} must be an integer string, got ${JSON.stringify(value)}`);
  return BigInt(value);
}

/** Converts a human decimal string ("1.5") to base units for a token with `decimals` places. No float arithmetic. */
export function toBaseUnits(human: string, decimals: number): bigint {
  const match = DECIMAL.exec(human.trim());
  if (!match) throw new RangeError(`not a decimal amount: ${JSON.stringify(human)}`);
  const whole = match[1] ?? '0';
  const frac = match[2] ?? '';
  if (frac.length > decimals) throw new RangeError(`${human} has more than ${decimals} decimal places`);
  return BigInt(whole) * 10n ** BigInt(decimals) + BigInt(frac.padEnd(decimals, '0') || '0');
}

/** Formats base units as a human decimal string, trimming trailing zeros ("1.5", "0.000001", "3"). */
export function formatUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n;
  const abs = negative ? -amount : amount;
  const base = 10n ** BigInt(decimals);
  const whole = abs / base;
  const frac = (abs % base).toString().padStart(decimals, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Converts base units to a float number for display or rough USD maths only (never for amounts that move). */
export function toApproxNumber(amount: bigint, decimals: number): number {
  return Number(amount) / 10 ** decimals;
}

/** Multiplies an amount by basis points, rounding down. */
export function applyBps(amount: bigint, bps: number): bigint {
  return (amount * BigInt(Math.round(bps))) / 10_000n;
}

/** JSON.stringify replacer that writes bigints as decimal strings. */
export function bigintReplacer(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/** JSON.stringify with bigint support. */
export function stringifyJson(value: unknown, space?: number): string {
  return JSON.stringify(value, bigintReplacer, space);
}
