import { Keypair } from '@solana/web3.js';
import { KNOWN_MINTS } from '../lib/mints.js';
import { seedBytes } from './rng.js';

/** SPL Token program id. */
export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
/** Token-2022 program id. */
export const TOKEN_2022_PROGRAM = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';

/** How a token trades: drives its fee tier, volatility and peg. */
export type TokenCategory = 'sol' | 'stable' | 'lst' | 'jup' | 'bluechip' | 'meme' | 'new';

/** One token the simulator lists. */
export interface SimToken {
  symbol: string;
  name: string;
  mint: string;
  decimals: number;
  program: 'token' | 'token2022';
  category: TokenCategory;
  /** Starting USD price. */
  usd: number;
  /** Standard deviation of the daily log return (0.04 = 4 % a day). Pegged tokens use their peg's walk. */
  dailyVol: number;
  /** An LST's price is its peg's price times this ratio. */
  peg?: { symbol: string; ratio: number };
  /** Depth of the book in USD; price impact of a trade of size x is x / (x + liquidity). */
  liquidityUsd: number;
  /** ms before the simulator's start when the token was created (drives the < 24 h fee tier and NEW_LISTING). */
  ageMs: number;
  verified: boolean;
  organicScore: number;
  holderCount: number;
  tags: string[];
  /** Whether a mint / freeze authority is set (shield warnings). */
  mintAuthority: boolean;
  freezeAuthority: boolean;
  /** RugCheck flags its developer's wallet (a critical SUSPICIOUS_DEV_ACTIVITY warning). */
  suspiciousDev?: boolean;
}

const DAY = 86_400_000;
const YEAR = 365 * DAY;

type Profile = Omit<SimToken, 'symbol' | 'name' | 'mint' | 'decimals'>;

const PROFILES: Record<string, Profile> = {
  SOL: { program: 'token', category: 'sol', usd: 180, dailyVol: 0.04, liquidityUsd: 600_000_000, ageMs: 5 * YEAR, verified: true, organicScore: 99, holderCount: 3_800_000, tags: ['verified', 'strict'], mintAuthority: false, freezeAuthority: false },
  USDC: { program: 'token', category: 'stable', usd: 1, dailyVol: 0.0004, liquidityUsd: 500_000_000, ageMs: 5 * YEAR, verified: true, organicScore: 100, holderCount: 4_200_000, tags: ['verified', 'strict', 'community'], mintAuthority: true, freezeAuthority: true },
  USDT: { program: 'token', category: 'stable', usd: 1, dailyVol: 0.0005, liquidityUsd: 200_000_000, ageMs: 5 * YEAR, verified: true, organicScore: 97, holderCount: 2_100_000, tags: ['verified', 'strict'], mintAuthority: true, freezeAuthority: true },
  JupUSD: { program: 'token', category: 'stable', usd: 1, dailyVol: 0.0004, liquidityUsd: 80_000_000, ageMs: YEAR, verified: true, organicScore: 92, holderCount: 210_000, tags: ['verified'], mintAuthority: true, freezeAuthority: false },
  JUP: { program: 'token', category: 'jup', usd: 0.9, dailyVol: 0.06, liquidityUsd: 60_000_000, ageMs: 3 * YEAR, verified: true, organicScore: 96, holderCount: 900_000, tags: ['verified', 'strict'], mintAuthority: false, freezeAuthority: false },
  BONK: { program: 'token', category: 'meme', usd: 0.00002, dailyVol: 0.08, liquidityUsd: 40_000_000, ageMs: 4 * YEAR, verified: true, organicScore: 94, holderCount: 950_000, tags: ['verified', 'community'], mintAuthority: false, freezeAuthority: false },
  JLP: { program: 'token', category: 'jup', usd: 4.5, dailyVol: 0.02, liquidityUsd: 90_000_000, ageMs: 3 * YEAR, verified: true, organicScore: 90, holderCount: 120_000, tags: ['verified'], mintAuthority: true, freezeAuthority: false },
  jupSOL: { program: 'token', category: 'jup', usd: 195, dailyVol: 0, peg: { symbol: 'SOL', ratio: 1.083 }, liquidityUsd: 120_000_000, ageMs: 2 * YEAR, verified: true, organicScore: 93, holderCount: 80_000, tags: ['verified', 'lst'], mintAuthority: true, freezeAuthority: false },
  mSOL: { program: 'token', category: 'lst', usd: 214, dailyVol: 0, peg: { symbol: 'SOL', ratio: 1.19 }, liquidityUsd: 100_000_000, ageMs: 4 * YEAR, verified: true, organicScore: 91, holderCount: 160_000, tags: ['verified', 'lst'], mintAuthority: true, freezeAuthority: false },
  WIF: { program: 'token', category: 'meme', usd: 1.2, dailyVol: 0.09, liquidityUsd: 25_000_000, ageMs: 3 * YEAR, verified: true, organicScore: 90, holderCount: 220_000, tags: ['verified', 'community'], mintAuthority: false, freezeAuthority: false },
  PYTH: { program: 'token', category: 'bluechip', usd: 0.2, dailyVol: 0.05, liquidityUsd: 15_000_000, ageMs: 3 * YEAR, verified: true, organicScore: 88, holderCount: 300_000, tags: ['verified'], mintAuthority: false, freezeAuthority: false },
  RAY: { program: 'token', category: 'bluechip', usd: 2.5, dailyVol: 0.05, liquidityUsd: 20_000_000, ageMs: 5 * YEAR, verified: true, organicScore: 89, holderCount: 250_000, tags: ['verified'], mintAuthority: false, freezeAuthority: false },
};

/**
 * Tokens the simulator adds beyond the well-known list: a Token-2022 stable, a risky token, a new listing, a verified
 * meme token outside the well-known list (POPCAT, real mainnet mint), and copycats listed after them as the real list
 * has them: an unverified "POPCAT", and a second unverified "NEWT" launch (a symbol two tokens share with neither
 * verified, which nothing can pick between).
 */
function extraTokens(): SimToken[] {
  const addr = (label: string): string => Keypair.fromSeed(seedBytes(`mint:${label}`)).publicKey.toBase58();
  return [
    { symbol: 'PYUSD', name: 'PayPal USD', mint: '2b1kV6DkPAnxd5ixfnxCpjxmKwqjjaYmCZfHsFu24GXo', decimals: 6, program: 'token2022', category: 'stable', usd: 1, dailyVol: 0.0005, liquidityUsd: 30_000_000, ageMs: 2 * YEAR, verified: true, organicScore: 85, holderCount: 40_000, tags: ['verified', 'token-2022'], mintAuthority: true, freezeAuthority: true },
    { symbol: 'RISK', name: 'Rugpull Risk', mint: addr('RISK'), decimals: 6, program: 'token', category: 'meme', usd: 0.004, dailyVol: 0.25, liquidityUsd: 40_000, ageMs: 20 * DAY, verified: false, organicScore: 8, holderCount: 310, tags: [], mintAuthority: true, freezeAuthority: true, suspiciousDev: true },
    { symbol: 'NEWT', name: 'Newt Launch', mint: addr('NEWT'), decimals: 6, program: 'token', category: 'new', usd: 0.0008, dailyVol: 0.4, liquidityUsd: 150_000, ageMs: 3 * 3_600_000, verified: false, organicScore: 35, holderCount: 1_250, tags: ['pump'], mintAuthority: false, freezeAuthority: false },
    { symbol: 'POPCAT', name: 'Popcat', mint: '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr', decimals: 9, program: 'token', category: 'meme', usd: 0.3, dailyVol: 0.1, liquidityUsd: 6_000_000, ageMs: 2 * YEAR, verified: true, organicScore: 86, holderCount: 140_000, tags: ['verified', 'community'], mintAuthority: false, freezeAuthority: false },
    // Copycats: listed after the tokens whose symbols they take (Venue.resolveToken keeps the first).
    { symbol: 'POPCAT', name: 'Popcat', mint: addr('POPCAT-copycat'), decimals: 6, program: 'token', category: 'meme', usd: 0.0004, dailyVol: 0.3, liquidityUsd: 9_000, ageMs: 9 * DAY, verified: false, organicScore: 4, holderCount: 160, tags: [], mintAuthority: true, freezeAuthority: true },
    { symbol: 'NEWT', name: 'Newt', mint: addr('NEWT-2'), decimals: 6, program: 'token', category: 'new', usd: 0.0003, dailyVol: 0.4, liquidityUsd: 60_000, ageMs: 5 * 3_600_000, verified: false, organicScore: 21, holderCount: 480, tags: ['pump'], mintAuthority: false, freezeAuthority: false },
  ];
}

/** The simulator's token list: the well-known mints at their real addresses plus the extra test tokens. */
export function buildCatalog(): SimToken[] {
  const known = KNOWN_MINTS.map((k): SimToken => {
    const profile = PROFILES[k.symbol];
    if (!profile) throw new Error(`simulator catalog has no profile for ${k.symbol}`);
    return { symbol: k.symbol, name: k.name, mint: k.mint, decimals: k.decimals, ...profile };
  });
  return [...known, ...extraTokens()];
}

/** Program id of a token's mint. */
export function tokenProgramId(token: SimToken): string {
  return token.program === 'token2022' ? TOKEN_2022_PROGRAM : TOKEN_PROGRAM;
}
