import { WSOL_MINT } from '../lib/mints.js';
import type { MarketData, PredictionData, WalletData } from './ports.js';

/** The wallet's value at feed prices, and what could not be valued. */
export interface WalletValue {
  usd: number;
  /** Mints held (in the wallet, an order or a deposit) that the feed has no price for: left out of `usd`. */
  unpriced: string[];
}

/**
 * What the wallet is worth at the feed's prices: SOL, token holdings, what rests in its trigger and recurring
 * orders, and its prediction positions (a settled winner at $1 a contract, an open one at the price it could be sold
 * at now, else at its cost, a loser at nothing). A product's share token (a Lend Earn deposit's jlTokens) is worth
 * the underlying the chain says its shares are (`wallet.shareTokens`) at the underlying's price; what the venue's
 * lend API says they are worth (`wallet.lend`) is not counted. A mint without a price is named, not guessed: a
 * sudden gap in the feed must not read as a loss.
 */
export function walletValueUsd(market: MarketData, wallet: WalletData, prediction?: PredictionData): WalletValue {
  const unpriced = new Set<string>();
  let usd = 0;
  const add = (mint: string, amount: bigint, named = mint) => {
    if (amount <= 0n) return;
    const p = market.prices[mint];
    if (!p || !(p.usd > 0)) {
      unpriced.add(named);
      return;
    }
    usd += (Number(amount) / 10 ** p.decimals) * p.usd;
  };
  const shares = new Map(wallet.shareTokens?.map((s) => [s.mint, s]));
  add(WSOL_MINT, wallet.lamports);
  for (const h of wallet.holdings) {
    const share = shares.get(h.mint);
    // Valued at the underlying's price, or named (the share token held) when the underlying has none.
    if (share) add(share.asset, share.underlyingAssets, h.mint);
    else add(h.mint, h.amount);
  }
  for (const o of wallet.trigger) add(o.inputMint, o.remainingMakingAmount);
  for (const o of wallet.recurring) add(o.inputMint, o.inDeposited - o.inUsed);
  const markets = new Map(prediction?.events.flatMap((e) => e.markets.map((m) => [m.marketId, m] as const)) ?? []);
  for (const p of wallet.prediction) {
    if (p.claimed) continue;
    const m = markets.get(p.marketId);
    const won = m?.result ? (m.result === 'yes') === p.isYes : undefined;
    const bid = m && (p.isYes ? m.sellYesMicroUsd : m.sellNoMicroUsd);
    const perContract = p.claimable || won === true ? 1_000_000n : won === false ? 0n : (bid ?? p.avgPriceMicroUsd ?? 0n);
    usd += Number((p.contractsMicro * perContract) / 1_000_000n) / 1e6;
  }
  return { usd, unpriced: [...unpriced].sort() };
}

/**
 * The wallet's value at start: once the feeds have read this wallet and the market after the start (`since`), its
 * value at feed prices; undefined until then (a snapshot of an earlier start, or of another wallet, is not it).
 */
export async function valueAtStart(snapshots: { read(name: 'market'): Promise<MarketData | undefined>; read(name: 'wallet'): Promise<WalletData | undefined>; read(name: 'prediction'): Promise<PredictionData | undefined> }, address: string, since: number): Promise<number | undefined> {
  const [market, wallet, prediction] = await Promise.all([snapshots.read('market'), snapshots.read('wallet'), snapshots.read('prediction')]);
  return market && wallet && wallet.address === address && wallet.at >= since && market.at >= since ? walletValueUsd(market, wallet, prediction).usd : undefined;
}
