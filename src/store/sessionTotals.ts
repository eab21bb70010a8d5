import type { Redis } from 'ioredis';
import { PnlStore } from './pnl.js';
import { SnapshotStore } from './snapshots.js';
import { readTrades, tallyTrades } from './trades.js';

/** What the ledger says of a window: its trades (by the one definition, src/store/trades.ts) and the P&L. */
export interface LedgerTotals {
  /** Trades in the window, claims included: exactly the rows `trades` lists for it. */
  trades: number;
  /** Of those, prediction claims. */
  claims: number;
  /** USD value of the trades that are not claims (see tradeUsd). */
  volumeUsd: number;
  /** Realised P&L of the current session, USD (average cost; null when it cannot be read). */
  realizedUsd: number | null;
  /** Unrealised P&L: what the swaps bought and still hold at the latest prices, less its cost, USD; null without prices. */
  unrealizedUsd: number | null;
}

/**
 * The ledger's totals of a window: the trades of `session` (when given; else of every session) at or after `from` and
 * before `to` (unix ms), valued at the market snapshot's prices, and the current session's realised and unrealised
 * P&L. Read-only.
 */
export async function ledgerTotals(redis: Redis, prefix: string, w: { session?: number | undefined; from?: number; to?: number }): Promise<LedgerTotals> {
  const market = await new SnapshotStore(redis, prefix).read('market').catch(() => undefined);
  const decimalsOf = (mint: string) => market?.prices[mint]?.decimals ?? market?.tokens[mint]?.decimals;
  const trades = await readTrades(redis, prefix, { ...(w.session !== undefined ? { session: w.session } : {}), ...(w.from !== undefined ? { since: w.from } : {}), ...(w.to !== undefined ? { until: w.to } : {}), decimalsOf });
  const tally = tallyTrades(trades, (mint) => market?.prices[mint]?.usd);
  const pnl = new PnlStore(redis, prefix);
  const [realizedUsd, unrealized] = await Promise.all([pnl.realizedTotalUsd('session').catch(() => null), pnl.unrealizedTotalUsd(market).catch(() => null)]);
  return { ...tally, realizedUsd, unrealizedUsd: unrealized?.usd ?? null };
}
