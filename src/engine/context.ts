import { deepFreeze, type MarketView, type StrategyContext, type StrategyLogger } from '../sdk/context.js';
import type { MarketData, PredictionData, WalletData } from './ports.js';

/** The wrapped-SOL mint: a strategy asking for its balance gets native lamports. */
const WSOL = 'So11111111111111111111111111111111111111112';

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
      balance: (mint) => (mint === WSOL ? wallet.lamports : (holdings.get(mint) ?? 0n)),
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
