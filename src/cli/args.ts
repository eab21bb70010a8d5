import { InvalidArgumentError } from 'commander';
import { parseBaseUnits, U64_MAX } from '../lib/amounts.js';
import { KNOWN_MINTS, knownBySymbol } from '../lib/mints.js';
import { pubkey } from '../jupiter/schemas.js';

/**
 * Parsers of command-line values, for commander's `argParser`. Each throws InvalidArgumentError, which commander
 * reports as a usage error (exit status 2) before any request is sent.
 */

/** A mint address, or a known symbol (case-insensitive: SOL, usdc, JUP...) resolved to its mint. */
export function parseMint(value: string): string {
  const known = knownBySymbol(value);
  if (known) return known.mint;
  if (pubkey.safeParse(value).success) return value;
  const symbols = KNOWN_MINTS.map((m) => m.symbol).join(', ');
  throw new InvalidArgumentError(`"${value}" is neither a known token symbol (${symbols}) nor a base58 mint address.`);
}

/** Variadic form of parseMint: accumulates resolved mints, dropping repeats. */
export function collectMints(value: string, previous: string[] | undefined): string[] {
  const mint = parseMint(value);
  const list = previous ?? [];
  return list.includes(mint) ? list : [...list, mint];
}

/** A wallet (or any account) address in base58. */
export function parseAddress(value: string): string {
  if (!pubkey.safeParse(value).success) throw new InvalidArgumentError(`"${value}" is not a base58 Solana address.`);
  return value;
}

/** A raw token amount: a positive integer string of base units that fits a u64 ("1000000", not "1.5"). */
export function parseAmount(value: string): bigint {
  let amount: bigint;
  try {
    amount = parseBaseUnits(value.trim(), 'amount');
  } catch (err) {
    throw new InvalidArgumentError(`${err instanceof Error ? err.message : 'invalid amount'} (base units, e.g. 1000000 for 1 USDC).`);
  }
  if (amount === 0n) throw new InvalidArgumentError('amount must be greater than 0.');
  if (amount > U64_MAX) throw new InvalidArgumentError('amount does not fit in a u64.');
  return amount;
}

/** A parser of integers from `min` to `max` inclusive, for options such as `--limit` and `--slippage-bps`. */
export function intInRange(name: string, min: number, max: number): (value: string) => number {
  return (value: string) => {
    const n = /^-?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      throw new InvalidArgumentError(`${name} must be an integer from ${min} to ${max}, got "${value}".`);
    }
    return n;
  };
}
