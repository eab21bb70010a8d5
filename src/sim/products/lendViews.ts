import { PublicKey } from '@solana/web3.js';
import type { Venue } from '../venue.js';
import type { LendMarket } from './lendMarkets.js';

/*
 * The read shapes of Lend Earn, as observed responses send them (jupiter-api.md §7 and §13.4): camelCase asset keys,
 * amounts and rates as strings (rates on the 1e4 scale), integer lending ids, conversion rates scaled by the
 * token's decimals, `rewards: []`.
 */

/** How much a vault lets out at once, as `liquiditySupplyData` reports it (the liquidity layer's expansion rule). */
const WITHDRAWAL_EXPAND_PERCENT = 2000;
const WITHDRAWAL_EXPAND_SECONDS = '43200';

/** One element of GET /lend/v1/earn/tokens (and each position's `token`) at `nowMs`. */
export function tokenInfoJson(venue: Venue, market: LendMarket, nowMs: number): Record<string, unknown> {
  const supply = market.supply();
  const totalAssets = market.totalAssets(nowMs);
  const vault = market.vaultBalance();
  const unit = 10n ** BigInt(market.decimals);
  const price = venue.prices.usd(market.asset.mint);
  return {
    id: market.lendingId,
    address: market.jlMint,
    name: market.name,
    symbol: market.symbol,
    decimals: market.decimals,
    assetAddress: market.asset.mint,
    asset: {
      address: market.asset.mint,
      chainId: 'solana',
      name: market.asset.name,
      symbol: market.asset.symbol,
      decimals: market.asset.decimals,
      logoUrl: `https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/${market.asset.mint}/logo.png`,
      price: price === undefined ? '0' : priceString(price),
      coingeckoId: market.coingeckoId,
      updatedAt: new Date(nowMs).toISOString(),
    },
    totalAssets: totalAssets.toString(),
    totalSupply: supply.toString(),
    // One whole underlying token in jlTokens and one whole jlToken in the underlying, in base units.
    convertToShares: (supply === 0n || totalAssets === 0n ? unit : (unit * supply) / totalAssets).toString(),
    convertToAssets: (supply === 0n ? unit : (unit * totalAssets) / supply).toString(),
    rewardsRate: String(market.rewardsRateBps),
    supplyRate: String(market.supplyRateBps),
    totalRate: String(market.totalRateBps),
    // The vault against what its jlTokens are worth: negative by the interest owed and not yet paid in.
    rebalanceDifference: (vault - totalAssets).toString(),
    liquiditySupplyData: {
      modeWithInterest: true,
      supply: vault.toString(),
      withdrawalLimit: '0',
      lastUpdateTimestamp: String(Math.floor(market.lastUpdateMs / 1000)),
      expandPercent: WITHDRAWAL_EXPAND_PERCENT,
      expandDuration: WITHDRAWAL_EXPAND_SECONDS,
      baseWithdrawalLimit: '0',
      withdrawableUntilLimit: vault.toString(),
      withdrawable: vault.toString(),
    },
    rewards: [],
  };
}

/**
 * One element of GET /lend/v1/earn/positions: a wallet's jlTokens in a market and what they are worth, and its
 * balance of the underlying (`underlyingBalance`; lamports for SOL, since the venue takes deposits from native SOL).
 * `allowance` is an EVM notion the Solana service still sends: here, all of the wallet's balance.
 */
export function positionJson(venue: Venue, market: LendMarket, owner: string, nowMs: number, token: Record<string, unknown>): Record<string, unknown> {
  const wallet = new PublicKey(owner);
  const shares = market.sharesOf(wallet);
  const balance = venue.balance(wallet, market.asset.mint);
  return {
    token,
    ownerAddress: owner,
    shares: shares.toString(),
    underlyingAssets: market.assetsFor(shares, nowMs).toString(),
    underlyingBalance: balance.toString(),
    allowance: balance.toString(),
  };
}

/**
 * One element of GET /lend/v1/earn/earnings: the documented `{address, ownerAddress, earnings, slot}` (earnings a
 * number, base units of the asset) with the totals a third-party client reads besides (strings): deposited,
 * withdrawn, the net principal still in (`totalBalance`) and what the position is worth now (`totalAssets`).
 */
export function earningJson(market: LendMarket, owner: string, nowMs: number, slot: bigint): Record<string, unknown> {
  const book = market.books.get(owner) ?? { deposited: 0n, withdrawn: 0n };
  const worth = market.assetsFor(market.sharesOf(new PublicKey(owner)), nowMs);
  const earnings = worth + book.withdrawn - book.deposited;
  return {
    address: market.jlMint,
    ownerAddress: owner,
    totalDeposits: book.deposited.toString(),
    totalWithdraws: book.withdrawn.toString(),
    totalBalance: (book.deposited - book.withdrawn).toString(),
    totalAssets: worth.toString(),
    earnings: Number(earnings),
    slot: Number(slot),
  };
}

/** A USD price as the listing writes it: a decimal string with at most 12 decimals ("0.999779333214"). */
function priceString(usd: number): string {
  return usd.toFixed(12).replace(/0+$/, '').replace(/\.$/, '');
}
