import { formatUnits } from '../lib/amounts.js';
import { knownByMint } from '../lib/mints.js';

/** Human formatting of CLI values. Amounts stay bigint until this point; floats are used for prices only. */

/** Decimals of micro-USD (1,000,000 = $1), the unit of prediction prices and P&L. */
const MICRO_USD_DECIMALS = 6;

/** Placeholder for a value the service did not send. */
export const NONE = '-';

/** A USD price: 2 decimals from $1, 4 significant digits below ("$147.48", "$0.9999", "$0.00001234"). */
export function formatUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  const sign = value < 0 ? '-' : '';
  const abs = Math.abs(value);
  if (abs >= 1) return `${sign}$${abs.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (abs === 0) return '$0';
  const digits = Math.min(20, Math.max(2, 3 - Math.floor(Math.log10(abs))));
  const [whole, frac = ''] = abs.toFixed(digits).split('.');
  return `${sign}$${whole}.${frac.replace(/0+$/, '').padEnd(2, '0')}`;
}

/** A large USD figure in compact form ("$621.68M", "$2.99M", "$950.00"). */
export function formatCompactUsd(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  const units: [number, string][] = [
    [1e12, 'T'],
    [1e9, 'B'],
    [1e6, 'M'],
    [1e3, 'K'],
  ];
  for (const [size, suffix] of units) if (Math.abs(value) >= size) return `$${(value / size).toFixed(2)}${suffix}`;
  return formatUsd(value);
}

/** A percentage already on the 0 to 100 scale, signed ("+1.29%", "-0.00%"). */
export function formatPercent(value: number | null | undefined, signed = true): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  const text = `${value.toFixed(2)}%`;
  return signed && value >= 0 ? `+${text}` : text;
}

/** A micro-USD amount in dollars with at least 2 decimals ("$0.65", "$9.85", "$0.689655"). */
export function formatMicroUsd(value: bigint | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  const text = formatUnits(value, MICRO_USD_DECIMALS);
  const negative = text.startsWith('-');
  const [whole, frac = ''] = (negative ? text.slice(1) : text).split('.');
  return `${negative ? '-' : ''}$${whole}.${frac.padEnd(2, '0')}`;
}

/** A signed micro-USD amount ("+$1.20", "-$0.99"). */
export function formatSignedMicroUsd(value: bigint | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  return value >= 0n ? `+${formatMicroUsd(value)}` : formatMicroUsd(value);
}

/**
 * What a prediction market is about, for a table: its event's title and its own ("France leadership vote: Dubois"),
 * since a market title alone is often just an outcome; one of them when the other is missing or the same; else `id`.
 */
export function formatMarketTitle(eventTitle: string | null | undefined, marketTitle: string | null | undefined, id: string): string {
  const ev = eventTitle?.trim() ?? '';
  const m = marketTitle?.trim() ?? '';
  if (ev && m && ev !== m) return `${ev}: ${m}`;
  return m || ev || id;
}

/** Symbol of a known mint, or an abbreviated address ("7xKX…gAsU") for display where space is short. */
export function mintLabel(mint: string): string {
  return knownByMint(mint)?.symbol ?? (mint.length > 12 ? `${mint.slice(0, 4)}…${mint.slice(-4)}` : mint);
}

/** Base units as a human amount, with the symbol when given ("1.5 SOL"). */
export function formatAmount(amount: bigint, decimals: number, symbol?: string): string {
  const text = formatUnits(amount, decimals);
  return symbol ? `${text} ${symbol}` : text;
}

/** Unix seconds as `YYYY-MM-DD HH:MM UTC`. */
export function formatUnixTime(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds) || seconds <= 0) return NONE;
  return formatDate(new Date(seconds * 1000));
}

/** An ISO timestamp as `YYYY-MM-DD HH:MM UTC`; unparseable text is shown as sent. */
export function formatIsoTime(text: string | null | undefined): string {
  if (!text) return NONE;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? text : formatDate(new Date(ms));
}

function formatDate(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `yes`/`no` for a flag; NONE when absent. */
export function formatFlag(value: boolean | null | undefined): string {
  if (value === null || value === undefined) return NONE;
  return value ? 'yes' : 'no';
}
