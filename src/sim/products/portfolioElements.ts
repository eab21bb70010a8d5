import { PublicKey } from '@solana/web3.js';
import { MintLayout } from '@solana/spl-token';
import type { Venue } from '../venue.js';

/*
 * The element and asset shapes of the Portfolio API (openapi/portfolio.yaml, Sonar Watch's model): USD values and
 * token quantities are floats (UI units), a value the venue cannot price is null, times are ms.
 */

/** Token metadata of the response's `tokenInfo.solana` map. */
export interface PortfolioTokenInfo {
  address: string;
  name: string;
  decimals: number;
  symbol: string;
  logoURI?: string;
  tags?: string[];
}

/** A `token` asset (PortfolioAssetToken). */
export interface TokenAsset {
  networkId: 'solana';
  type: 'token';
  value: number | null;
  attributes: Record<string, unknown>;
  name?: string;
  data: { address: string; amount: number; price: number | null; yields?: Array<{ apr: number; apy: number }> };
}

/** A `generic` asset (PortfolioAssetGeneric): a holding that is no token, e.g. prediction contracts. */
export interface GenericAsset {
  networkId: 'solana';
  type: 'generic';
  value: number | null;
  attributes: Record<string, unknown>;
  name?: string;
  ref?: string;
  sourceRefs?: Array<{ name: string; address: string }>;
  link?: string;
  /** `amount` in the asset's own units (contracts), `price` in USD per unit (null when unknown). */
  data: { address?: string; amount?: number; price?: number | null };
}

/** A portfolio element: the fields every type has, and its type's `data`. */
export interface PortfolioElementJson {
  networkId: 'solana';
  platformId: string;
  type: 'multiple' | 'borrowlend' | 'trade';
  label: string;
  name?: string;
  value: number | null;
  netApy?: number;
  data: Record<string, unknown>;
}

/**
 * Prices and token metadata for one portfolio computation: every mint an element mentions is recorded for the
 * response's `tokenInfo`. A mint the venue does not list is described from its mint account on chain.
 */
export class AssetPricer {
  readonly tokenInfo: Record<string, PortfolioTokenInfo> = {};

  constructor(private readonly venue: Venue) {}

  /** A token asset of `raw` base units of `mint`, valued at the venue's price (null when it has none). */
  asset(mint: string, raw: bigint, extra: { yields?: Array<{ apr: number; apy: number }> } = {}): TokenAsset {
    const info = this.info(mint);
    const amount = Number(raw) / 10 ** info.decimals;
    const price = this.price(mint);
    return {
      networkId: 'solana',
      type: 'token',
      value: price === null ? null : amount * price,
      attributes: {},
      name: info.symbol,
      data: { address: mint, amount, price, ...(extra.yields ? { yields: extra.yields } : {}) },
    };
  }

  /** UI units of `raw` base units of `mint`. */
  ui(mint: string, raw: bigint): number {
    return Number(raw) / 10 ** this.info(mint).decimals;
  }

  /** USD per whole token, or null when the venue cannot price it. */
  price(mint: string): number | null {
    return this.venue.prices.usd(mint) ?? null;
  }

  /** The token's metadata (recorded for `tokenInfo`). */
  info(mint: string): PortfolioTokenInfo {
    const known = this.tokenInfo[mint];
    if (known) return known;
    const token = this.venue.token(mint);
    const info: PortfolioTokenInfo = token
      ? { address: mint, name: token.name, decimals: token.decimals, symbol: token.symbol, logoURI: `https://raw.githubusercontent.com/solana-labs/token-list/main/assets/mainnet/${mint}/logo.png`, tags: token.tags }
      : { address: mint, name: mint.slice(0, 8), decimals: this.chainDecimals(mint), symbol: mint.slice(0, 4) };
    this.tokenInfo[mint] = info;
    return info;
  }

  private chainDecimals(mint: string): number {
    const acc = this.venue.chain.account(new PublicKey(mint));
    return acc && acc.data.length >= MintLayout.span ? MintLayout.decode(Buffer.from(acc.data)).decimals : 0;
  }
}

/** The sum of values, null when any is unknown (a total that leaves something out would mislead). */
export function totalValue(values: ReadonlyArray<number | null>): number | null {
  let total = 0;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

/** A yearly rate as a fraction (0.0423) with its daily-compounded APY, as Sonar reports yields. */
export function yieldOf(apr: number): { apr: number; apy: number } {
  return { apr, apy: (1 + apr / 365) ** 365 - 1 };
}

/** A `multiple` element labelled `Wallet`: the wallet's own holdings. */
export function walletElement(assets: TokenAsset[]): PortfolioElementJson {
  return { networkId: 'solana', platformId: 'wallet-tokens', type: 'multiple', label: 'Wallet', value: totalValue(assets.map((a) => a.value)), data: { assets } };
}

/** Terms of a `trade` element (an open limit or DCA order); amounts in base units, times in ms. */
export interface TradeTerms {
  label: 'LimitOrder' | 'DCA';
  name: string;
  order: string;
  program: string;
  link: string;
  inputMint: string;
  outputMint: string;
  /** What the order still holds of the input, and of the output not yet paid out. */
  inputHeld: bigint;
  outputHeld: bigint;
  initialInput: bigint;
  withdrawnOutput: bigint;
  expectedOutput?: bigint;
  filled: number;
  createdAtMs: number;
  expireAtMs?: number;
  recurring?: { cycles: number; interval: number };
}

/** A `trade` element (PortfolioElementTrade) for an open order of the jupiter-exchange platform. */
export function tradeElement(p: AssetPricer, t: TradeTerms): PortfolioElementJson {
  const input = t.inputHeld > 0n ? p.asset(t.inputMint, t.inputHeld) : null;
  const output = t.outputHeld > 0n ? p.asset(t.outputMint, t.outputHeld) : null;
  const value = totalValue([input?.value ?? 0, output?.value ?? 0]);
  return {
    networkId: 'solana',
    platformId: 'jupiter-exchange',
    type: 'trade',
    label: t.label,
    name: t.name,
    value,
    data: {
      assets: { input, output },
      inputAddress: t.inputMint,
      outputAddress: t.outputMint,
      initialInputAmount: p.ui(t.inputMint, t.initialInput),
      withdrawnOutputAmount: p.ui(t.outputMint, t.withdrawnOutput),
      ...(t.expectedOutput !== undefined ? { expectedOutputAmount: p.ui(t.outputMint, t.expectedOutput) } : {}),
      inputPrice: p.price(t.inputMint),
      outputPrice: p.price(t.outputMint),
      filledPercentage: t.filled,
      createdAt: t.createdAtMs,
      ...(t.expireAtMs !== undefined ? { expireAt: t.expireAtMs } : {}),
      ...(t.recurring ? { recurring: t.recurring } : {}),
      contract: t.program,
      ref: t.order,
      sourceRefs: [{ name: 'Program', address: t.program }],
      link: t.link,
    },
  };
}
