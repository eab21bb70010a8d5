import { z } from 'zod';

/**
 * Mints a strategy's params may name by symbol (real mainnet addresses), with their decimals. The SDK imports zod
 * only, so this is its own small copy of the table in src/lib/mints.ts; keep the two in step.
 */
export const KNOWN_SYMBOLS: Readonly<Record<string, { readonly mint: string; readonly decimals: number }>> = Object.freeze({
  SOL: { mint: 'So11111111111111111111111111111111111111112', decimals: 9 },
  USDC: { mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6 },
  USDT: { mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6 },
  JupUSD: { mint: 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD', decimals: 6 },
  JUP: { mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', decimals: 6 },
  BONK: { mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', decimals: 5 },
  JLP: { mint: '27G8MtK7VtTcCHkpASjSDdkWWYfoqT6ggEuKidVJidD4', decimals: 6 },
  jupSOL: { mint: 'jupSoLaHXQiZZTSfEWMTRRgpnyFm8f6sZdosWBjx93v', decimals: 9 },
  mSOL: { mint: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So', decimals: 9 },
  WIF: { mint: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', decimals: 6 },
  PYTH: { mint: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', decimals: 6 },
  RAY: { mint: '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', decimals: 6 },
});

/** Mint of wrapped SOL; `wallet.balance(SOL_MINT)` is the native balance in lamports. */
export const SOL_MINT = 'So11111111111111111111111111111111111111112';

const BY_UPPER = new Map(Object.entries(KNOWN_SYMBOLS).map(([symbol, m]) => [symbol.toUpperCase(), m.mint]));
const BASE58_ADDRESS = /^[1-9A-HJ-NP-Za-km-z]{32,44}$/;

/** The mint of a known symbol (case-insensitive; `WSOL` is SOL) or of a base58 address; undefined otherwise. */
export function resolveMint(symbolOrMint: string): string | undefined {
  const key = symbolOrMint.trim();
  if (BASE58_ADDRESS.test(key)) return key;
  const upper = key.toUpperCase();
  return BY_UPPER.get(upper === 'WSOL' ? 'SOL' : upper);
}

/** A strategy param naming a token by symbol (SOL, USDC, ...) or mint address; parses to the mint address. */
export const mintParam = z.string().transform((value, ctx) => {
  const mint = resolveMint(value);
  if (mint === undefined) {
    ctx.addIssue({ code: 'custom', message: `${JSON.stringify(value)} is neither a known symbol (${Object.keys(KNOWN_SYMBOLS).join(', ')}) nor a mint address` });
    return z.NEVER;
  }
  return mint;
});

/**
 * A strategy param holding an amount in base units: an integer string ("1000000") or a safe integer. Parses to
 * bigint; decimals ("1.5"), negatives and zero are refused.
 */
export const baseUnitsParam = z
  .custom<string | number>((v) => typeof v === 'string' || typeof v === 'number', { message: 'expected an integer amount in base units, as a string such as "1000000"' })
  .transform((v, ctx) => {
    const text = typeof v === 'number' ? (Number.isSafeInteger(v) ? String(v) : '') : v.trim();
    if (!/^\d+$/.test(text) || BigInt(text) === 0n) {
      ctx.addIssue({ code: 'custom', message: `expected a positive integer amount in base units (e.g. "1000000"), got ${JSON.stringify(v)}` });
      return z.NEVER;
    }
    return BigInt(text);
  });
