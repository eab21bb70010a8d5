import { PublicKey } from '@solana/web3.js';
import type { ShareTokenData } from '../engine/ports.js';
import type { JupiterClient } from '../jupiter/client.js';
import type { Logger } from '../lib/logger.js';
import { knownByMint } from '../lib/mints.js';
import type { SolanaRpc } from '../solana/rpc.js';

/** The Earn markets change when one opens: their list is read again this often (ms). */
const LEND_MARKETS_TTL_MS = 10 * 60_000;

/** One Earn market as the lend API lists it, its share mint checked against the program's seeds. */
interface ShareMarket {
  /** The jlToken mint. */
  mint: string;
  symbol: string;
  /** The underlying asset's mint. */
  asset: string;
  /** The market's `lending` account (PDA of the asset). */
  lending: PublicKey;
}

/** What the reader needs: the venue's lend API (which mints are shares), the chain (what they are worth). */
export interface LendShareDeps {
  jup: JupiterClient;
  rpc: SolanaRpc;
  logger: Logger;
  now?: () => number;
}

/**
 * Names and values the Lend Earn share tokens (jlTokens) a wallet holds, from the chain. Which mints are shares, and
 * of which asset, comes from the lend API's token list (cached for LEND_MARKETS_TTL_MS), each pairing held to the
 * program's published seeds (the jlToken is the PDA ["f_token_mint", asset]), so the venue cannot pass another mint
 * off as a share. What a share is worth never comes from the venue's HTTP answers: it is the exchange price the
 * market's `lending` account holds on chain, read once per refresh for all of them (one getMultipleAccounts) and
 * decoded with the Earn IDL, the price the guard holds deposits and withdrawals to (productGuard/lend.ts).
 */
export class LendShareReader {
  private markets: { at: number; byMint: ReadonlyMap<string, ShareMarket> } | undefined;
  private readonly now: () => number;
  /** Lending accounts that did not read as their market's (warned once each). */
  private readonly refused = new Set<string>();

  constructor(private readonly deps: LendShareDeps) {
    this.now = deps.now ?? Date.now;
  }

  /**
   * The share tokens among `holdings` with what they are worth in their asset at the chain's exchange price. A
   * wallet holding only well-known mints asks nothing; a share whose `lending` account does not read as its market
   * is left out (and so stays a token without a price). Throws when the chain cannot be read.
   */
  async read(holdings: ReadonlyArray<{ mint: string; amount: bigint }>): Promise<ShareTokenData[]> {
    const candidates = holdings.filter((h) => h.amount > 0n && !knownByMint(h.mint));
    if (candidates.length === 0) return [];
    const byMint = await this.shareMarkets();
    const held = candidates.flatMap((h) => {
      const market = byMint.get(h.mint);
      return market ? [{ market, shares: h.amount }] : [];
    });
    if (held.length === 0) return [];
    const lend = await import('../jupiter/programs/lend.js');
    const { accounts } = await this.deps.rpc.accountsAt(held.map((h) => h.market.lending));
    return held.flatMap(({ market, shares }, i) => {
      const account = accounts[i];
      const lending = account && account.owner.equals(lend.LEND_PROGRAM) ? lend.decodeLendingAccount(account.data) : undefined;
      const address = market.lending.toBase58();
      if (!lending || lending.mint.toBase58() !== market.asset || lending.fTokenMint.toBase58() !== market.mint || lending.tokenExchangePrice === 0n) {
        if (!this.refused.has(address)) this.deps.logger.warn({ share: market.mint, asset: market.asset, lending: address }, `${market.symbol} is not valued: ${address} holds no Earn lending market of it on chain`);
        this.refused.add(address);
        return [];
      }
      this.refused.delete(address);
      const exchangePrice = lending.tokenExchangePrice;
      return [{ mint: market.mint, symbol: market.symbol, product: 'lend' as const, asset: market.asset, account: address, shares, exchangePrice, underlyingAssets: (shares * exchangePrice) / lend.EXCHANGE_PRICE_PRECISION }];
    });
  }

  /** The Earn markets by share mint: the cached list while fresh, else the lend API's (the stale list if it fails). */
  private async shareMarkets(): Promise<ReadonlyMap<string, ShareMarket>> {
    const cached = this.markets;
    if (cached && this.now() - cached.at < LEND_MARKETS_TTL_MS) return cached.byMint;
    let tokens;
    try {
      tokens = await this.deps.jup.lend.getLendTokens();
    } catch (err) {
      if (!cached) throw err;
      this.deps.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'the lend token list could not be read; the last one is used');
      return cached.byMint;
    }
    const { lendingPda } = await import('@jup-ag/lend');
    const byMint = new Map<string, ShareMarket>();
    for (const t of tokens) {
      const asset = new PublicKey(t.assetAddress);
      if (lendingPda.getLendingToken(asset).toBase58() !== t.address) {
        this.deps.logger.debug({ share: t.address, asset: t.assetAddress }, `the lend API lists ${t.symbol} as a share of ${t.assetAddress}, which the Earn program's seeds do not derive: ignored`);
        continue;
      }
      byMint.set(t.address, { mint: t.address, symbol: t.symbol, asset: t.assetAddress, lending: lendingPda.getLending(asset) });
    }
    this.markets = { at: this.now(), byMint };
    return byMint;
  }
}
