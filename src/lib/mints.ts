/** Well-known Solana mints, by symbol. Used where a user may type a symbol instead of a mint address. */
export interface KnownMint {
  symbol: string;
  mint: string;
  decimals: number;
  name: string;
  /** What kind of asset it is (Jupiter's fee table and the reduce-only kill switch depend on it). */
  category: MintCategory;
}

/** Asset classes of known mints: Ultra's documented fees differ by them. */
export type MintCategory = 'sol' | 'stable' | 'lst' | 'jup' | 'other';

/** The mints every part of jup-keeper knows by name (real mainnet addresses). */
export const KNOWN_MINTS: readonly KnownMint[] = Object.freeze([
  { symbol: 'SOL', mint: 'So11111111111111111111111111111111111111112', decimals: 9, name: 'Wrapped SOL', category: 'sol' },
  { symbol: 'USDC', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', decimals: 6, name: 'USD Coin', category: 'stable' },
  { symbol: 'USDT', mint: 'Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB', decimals: 6, name: 'USDT', category: 'stable' },
  { symbol: 'JupUSD', mint: 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD', decimals: 6, name: 'Jupiter USD', category: 'stable' },
  { symbol: 'JUP', mint: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', decimals: 6, name: 'Jupiter', category: 'jup' },
  { symbol: 'BONK', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263', decimals: 5, name: 'Bonk', category: 'other' },
  { symbol: 'JLP', mint: '27G8MtK7VtTcCHkpASjSDdkWWYfoqT6ggEuKidVJidD4', decimals: 6, name: 'Jupiter Perps LP', category: 'jup' },
  { symbol: 'jupSOL', mint: 'jupSoLaHXQiZZTSfEWMTRRgpnyFm8f6sZdosWBjx93v', decimals: 9, name: 'Jupiter Staked SOL', category: 'lst' },
  { symbol: 'mSOL', mint: 'mSoLzYCxHdYgdzU16g5QSh3i5K3z3KZK7ytfqcJm7So', decimals: 9, name: 'Marinade staked SOL', category: 'lst' },
  { symbol: 'WIF', mint: 'EKpQGSJtjMFqKZ9KQanSqYXRcF8fBopzLHYxdM65zcjm', decimals: 6, name: 'dogwifhat', category: 'other' },
  { symbol: 'PYTH', mint: 'HZ1JovNiVvGrGNiiYvEozEVgZ58xaU3RKwX8eACQBCt3', decimals: 6, name: 'Pyth Network', category: 'other' },
  { symbol: 'RAY', mint: '4k3Dyjzvzp8eMZWUXbBCjEvwSkkk59S5iCNLY3QrkX6R', decimals: 6, name: 'Raydium', category: 'other' },
]);

/** Mint address of wrapped SOL. */
export const WSOL_MINT = 'So11111111111111111111111111111111111111112';
/** Mint address of USDC. */
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
/** Mint address of JupUSD. */
export const JUPUSD_MINT = 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD';

const BY_SYMBOL = new Map(KNOWN_MINTS.map((m) => [m.symbol.toUpperCase(), m]));
const BY_MINT = new Map(KNOWN_MINTS.map((m) => [m.mint, m]));

/** The known mint for a symbol (case-insensitive; `WSOL` is SOL), or undefined. */
export function knownBySymbol(symbol: string): KnownMint | undefined {
  const key = symbol.toUpperCase();
  return BY_SYMBOL.get(key === 'WSOL' ? 'SOL' : key);
}

/** The known mint record of an address, or undefined. */
export function knownByMint(mint: string): KnownMint | undefined {
  return BY_MINT.get(mint);
}
