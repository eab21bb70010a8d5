import { WSOL_MINT } from '../lib/mints.js';
import { deepFreeze, type MarketView, type StrategyContext, type StrategyLogger } from '../sdk/context.js';
import type { MarketData, PredictionData, WalletData } from './ports.js';


/** Builds the frozen context of one decide() call from the snapshots. */
export function buildContext<P, S extends Record<string, unknown>>(input: {
  instanceId: string;
  params: P;
  now: number;
  market: MarketData;
  prediction: PredictionData | undefined;
  wallet: WalletData;
  state: S;
  log: StrategyLogger;
}): StrategyContext<P, S> {
  const { market, wallet } = input;
  const events = input.prediction?.events ?? [];
  const markets = new Map<string, MarketView>();
  for (const e of events) for (const m of e.markets) markets.set(m.marketId, m);
  const holdings = new Map(wallet.holdings.map((h) => [h.mint, h.amount]));
  const ctx: StrategyContext<P, S> = {
    instanceId: input.instanceId,
    params: input.params,
    now: input.now,
    price: (mint) => market.prices[mint],
    token: (mint) => market.tokens[mint],
    wallet: {
      address: wallet.address,
      lamports: wallet.lamports,
      holdings: wallet.holdings,
      // Asking for the wrapped-SOL mint's balance gives native lamports.
      balance: (mint) => (mint === WSOL_MINT ? wallet.lamports : (holdings.get(mint) ?? 0n)),
    },
    events,
    market: (id) => markets.get(id),
    openOrders: { trigger: wallet.trigger, recurring: wallet.recurring },
    positions: { lend: wallet.lend, prediction: wallet.prediction },
    state: structuredClone(input.state),
    log: input.log,
  };
  return deepFreeze(ctx);
}
