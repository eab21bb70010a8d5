// rebalance: keeps a portfolio of any number of tokens near target USD weights. Nothing happens while every weight
// is within driftPct points of its target; once one is not, every token is traded back toward its target through
// the quote token (sells first, buys from the quote the wallet holds), skipping trades under minTradeUsd. Its own
// pending swaps count as done, so a wallet feed that lags does not make it ask for the same trades again; buys the
// quote cannot pay for yet are asked for once the sells have settled.
import { defineStrategy, type IntentInput, type PendingIntentView, type PriceView } from '../../src/sdk/index.js';
import { SOL_MINT } from '../../src/sdk/symbols.js';
import { rebalanceParams, type RebalanceParams } from './params.js';

export { rebalanceParams, type RebalanceParams, type Target } from './params.js';

/** Lamports never sold or spent when SOL is in the portfolio (0.02 SOL for fees and rent). */
export const MULTI_REBALANCE_SOL_RESERVE_LAMPORTS = 20_000_000n;

/** USD value of `amount` base units at `price`. A float: values are for comparison, never for amounts. */
function usdValue(amount: bigint, price: PriceView): number {
  return (Number(amount) / 10 ** price.decimals) * price.usd;
}

/** Base units worth `usd` at `price`, rounded down. */
function unitsFor(usd: number, price: PriceView): bigint {
  const units = Math.floor((usd / price.usd) * 10 ** price.decimals);
  return Number.isFinite(units) && units > 0 ? BigInt(Math.min(units, Number.MAX_SAFE_INTEGER)) : 0n;
}

/**
 * Holdings as they will be once the instance's pending swaps between portfolio tokens settle (a swap's input taken
 * off, its output added at today's prices: an estimate), and what those swaps still spend of each token (the wallet
 * view shows it as spendable, but it is not).
 */
function projected(
  wallet: { balance(mint: string): bigint },
  pending: readonly PendingIntentView[],
  prices: ReadonlyMap<string, PriceView>,
): { held: Map<string, bigint>; spending: Map<string, bigint>; swaps: number } {
  const held = new Map([...prices.keys()].map((mint) => [mint, wallet.balance(mint)]));
  const spending = new Map([...prices.keys()].map((mint) => [mint, 0n]));
  let swaps = 0;
  for (const { intent } of pending) {
    if (intent.kind !== 'swap' || intent.swapMode === 'ExactOut') continue;
    const from = prices.get(intent.inputMint);
    const to = prices.get(intent.outputMint);
    if (!from || !to) continue;
    const before = held.get(intent.inputMint)!;
    held.set(intent.inputMint, before > intent.amount ? before - intent.amount : 0n);
    held.set(intent.outputMint, held.get(intent.outputMint)! + unitsFor(usdValue(intent.amount, from), to));
    spending.set(intent.inputMint, spending.get(intent.inputMint)! + intent.amount);
    swaps += 1;
  }
  return { held, spending, swaps };
}

/** What may be spent of a mint: the wallet balance less what pending swaps spend, and the SOL reserve. */
function spendable(balance: bigint, spending: bigint, mint: string): bigint {
  const free = balance - spending - (mint === SOL_MINT ? MULTI_REBALANCE_SOL_RESERVE_LAMPORTS : 0n);
  return free > 0n ? free : 0n;
}

const pct = (weight: number): string => `${(weight * 100).toFixed(1)}%`;

/** Rebalances any number of tokens toward target USD weights, trading through the quote. */
export const rebalance = defineStrategy({
  name: 'rebalance',
  version: '1.0.0',
  description: 'swap through the quote back toward target USD weights once a weight drifts driftPct points off its target',
  params: rebalanceParams,
  watches: (p) => ({ mints: p.weights.map((t) => t.mint) }),
  emits: (p) => [{ kind: 'swap', via: p.via }],
  decide: (ctx) => {
    const p = ctx.params;
    const prices = new Map<string, PriceView>();
    for (const { mint } of p.weights) {
      const price = ctx.price(mint);
      if (!price || !(price.usd > 0)) {
        ctx.log.debug('skipping: no price for a weighted token', { mint });
        return [];
      }
      prices.set(mint, price);
    }
    const { held, spending, swaps } = projected(ctx.wallet, ctx.pendingIntents, prices);
    if (swaps > 0) ctx.log.debug('counting pending swaps as done', { swaps });
    const value = new Map(p.weights.map(({ mint }) => [mint, usdValue(held.get(mint)!, prices.get(mint)!)]));
    const total = [...value.values()].reduce((a, b) => a + b, 0);
    if (!(total > 0)) return [];

    const drifts = p.weights.map((t) => ({ ...t, usd: value.get(t.mint)!, now: value.get(t.mint)! / total }));
    const worst = drifts.reduce((a, b) => (Math.abs(b.now - b.weight) > Math.abs(a.now - a.weight) ? b : a));
    if (Math.abs(worst.now - worst.weight) * 100 <= p.driftPct) return [];
    const why = `${label(ctx.token(worst.mint)?.symbol, worst.mint)} weight ${pct(worst.now)} vs target ${pct(worst.weight)} ± ${p.driftPct} pts`;
    return trades(p, drifts, { total, prices, spendable: (mint) => spendable(ctx.wallet.balance(mint), spending.get(mint)!, mint), symbol: (mint) => ctx.token(mint)?.symbol, why });
  },
});

const label = (symbol: string | undefined, mint: string): string => symbol ?? mint;

/**
 * The swaps that move every token but the quote back to its target: sells of what is over (at most what the wallet
 * holds beyond its reserve), then buys of what is under, paid from the quote the wallet holds now (a buy it cannot
 * pay for yet waits for a later run, when the sells have settled). Trades under minTradeUsd are skipped.
 */
function trades(
  p: RebalanceParams,
  drifts: ReadonlyArray<{ mint: string; weight: number; usd: number; now: number }>,
  m: { total: number; prices: ReadonlyMap<string, PriceView>; spendable(mint: string): bigint; symbol(mint: string): string | undefined; why: string },
): IntentInput[] {
  const quotePrice = m.prices.get(p.quote)!;
  const legs = drifts
    .filter((d) => d.mint !== p.quote)
    // From the USD amounts, not the weights: fewer float roundings, so round portfolios trade round amounts.
    .map((d) => ({ ...d, usd: Math.min(Math.abs(d.weight * m.total - d.usd), p.maxTradeUsd ?? Infinity), sell: d.now > d.weight }))
    .filter((d) => d.usd >= p.minTradeUsd && d.usd > 0)
    .sort((a, b) => Number(b.sell) - Number(a.sell) || b.usd - a.usd);
  const swap = (inputMint: string, outputMint: string, amount: bigint, reason: string): IntentInput => ({
    kind: 'swap',
    via: p.via,
    inputMint,
    outputMint,
    amount,
    ...(p.slippageBps === undefined ? {} : { slippageBps: p.slippageBps }),
    reason,
  });
  const out: IntentInput[] = [];
  let cash = m.spendable(p.quote);
  for (const leg of legs) {
    const price = m.prices.get(leg.mint)!;
    const name = label(m.symbol(leg.mint), leg.mint);
    const reason = `${m.why}: ${leg.sell ? 'sell' : 'buy'} ${name} (${pct(leg.now)} → ${pct(leg.weight)})`;
    if (leg.sell) {
      const available = m.spendable(leg.mint);
      const wanted = unitsFor(leg.usd, price);
      const amount = wanted < available ? wanted : available;
      if (amount > 0n && usdValue(amount, price) >= p.minTradeUsd) out.push(swap(leg.mint, p.quote, amount, reason.slice(0, 200)));
    } else {
      const wanted = unitsFor(leg.usd, quotePrice);
      const amount = wanted < cash ? wanted : cash;
      if (amount > 0n && usdValue(amount, quotePrice) >= p.minTradeUsd) {
        cash -= amount;
        out.push(swap(p.quote, leg.mint, amount, reason.slice(0, 200)));
      }
    }
  }
  return out;
}
