import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import { tokenProgramId, type SimToken, type TokenCategory } from '../catalog.js';
import type { Venue } from '../venue.js';
import { LONG_INTERVALS, STAT_INTERVALS, priceChangePct, priceValue, round, swapStats, volumeOf, type StatInterval, type SwapStats } from './tokenStats.js';

const DAY = 86_400_000;
/**
 * The Tokens and Price APIs report this creation date for tokens that predate them (observed on SOL and USDC in
 * price.yaml's example); anything created earlier is clamped to it. `firstPool.createdAt` keeps the real date.
 */
const API_EPOCH_MS = Date.parse('2024-06-05T08:55:25.527Z');

/** Fully diluted value as a multiple of liquidity, and the circulating share of supply, by category. */
const FDV_PER_LIQUIDITY: Record<TokenCategory, number> = { sol: 160, stable: 20, lst: 8, jup: 15, bluechip: 25, meme: 40, new: 6 };
const CIRCULATING: Record<TokenCategory, number> = { sol: 0.85, stable: 1, lst: 1, jup: 0.47, bluechip: 0.55, meme: 0.93, new: 1 };
const ISSUERS: Record<string, string> = { USDC: 'Circle', USDT: 'Tether', PYUSD: 'Paxos', JupUSD: 'Jupiter' };
const MAJOR_CEXES = ['Binance', 'Bybit', 'OKX', 'Coinbase', 'Kraken', 'Bitget'];
const CEXES: Record<string, string[]> = {
  SOL: MAJOR_CEXES,
  USDC: MAJOR_CEXES,
  USDT: MAJOR_CEXES,
  JUP: ['Binance', 'Bybit', 'OKX', 'Bitget'],
  BONK: ['Binance', 'Bybit', 'OKX', 'Coinbase'],
  WIF: ['Binance', 'Bybit', 'OKX'],
  PYTH: ['Binance', 'Bybit', 'OKX', 'Coinbase'],
  RAY: ['Binance', 'Bybit', 'OKX'],
  PYUSD: ['Coinbase', 'Kraken'],
};

/** Tokens V2's MintInformation (jupiter-api.md §4) as the simulator serves it, with the observed extras. */
export interface MintInformation {
  id: string;
  name: string;
  symbol: string;
  icon: string;
  decimals: number;
  tokenProgram: string;
  createdAt: string;
  dev?: string;
  mintAuthority?: string;
  freezeAuthority?: string;
  circSupply: number;
  totalSupply: number;
  launchpad?: string;
  holderCount: number;
  fdv: number | null;
  mcap: number | null;
  usdPrice: number | null;
  priceBlockId: number;
  liquidity: number;
  stats5m: SwapStats;
  stats1h: SwapStats;
  stats6h: SwapStats;
  stats24h: SwapStats;
  firstPool: { id: string; createdAt: string };
  audit: { isSus?: boolean; mintAuthorityDisabled: boolean; freezeAuthorityDisabled: boolean; topHoldersPercentage: number; devBalancePercentage?: number; devMints?: number };
  organicScore: number;
  organicScoreLabel: 'high' | 'medium' | 'low';
  isVerified: boolean;
  tags: string[];
  updatedAt: string;
  ctLikes: number;
  smartCtLikes: number;
  cexes: string[];
}

/** Ultra's search result: MintInformation plus issuer, fees (USD, last 24 h) and the 7-day and 30-day price change. */
export interface UltraMintInformation extends MintInformation {
  issuer: string | null;
  fees: number;
  stats7d: { priceChange: number | null };
  stats30d: { priceChange: number | null };
}

/** ISO timestamp of a unix ms time, as the service writes dates ("2024-06-05T08:55:25.527Z"). */
export function isoMs(ms: number): string {
  return new Date(Math.floor(ms)).toISOString();
}

/** ISO timestamp with nanosecond digits, as `updatedAt` is written ("2025-05-05T21:55:22.173401082Z"). */
function isoNanos(ms: number): string {
  const subMs = Math.floor((ms - Math.floor(ms)) * 1_000_000);
  return `${isoMs(ms).slice(0, -1)}${String(subMs).padStart(6, '0')}Z`;
}

/** A stable base58 address derived from a label (pools, dev wallets): the same on every run. */
function derivedAddress(label: string): string {
  return bs58.encode(createHash('sha256').update(`jup-keeper-sim:${label}`).digest());
}

/** Unix ms when the token was created on chain (before the simulator's start by its catalog age). */
export function tokenBirthMs(venue: Venue, token: SimToken): number {
  return venue.clock.startMs - token.ageMs;
}

/** The `createdAt` the APIs report: the creation time, clamped to the API's epoch for older tokens. */
export function reportedCreatedAt(venue: Venue, token: SimToken): string {
  return isoMs(Math.max(tokenBirthMs(venue, token), Math.min(API_EPOCH_MS, venue.clock.startMs)));
}

/** Unix ms when the token's first pool opened: shortly after its creation. */
export function firstPoolMs(venue: Venue, token: SimToken): number {
  return tokenBirthMs(venue, token) + Math.min(token.ageMs * 0.02, 6 * 3_600_000);
}

/** Whether the token is younger than 24 h of simulated time (NEW_LISTING, the new-token fee tier). */
export function isNewListing(venue: Venue, token: SimToken): boolean {
  return venue.clock.now() - tokenBirthMs(venue, token) < DAY;
}

/** `high`, `medium` or `low`, from the 0-100 organic score. */
export function organicScoreLabel(score: number): 'high' | 'medium' | 'low' {
  return score >= 70 ? 'high' : score >= 30 ? 'medium' : 'low';
}

/** Share of supply held by the top holders, 0-100: concentrated for tokens with few holders. */
export function topHoldersPercentage(token: SimToken): number {
  return round(Math.min(95, Math.max(5, 95 - 12 * Math.log10(Math.max(1, token.holderCount)))), 4);
}

/** Total supply in UI units: sized so the fully diluted value at the catalog price is a multiple of liquidity. */
function totalSupplyOf(token: SimToken): number {
  return round((token.liquidityUsd * FDV_PER_LIQUIDITY[token.category]) / token.usd, 2);
}

/** Stats of every Tokens V2 interval, computed once per object. */
function allStats(venue: Venue, token: SimToken): Record<StatInterval, SwapStats> {
  const out = {} as Record<StatInterval, SwapStats>;
  for (const interval of Object.keys(STAT_INTERVALS) as StatInterval[]) out[interval] = swapStats(venue, token, interval);
  return out;
}

/** A listed token as Tokens V2 returns it, with the live price and the stats at the current simulated time. */
export function mintInformation(venue: Venue, token: SimToken): MintInformation {
  const live = venue.prices.usd(token.mint);
  const usd = live === undefined ? null : priceValue(live);
  const totalSupply = totalSupplyOf(token);
  const circSupply = round(totalSupply * CIRCULATING[token.category], 2);
  const stats = allStats(venue, token);
  const authority = venue.authority.publicKey.toBase58();
  const flaggedDev = !token.verified;
  const likes = Math.round(Math.log10(Math.max(1, token.holderCount)) * 3 * (token.organicScore / 100));
  return {
    id: token.mint,
    name: token.name,
    symbol: token.symbol,
    icon: `https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/${token.mint}/logo.png`,
    decimals: token.decimals,
    tokenProgram: tokenProgramId(token),
    createdAt: reportedCreatedAt(venue, token),
    ...(flaggedDev ? { dev: derivedAddress(`dev:${token.mint}`) } : {}),
    ...(token.mintAuthority ? { mintAuthority: authority } : {}),
    ...(token.freezeAuthority ? { freezeAuthority: authority } : {}),
    circSupply,
    totalSupply,
    ...(token.tags.includes('pump') ? { launchpad: 'pump.fun' } : {}),
    holderCount: token.holderCount,
    fdv: usd === null ? null : round(totalSupply * usd, 2),
    mcap: usd === null ? null : round(circSupply * usd, 2),
    usdPrice: usd,
    priceBlockId: Number(venue.clock.slot()),
    liquidity: token.liquidityUsd,
    stats5m: stats['5m'],
    stats1h: stats['1h'],
    stats6h: stats['6h'],
    stats24h: stats['24h'],
    firstPool: { id: derivedAddress(`pool:${token.mint}`), createdAt: isoMs(firstPoolMs(venue, token)).replace(/\.\d{3}Z$/, 'Z') },
    audit: {
      ...(!token.verified && token.organicScore < 10 ? { isSus: true } : {}),
      mintAuthorityDisabled: !token.mintAuthority,
      freezeAuthorityDisabled: !token.freezeAuthority,
      topHoldersPercentage: topHoldersPercentage(token),
      ...(flaggedDev ? { devBalancePercentage: round(topHoldersPercentage(token) / 6, 4), devMints: token.category === 'new' ? 1 : 3 } : {}),
    },
    organicScore: token.organicScore,
    organicScoreLabel: organicScoreLabel(token.organicScore),
    isVerified: token.verified,
    tags: [...token.tags],
    updatedAt: isoNanos(venue.clock.now()),
    ctLikes: likes,
    smartCtLikes: Math.floor(likes / 4),
    cexes: [...(CEXES[token.symbol] ?? [])],
  };
}

/** The Ultra `/search` variant: MintInformation plus issuer, 24 h fees (USD) and the 7-day and 30-day price change. */
export function ultraMintInformation(venue: Venue, token: SimToken): UltraMintInformation {
  const info = mintInformation(venue, token);
  return {
    ...info,
    issuer: ISSUERS[token.symbol] ?? null,
    // About 10 bps of the day's volume: Ultra's fee on a typical pair (the market's own fee tiers are in quote.ts).
    fees: round(volumeOf(info.stats24h) * 0.001, 2),
    stats7d: { priceChange: priceChangePct(venue, token, LONG_INTERVALS['7d']) },
    stats30d: { priceChange: priceChangePct(venue, token, LONG_INTERVALS['30d']) },
  };
}

/** One Shield warning (jupiter-api.md §1.4). */
export interface ShieldWarning {
  type: string;
  message: string;
  severity: 'info' | 'warning' | 'critical';
}

/** Liquidity below this many USD gets LOW_LIQUIDITY. */
const LOW_LIQUIDITY_USD = 100_000;

/**
 * Shield warnings of a listed token, from its catalog facts (what the real mint has, not the simulator's own
 * authority over it). Messages are the service's where the docs show them. A clean token gets `[]`.
 */
export function shieldWarnings(venue: Venue, token: SimToken): ShieldWarning[] {
  const out: ShieldWarning[] = [];
  if (!token.verified) out.push({ type: 'NOT_VERIFIED', message: 'This token is not verified, make sure the mint address is correct before trading', severity: 'info' });
  if (token.liquidityUsd < LOW_LIQUIDITY_USD) out.push({ type: 'LOW_LIQUIDITY', message: 'This token has low liquidity', severity: 'warning' });
  if (organicScoreLabel(token.organicScore) === 'low') out.push({ type: 'LOW_ORGANIC_ACTIVITY', message: 'This token has low organic activity', severity: 'info' });
  if (isNewListing(venue, token)) out.push({ type: 'NEW_LISTING', message: 'This token is newly listed', severity: 'info' });
  if (!token.verified && topHoldersPercentage(token) >= 60) {
    out.push({ type: 'HIGH_SUPPLY_CONCENTRATION', message: 'The top holders own a large share of the supply', severity: 'warning' });
  }
  if (token.freezeAuthority) {
    out.push({ type: 'HAS_FREEZE_AUTHORITY', message: "The authority's owner has the ability to freeze your token account, preventing you from further trading", severity: 'warning' });
  }
  if (token.mintAuthority) out.push({ type: 'HAS_MINT_AUTHORITY', message: "The authority's owner has the ability to mint more tokens", severity: 'info' });
  if (token.suspiciousDev) out.push({ type: 'SUSPICIOUS_DEV_ACTIVITY', message: "The developer's wallet shows suspicious activity", severity: 'critical' });
  return out;
}
