import type { FillLeg } from './events.js';
import { knownByMint } from './mints.js';

// Human units at the edges (console, notifications): amounts are bigint base units everywhere else.

/** A leg from base units: symbol from the known mints, else the mint shortened. */
export function fillLeg(mint: string, amount: bigint, decimals: number | undefined): FillLeg {
  const known = knownByMint(mint);
  return { mint, symbol: known?.symbol ?? shortId(mint), amount: amount.toString(), decimals: decimals ?? known?.decimals ?? 0 };
}

/**
 * The executed price of a two-legged fill: in USD per token when one side is a stable coin (0.05 SOL for 7.41 USDC
 * is 148.20 USD/SOL, either direction), else output per input.
 */
export function fillPrice(paid: FillLeg, got: FillLeg): { price: number; unit: string } | undefined {
  const a = legValue(paid);
  const b = legValue(got);
  if (!(a > 0) || !(b > 0)) return undefined;
  const paidStable = isStable(paid.mint);
  const gotStable = isStable(got.mint);
  if (gotStable && !paidStable) return { price: b / a, unit: `USD/${paid.symbol}` };
  if (paidStable && !gotStable) return { price: a / b, unit: `USD/${got.symbol}` };
  return { price: b / a, unit: `${got.symbol}/${paid.symbol}` };
}

/** A leg as a person reads it: "0.05 SOL", "7.41 USDC". */
export function formatLeg(leg: FillLeg): string {
  return `${humanNumber(legValue(leg), isStable(leg.mint) ? 2 : undefined)} ${leg.symbol}`;
}

/** A price as a person reads it: two decimals from 1 up ("148.20"), four significant digits below. */
export function formatPrice(price: number): string {
  if (price >= 1) return price.toFixed(2);
  return trimZeros(price.toPrecision(4));
}

/** What a fill did, in one phrase: "swap 0.05 SOL → 7.41 USDC @ 148.20 USD/SOL", "lend.deposit 100 JupUSD". */
export function describeFill(f: { kind: string; in?: FillLeg | undefined; out?: FillLeg | undefined; price?: number | undefined; priceUnit?: string | undefined }): string {
  const parts = [f.kind];
  if (f.in && f.out) parts.push(`${formatLeg(f.in)} → ${formatLeg(f.out)}`);
  else if (f.in) parts.push(formatLeg(f.in));
  if (f.price !== undefined && f.priceUnit) parts.push(`@ ${formatPrice(f.price)} ${f.priceUnit}`);
  return parts.join(' ');
}

/** USD as a person reads it: "$1,234.56", "-$3.10". */
export function formatUsd(usd: number): string {
  const sign = usd < 0 ? '-' : '';
  return `${sign}$${Math.abs(usd).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
}

/**
 * An id, address or signature shortened for a line or a table cell: its first and last `keep` characters around an
 * ellipsis ("5VER…x9Qa"), so it can be matched at either end; "-" when there is none. The one shortener of the
 * project: every console line, table and notification shows ids this way.
 */
export function shortId(text: string | null | undefined, keep = 4): string {
  if (!text) return '-';
  return text.length > keep * 2 + 1 ? `${text.slice(0, keep)}…${text.slice(-keep)}` : text;
}

/**
 * A token amount for display only: `fixed` decimals when given (stable coins: cents) unless that would show zero,
 * else up to four decimals from 1 up and four significant digits below; trailing zeros trimmed except with `fixed`.
 */
export function humanNumber(value: number, fixed?: number): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (fixed !== undefined && abs >= 10 ** -fixed) return value.toLocaleString('en-US', { minimumFractionDigits: fixed, maximumFractionDigits: fixed });
  if (abs >= 1) return value.toLocaleString('en-US', { maximumFractionDigits: 4 });
  return trimZeros(value.toPrecision(4));
}

function legValue(leg: FillLeg): number {
  return Number(leg.amount) / 10 ** leg.decimals;
}

function isStable(mint: string): boolean {
  return knownByMint(mint)?.category === 'stable';
}

function trimZeros(s: string): string {
  return s.includes('.') && !s.includes('e') ? s.replace(/\.?0+$/, '') : s;
}
