import { PublicKey } from '@solana/web3.js';
import { MintLayout } from '@solana/spl-token';
import { tokenProgramId, type SimToken } from '../catalog.js';
import type { Venue } from '../venue.js';
import { marketAddresses, type LendMarketAddresses } from '../../jupiter/programs/lend.js';

/** A year in ms: rates are yearly. */
export const YEAR_MS = 365 * 86_400_000;

/** What the venue lists in Lend Earn, and at which rates (1e4 scale: basis points of yearly yield). */
export interface LendMarketConfig {
  /** Symbol of the underlying in the simulator's catalog. */
  symbol: string;
  /** The market's lending id (from 1). Guess: the real ids of these markets are not published. */
  lendingId: number;
  /** Supply APR from the liquidity layer, bps. */
  supplyRateBps: number;
  /** Rewards APR, bps. */
  rewardsRateBps: number;
  /** The asset's CoinGecko id, as `asset.coingeckoId` reports it. */
  coingeckoId: string;
}

/**
 * The markets the simulated Earn lists by default. Rates start where observed responses put USDC (supplyRate "313",
 * rewardsRate "110", jupiter-api.md §7); POST /__sim/lend/rate changes them. The jlTokens are the real mints
 * (9BEcn9… jlUSDC, Cmn4v2… jlUSDT, 2uQsyo… jlWSOL), derived from the program's seeds.
 */
export const LEND_MARKETS: readonly LendMarketConfig[] = Object.freeze([
  { symbol: 'USDC', lendingId: 1, supplyRateBps: 313, rewardsRateBps: 110, coingeckoId: 'usd-coin' },
  { symbol: 'USDT', lendingId: 2, supplyRateBps: 290, rewardsRateBps: 0, coingeckoId: 'tether' },
  { symbol: 'SOL', lendingId: 3, supplyRateBps: 520, rewardsRateBps: 0, coingeckoId: 'wrapped-solana' },
  { symbol: 'JupUSD', lendingId: 4, supplyRateBps: 350, rewardsRateBps: 150, coingeckoId: 'jupiter-usd' },
]);

/** A wallet's history in one market, base units of the asset (what the earnings endpoint reports from). */
export interface LendBook {
  deposited: bigint;
  withdrawn: bigint;
}

/** One Earn market of the venue: its token, its jlToken, its addresses, its rates and its accrual state. */
export class LendMarket {
  readonly asset: SimToken;
  readonly addresses: LendMarketAddresses;
  readonly lendingId: number;
  readonly coingeckoId: string;
  /** jlToken symbol: "jl" + the asset's (jlWSOL for SOL, as the real listing names it). */
  readonly symbol: string;
  readonly name: string;
  /** The jlToken has the asset's decimals (the program's `lending.decimals`: "same as ASSET"). */
  readonly decimals: number;
  supplyRateBps: number;
  rewardsRateBps: number;
  /** When interest was last paid into the vault, sim ms. */
  lastUpdateMs: number;
  /** The slot of the last interest payment. */
  lastUpdateSlot = -1n;
  /** The exchange price as of the last update (1e12 precision), what the `lending` account stores. */
  exchangePrice = 1_000_000_000_000n;
  /** Per wallet: deposited and withdrawn, base units of the asset. */
  readonly books = new Map<string, LendBook>();

  constructor(
    private readonly venue: Venue,
    asset: SimToken,
    config: LendMarketConfig,
    nowMs: number,
  ) {
    this.asset = asset;
    this.addresses = marketAddresses(new PublicKey(asset.mint), new PublicKey(tokenProgramId(asset)));
    this.lendingId = config.lendingId;
    this.coingeckoId = config.coingeckoId;
    const underlying = venue.isSol(asset.mint) ? 'WSOL' : asset.symbol;
    this.symbol = `jl${underlying}`;
    this.name = `Jupiter Lend ${underlying}`;
    this.decimals = asset.decimals;
    this.supplyRateBps = config.supplyRateBps;
    this.rewardsRateBps = config.rewardsRateBps;
    this.lastUpdateMs = nowMs;
  }

  /** The jlToken mint, base58. */
  get jlMint(): string {
    return this.addresses.fTokenMint.toBase58();
  }

  /** Supply plus rewards, bps a year: what a depositor earns. */
  get totalRateBps(): number {
    return this.supplyRateBps + this.rewardsRateBps;
  }

  /** What the vault holds now, base units of the asset (wrapped SOL for SOL). */
  vaultBalance(): bigint {
    return this.venue.chain.tokenAccount(this.addresses.vault)?.amount ?? 0n;
  }

  /** jlTokens in circulation, base units. */
  supply(): bigint {
    const acc = this.venue.chain.account(this.addresses.fTokenMint);
    return acc ? MintLayout.decode(Buffer.from(acc.data)).supply : 0n;
  }

  /** A wallet's jlToken balance, base units. */
  sharesOf(wallet: PublicKey): bigint {
    return this.venue.chain.tokenAccount(this.jlAccount(wallet))?.amount ?? 0n;
  }

  /** A wallet's associated jlToken account. */
  jlAccount(wallet: PublicKey): PublicKey {
    return this.venue.ata(wallet, { ...this.asset, mint: this.jlMint });
  }

  /**
   * Interest owed to the vault at `nowMs` and not yet paid into it: the vault's balance at the total rate for the
   * time since the last update (simple within one update period; compounding at each update).
   */
  pendingInterest(nowMs: number): bigint {
    if (this.supply() === 0n || nowMs <= this.lastUpdateMs) return 0n;
    return (this.vaultBalance() * BigInt(this.totalRateBps) * BigInt(Math.floor(nowMs - this.lastUpdateMs))) / (10_000n * BigInt(YEAR_MS));
  }

  /** What all the jlTokens are worth at `nowMs`, interest owed included, base units of the asset. */
  totalAssets(nowMs: number): bigint {
    return this.vaultBalance() + this.pendingInterest(nowMs);
  }

  /** Underlying worth of `shares` at `nowMs` (rounded down, as the program redeems). */
  assetsFor(shares: bigint, nowMs: number): bigint {
    const supply = this.supply();
    return supply === 0n ? shares : (shares * this.totalAssets(nowMs)) / supply;
  }

  /** The wallet's history in this market (created empty). */
  book(wallet: string): LendBook {
    let b = this.books.get(wallet);
    if (!b) {
      b = { deposited: 0n, withdrawn: 0n };
      this.books.set(wallet, b);
    }
    return b;
  }
}
