import { z } from 'zod';

/**
 * Mints a strategy's params may name by symbol without asking the venue (real mainnet addresses), with their
 * decimals; other symbols are looked up in the venue's token list (see mintParam). The SDK imports zod only, so this
 * is its own small copy of the table in src/lib/mints.ts; keep the two in step.
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
/** What may be looked up as a symbol in the venue's token list: no spaces, no commas (which separate mints), 1 to 32 characters. */
const LOOKUP_SYMBOL = /^[^\s,]{1,32}$/u;

/** A token the venue's token list says a symbol outside KNOWN_SYMBOLS names; decimals from the token data. */
export interface LookedUpToken {
  readonly mint: string;
  readonly decimals: number;
}

/**
 * What jup-keeper found when it looked symbols outside KNOWN_SYMBOLS up in the venue's token list (at start-up,
 * before params are parsed), by the symbol as written: the token each names, or why it names none.
 */
export interface SymbolLookups {
  readonly found: ReadonlyMap<string, LookedUpToken>;
  /** The whole message to report for the symbol: unknown at the venue, ambiguous, or the venue did not answer. */
  readonly failed: ReadonlyMap<string, string>;
}

/** Key of the `params` of the issue mintParam reports for a symbol it cannot resolve: `{ unknownSymbol: 'POPCAT' }`. */
export const UNKNOWN_SYMBOL_PARAM = 'unknownSymbol';

interface LookupScope {
  lookups: SymbolLookups | undefined;
  unknown: Set<string>;
}

// The look-ups in force while params are parsed live on globalThis under a registered symbol, not in this module: a
// strategy of the user's own may load its own copy of the SDK (in its thread, from its node_modules, compiled), and
// its mintParam must see the same look-ups as the copy that sets them.
const SCOPE = Symbol.for('jup-keeper.sdk.symbolLookups');
const slot = globalThis as unknown as Record<typeof SCOPE, LookupScope | undefined>;

/**
 * Runs `parse` (synchronous: a zod parse) with `lookups` in force for resolveMint and mintParam, and returns its
 * result with the symbols it was asked for that neither KNOWN_SYMBOLS nor the look-ups resolve (the ones to look up).
 * `lookups` undefined: nothing was looked up; such symbols are refused as unknown.
 */
export function withSymbolLookups<T>(lookups: SymbolLookups | undefined, parse: () => T): { result: T; unknownSymbols: string[] } {
  const outer = slot[SCOPE];
  const scope: LookupScope = { lookups, unknown: new Set() };
  slot[SCOPE] = scope;
  try {
    const result = parse();
    return { result, unknownSymbols: [...scope.unknown] };
  } finally {
    slot[SCOPE] = outer;
  }
}

/**
 * The mint of a known symbol (case-insensitive; `WSOL` is SOL), of a symbol looked up in the venue's token list
 * (while params are parsed under withSymbolLookups), or of a base58 address; undefined otherwise.
 */
export function resolveMint(symbolOrMint: string): string | undefined {
  const key = symbolOrMint.trim();
  if (BASE58_ADDRESS.test(key)) return key;
  const upper = key.toUpperCase();
  const known = BY_UPPER.get(upper === 'WSOL' ? 'SOL' : upper);
  if (known !== undefined) return known;
  const scope = slot[SCOPE];
  const found = scope?.lookups?.found.get(key);
  if (found !== undefined) return found.mint;
  if (scope !== undefined && LOOKUP_SYMBOL.test(key)) scope.unknown.add(key);
  return undefined;
}

/**
 * A strategy param naming a token by symbol or mint address; parses to the mint address. A symbol of KNOWN_SYMBOLS
 * (SOL, USDC, ...) resolves at once; any other is looked up in the venue's token list by `jup-keeper run` and
 * `config check` before params are parsed (an exact symbol match, verified tokens first; two candidates are refused,
 * never guessed). Elsewhere such a symbol is an issue whose params carry `{ unknownSymbol }`.
 */
export const mintParam = z.string().transform((value, ctx) => {
  const mint = resolveMint(value);
  if (mint !== undefined) return mint;
  const key = value.trim();
  const failed = slot[SCOPE]?.lookups?.failed.get(key);
  ctx.addIssue({
    code: 'custom',
    message: failed ?? `${JSON.stringify(value)} is neither a known symbol (${Object.keys(KNOWN_SYMBOLS).join(', ')}) nor a mint address`,
    params: LOOKUP_SYMBOL.test(key) ? { [UNKNOWN_SYMBOL_PARAM]: key } : undefined,
  });
  return z.NEVER;
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
