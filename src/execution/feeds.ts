import { PublicKey } from '@solana/web3.js';
import type { JupiterClient } from '../jupiter/client.js';
import { NotFoundError } from '../jupiter/errors.js';
import { EVENT_CATEGORIES, type EventCategory } from '../jupiter/prediction/getEvents.js';
import type { PredictionEvent } from '../jupiter/prediction/market.js';
import type { Logger } from '../lib/logger.js';
import { knownByMint, WSOL_MINT } from '../lib/mints.js';
import type { MarketView } from '../sdk/context.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { MarketSnapshot, PredictionSnapshot, SnapshotStore, WalletSnapshot } from '../store/snapshots.js';
import { LendShareReader } from './lendShares.js';

const TOKEN_PROGRAM = new PublicKey('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const TOKEN_2022_PROGRAM = new PublicKey('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
/** Pages of open trigger or recurring orders read at most (10 orders a page). */
const MAX_ORDER_PAGES = 20;
/** Token facts and shield warnings change rarely; they are refreshed this often (ms). */
const TOKEN_FACTS_TTL_MS = 10 * 60_000;

/** What the feeds need. */
export interface FeedDeps {
  jup: JupiterClient;
  rpc: SolanaRpc;
  snapshots: SnapshotStore;
  logger: Logger;
  now?: () => number;
  /**
   * The wallet's intents sent and not yet recorded landed, with their signatures (IntentStore.sentSignatures): asked
   * about on chain before and after the wallet is read, so the engine knows which of them the reads hold.
   */
  sent?: () => Promise<Array<{ id: string; signature: string }>>;
}

/**
 * Gathers the snapshots evaluate reads: prices for the union of every watched mint (one /price/v3 request per 50
 * distinct mints, for all strategies together), token facts and shield warnings (cached), the wallet's balances,
 * open orders and positions, and the prediction events of the watched categories and markets.
 */
export class Feeds {
  private tokenFacts: { at: number; mints: string; value: MarketSnapshot['tokens'] } | undefined;
  private readonly now: () => number;
  /** Watched market ids the venue answered 404 for (warned once each). */
  private readonly missingMarkets = new Set<string>();
  private readonly lendShares: LendShareReader;

  constructor(private readonly deps: FeedDeps) {
    this.now = deps.now ?? Date.now;
    this.lendShares = new LendShareReader({ jup: deps.jup, rpc: deps.rpc, logger: deps.logger, now: this.now });
  }

  /** Prices and token facts of the watched mints. */
  async refreshMarket(mints: readonly string[]): Promise<MarketSnapshot> {
    const unique = [...new Set([WSOL_MINT, ...mints])].sort();
    const prices = await this.deps.jup.price.getPrices({ ids: unique });
    const tokens = await this.tokens(unique);
    const snapshot: MarketSnapshot = {
      at: this.now(),
      prices: Object.fromEntries(Object.entries(prices).map(([mint, p]) => [mint, { usd: p.usdPrice, decimals: p.decimals, change24h: p.priceChange24h ?? null }])),
      tokens,
    };
    await this.deps.snapshots.write('market', snapshot);
    return snapshot;
  }

  /**
   * The wallet: SOL and token balances from the chain, open orders and positions from the venue, and the lend share
   * tokens among the balances valued at the exchange price their lending account holds on chain (LendShareReader).
   */
  async refreshWallet(address: string): Promise<WalletSnapshot> {
    const { jup, rpc } = this.deps;
    const owner = new PublicKey(address);
    const previous = await this.deps.snapshots.read('wallet').catch(() => undefined);
    const errors: Record<string, string> = {};
    const part = async <T>(name: string, fallback: T, f: () => Promise<T>): Promise<T> => {
      try {
        return await f();
      } catch (err) {
        errors[name] = err instanceof Error ? err.message.slice(0, 200) : String(err);
        return fallback;
      }
    };
    // The intents in flight, and which of them have settled on chain already: those are in the reads below.
    // A failure here costs only that knowledge: the engine then judges by the snapshot's times (see inWallet).
    const before = await this.sentAndSettled().catch((err: unknown) => {
      this.deps.logger.debug({ err: err instanceof Error ? err.message : String(err) }, 'could not ask the chain about the intents in flight; the snapshot says nothing of them');
      return undefined;
    });
    // The snapshot is as old as its earliest read: a landing recorded before it is in the balances. One being sent
    // while they are read may or may not be: `sent` says which are, and the engine waits on the rest (walletUnsure).
    const at = this.now();
    // Balances are the ground truth for every decision: a failure there fails the whole refresh.
    const [lamports, ...accountLists] = await Promise.all([
      rpc.lamports(owner),
      rpc.connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_PROGRAM }),
      rpc.connection.getParsedTokenAccountsByOwner(owner, { programId: TOKEN_2022_PROGRAM }),
    ]);
    const holdings = new Map<string, { mint: string; amount: bigint; decimals: number }>();
    for (const list of accountLists) {
      for (const { account } of list.value) {
        const info = parsedTokenInfo(account.data);
        if (!info) continue;
        const prev = holdings.get(info.mint);
        holdings.set(info.mint, { mint: info.mint, amount: (prev?.amount ?? 0n) + info.amount, decimals: info.decimals });
      }
    }
    const [shareTokens, trigger, recurring, lend, prediction] = await Promise.all([
      // A failure leaves the shares unvalued (tokens without a price), never valued at what the venue says.
      part('lend-shares', [], () => this.lendShares.read([...holdings.values()])),
      part('trigger', previous?.trigger ?? [], async () => {
        // 10 orders a page: every page, or a strategy would not see its eleventh order and place it again.
        const orders = [];
        for (let page = 1; page <= MAX_ORDER_PAGES; page += 1) {
          const r = await jup.trigger.getOrders({ user: address, orderStatus: 'active', page });
          orders.push(...r.orders);
          if (!r.hasMore) break;
        }
        return orders.map((o) => ({ order: o.orderKey, inputMint: o.inputMint, outputMint: o.outputMint, makingAmount: o.rawMakingAmount, takingAmount: o.rawTakingAmount, remainingMakingAmount: o.rawRemainingMakingAmount }));
      }),
      part('recurring', previous?.recurring ?? [], async () => {
        // Paged 10 at a time like trigger orders: every page, so no open order goes unseen.
        const orders = [];
        for (let page = 1; page <= MAX_ORDER_PAGES; page += 1) {
          const r = await jup.recurring.getOrders({ user: address, orderStatus: 'active', recurringType: 'time', page });
          orders.push(...r.orders);
          if (!r.hasMore) break;
        }
        return orders.flatMap((o) => (o.recurringType === 'time' ? [{ order: o.orderKey, inputMint: o.inputMint, outputMint: o.outputMint, inDeposited: o.rawInDeposited, inUsed: o.rawInUsed, outReceived: o.rawOutReceived }] : []));
      }),
      part('lend', previous?.lend ?? [], async () => {
        const positions = await jup.lend.getLendPositions({ users: [address] });
        return positions.filter((p) => p.shares > 0n).map((p) => ({ asset: p.token.assetAddress, shares: p.shares, underlyingAssets: p.underlyingAssets }));
      }),
      part('prediction', previous?.prediction ?? [], async () => {
        const page = await jup.prediction.getPredictionPositions({ ownerPubkey: address });
        return page.data.map((p) => ({ positionPubkey: p.pubkey, marketId: p.marketId, isYes: p.isYes, contractsMicro: p.contractsMicro ?? p.contracts * 1_000_000n, avgPriceMicroUsd: p.avgPriceUsd, claimable: p.claimable, claimed: p.claimed }));
      }),
    ]);
    if (Object.keys(errors).length > 0) this.deps.logger.debug({ errors }, 'some wallet feeds failed; kept their previous values');
    // Every read is done: an intent decided after this was sent after them (see walletUnsure in engine/context.ts).
    const readAt = this.now();
    const sent = before && (await this.sentDuring(before.sent, before.settled).catch(() => undefined));
    const snapshot: WalletSnapshot = { at, readAt, ...(sent ? { sent } : {}), address, lamports, holdings: [...holdings.values()], trigger, recurring, lend, prediction, shareTokens, errors };
    await this.deps.snapshots.write('wallet', snapshot);
    return snapshot;
  }

  /**
   * Which of the signatures have a status on chain now. `confirmedOnly`: only those confirmed (a transaction only
   * processed may not be in reads at the engine's commitment yet).
   */
  private async settled(signatures: readonly string[], confirmedOnly: boolean): Promise<Set<string>> {
    // Asked with the executors' confirmation polls of this process (sharedStatus: one request, sent after the call).
    const statuses = await Promise.all(signatures.map((s) => this.deps.rpc.sharedStatus(s)));
    return new Set(
      signatures.filter((_, i) => {
        const s = statuses[i]!.value;
        return s !== null && (!confirmedOnly || s.confirmationStatus === 'confirmed' || s.confirmationStatus === 'finalized');
      }),
    );
  }

  /** The intents in flight now, and which of their signatures are confirmed on chain. */
  private async sentAndSettled(): Promise<{ sent: Array<{ id: string; signature: string }>; settled: Set<string> }> {
    const sent = (await this.deps.sent?.()) ?? [];
    return { sent, settled: await this.settled(sent.map((s) => s.signature), true) };
  }

  /**
   * The intents in flight during the reads, each `in` them (settled before they began), `out` (no status after they
   * ended) or `unsure` (settled meanwhile); undefined when there were none. Those sent after the first look are asked
   * about too: one that settled during the reads is unsure, one that did not is out.
   */
  private async sentDuring(before: ReadonlyArray<{ id: string; signature: string }>, settledBefore: ReadonlySet<string>): Promise<Record<string, 'in' | 'out' | 'unsure'> | undefined> {
    const all = new Map(before.map((s) => [s.id, s.signature]));
    for (const s of (await this.deps.sent?.()) ?? []) if (!all.has(s.id)) all.set(s.id, s.signature);
    if (all.size === 0) return undefined;
    const open = [...all.values()].filter((sig) => !settledBefore.has(sig));
    const settledAfter = await this.settled(open, false);
    const out: Record<string, 'in' | 'out' | 'unsure'> = {};
    for (const [id, sig] of all) out[id] = settledBefore.has(sig) ? 'in' : settledAfter.has(sig) ? 'unsure' : 'out';
    return out;
  }

  /** Events of the watched categories (with markets), plus the watched markets. */
  async refreshPrediction(categories: readonly string[], marketIds: readonly string[]): Promise<PredictionSnapshot> {
    const { jup } = this.deps;
    const events: PredictionSnapshot['events'] = [];
    for (const category of [...new Set(categories)]) {
      if (!isCategory(category)) {
        this.deps.logger.warn({ category }, `not a prediction category (${EVENT_CATEGORIES.join(', ')}); skipped`);
        continue;
      }
      const page = await jup.prediction.getEvents({ category, includeMarkets: true });
      events.push(...page.data.map(eventView));
    }
    const known = new Set(events.flatMap((e) => e.markets.map((m) => m.marketId)));
    const extra = (await Promise.all([...new Set(marketIds)].filter((id) => !known.has(id)).map((id) => this.watchedMarket(id)))).filter((m) => m !== undefined);
    if (extra.length > 0) events.push({ eventId: 'watched', title: 'Watched markets', category: null, markets: extra.map(marketView) });
    const snapshot: PredictionSnapshot = { at: this.now(), events };
    await this.deps.snapshots.write('prediction', snapshot);
    return snapshot;
  }

  /**
   * A market a strategy watches by id, or undefined when the venue has no such market (a typo in the config, a market
   * delisted): said once per id, and the other markets' feed goes on (strategies see `ctx.market(id)` undefined).
   * Other failures fail the refresh, which keeps the previous snapshot.
   */
  private async watchedMarket(marketId: string): Promise<Awaited<ReturnType<JupiterClient['prediction']['getMarket']>> | undefined> {
    try {
      const market = await this.deps.jup.prediction.getMarket({ marketId });
      this.missingMarkets.delete(marketId);
      return market;
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
      if (!this.missingMarkets.has(marketId)) this.deps.logger.warn({ marketId }, `the venue has no prediction market ${marketId}: a strategy watches it; left out of the prediction feed until it exists`);
      this.missingMarkets.add(marketId);
      return undefined;
    }
  }

  private async tokens(mints: string[]): Promise<MarketSnapshot['tokens']> {
    const key = mints.join(',');
    const cached = this.tokenFacts;
    if (cached && cached.mints === key && this.now() - cached.at < TOKEN_FACTS_TTL_MS) return cached.value;
    const { jup } = this.deps;
    const [infos, shield] = await Promise.all([
      jup.tokens.searchTokens({ query: mints }).catch((err: unknown) => {
        this.deps.logger.debug({ err }, 'token search failed; using known decimals');
        return [];
      }),
      jup.ultra.getShield({ mints }),
    ]);
    const byMint = new Map(infos.map((t) => [t.id, t]));
    const value: MarketSnapshot['tokens'] = {};
    for (const mint of mints) {
      const info = byMint.get(mint);
      const known = knownByMint(mint);
      const decimals = info?.decimals ?? known?.decimals;
      if (decimals === undefined) continue;
      value[mint] = { mint, symbol: info?.symbol ?? known?.symbol ?? mint.slice(0, 4), decimals, verified: info?.isVerified ?? null, warnings: (shield[mint] ?? []).map((w) => ({ type: w.type, severity: w.severity, message: w.message ?? '' })) };
    }
    this.tokenFacts = { at: this.now(), mints: key, value };
    return value;
  }
}

function isCategory(c: string): c is EventCategory {
  return (EVENT_CATEGORIES as readonly string[]).includes(c);
}

function parsedTokenInfo(data: unknown): { mint: string; amount: bigint; decimals: number } | undefined {
  const info = (data as { parsed?: { info?: { mint?: unknown; tokenAmount?: { amount?: unknown; decimals?: unknown } } } } | null)?.parsed?.info;
  const mint = info?.mint;
  const amount = info?.tokenAmount?.amount;
  const decimals = info?.tokenAmount?.decimals;
  if (typeof mint !== 'string' || typeof amount !== 'string' || !/^\d+$/.test(amount) || typeof decimals !== 'number') return undefined;
  return { mint, amount: BigInt(amount), decimals };
}

function marketView(m: PredictionEvent['markets'][number]): MarketView {
  return {
    marketId: m.marketId,
    eventId: m.eventId ?? null,
    title: m.title,
    status: m.status,
    // `pending` (the service has not settled the market yet) is no result: strategies see null until it is.
    result: m.result === 'pending' ? null : m.result,
    isTradable: m.isTradable,
    closeTime: m.closeTime,
    buyYesMicroUsd: m.pricing.buyYesPriceUsd,
    buyNoMicroUsd: m.pricing.buyNoPriceUsd,
    sellYesMicroUsd: m.pricing.sellYesPriceUsd,
    sellNoMicroUsd: m.pricing.sellNoPriceUsd,
  };
}

function eventView(e: PredictionEvent): PredictionSnapshot['events'][number] {
  return { eventId: e.eventId, title: e.metadata?.title ?? e.eventId, category: e.category ?? null, markets: e.markets.map(marketView) };
}
