import { WSOL_MINT } from '../lib/mints.js';
import { deepFreeze, type MarketView, type PendingIntentState, type PricePoint, type PendingIntentView, type StrategyContext, type StrategyLogger } from '../sdk/context.js';
import type { MarketData, PendingIntentData, PredictionData, WalletData } from './ports.js';
import type { IntentState } from './states.js';

/** What the decide() contexts of one evaluation share (everything read from the snapshots), built and frozen once. */
export interface SharedContext {
  readonly now: number;
  readonly walletAt: number;
  readonly price: StrategyContext['price'];
  readonly token: StrategyContext['token'];
  readonly priceHistory: StrategyContext['priceHistory'];
  readonly wallet: StrategyContext['wallet'];
  readonly events: StrategyContext['events'];
  readonly market: StrategyContext['market'];
  readonly openOrders: StrategyContext['openOrders'];
  readonly positions: StrategyContext['positions'];
}

const NO_HISTORY: readonly PricePoint[] = Object.freeze([]);

/**
 * The snapshots' part of every decide() context of one evaluation (deep-frozen: the snapshots with it). `history`
 * holds the price history of the mints the evaluation's instances watch, read once for all of them (its series are
 * frozen already and shared as they are).
 */
export function sharedContext(input: { now: number; market: MarketData; prediction: PredictionData | undefined; wallet: WalletData; history?: ReadonlyMap<string, readonly PricePoint[]> | undefined }): SharedContext {
  const { market, wallet } = input;
  const events = input.prediction?.events ?? [];
  const markets = new Map<string, MarketView>();
  for (const e of events) for (const m of e.markets) markets.set(m.marketId, m);
  const holdings = new Map(wallet.holdings.map((h) => [h.mint, h.amount]));
  return deepFreeze({
    now: input.now,
    walletAt: wallet.at,
    price: (mint: string) => market.prices[mint],
    token: (mint: string) => market.tokens[mint],
    priceHistory: (mint: string) => input.history?.get(mint) ?? NO_HISTORY,
    wallet: {
      address: wallet.address,
      lamports: wallet.lamports,
      holdings: wallet.holdings,
      // Asking for the wrapped-SOL mint's balance gives native lamports.
      balance: (mint: string) => (mint === WSOL_MINT ? wallet.lamports : (holdings.get(mint) ?? 0n)),
    },
    events,
    market: (id: string) => markets.get(id),
    openOrders: { trigger: wallet.trigger, recurring: wallet.recurring },
    positions: { lend: wallet.lend, prediction: wallet.prediction },
  });
}

const NOTHING_PENDING: readonly PendingIntentView[] = Object.freeze([]);

/**
 * The frozen context of one decide() call: the evaluation's shared part and the instance's own. `state` is the
 * caller's own copy (as read from Redis for this call): it is frozen in place, not copied.
 */
export function buildContext<P, S extends Record<string, unknown>>(
  shared: SharedContext,
  input: {
    instanceId: string;
    params: P;
    /** The instance's intents from the ledger's pending read (non-terminal, and recent landings). */
    pending: readonly PendingIntentData[];
    state: S;
    log: StrategyLogger;
  },
): StrategyContext<P, S> {
  return Object.freeze({
    instanceId: input.instanceId,
    params: deepFreeze(input.params),
    now: shared.now,
    price: shared.price,
    token: shared.token,
    priceHistory: shared.priceHistory,
    wallet: shared.wallet,
    events: shared.events,
    market: shared.market,
    openOrders: shared.openOrders,
    positions: shared.positions,
    pendingIntents: input.pending.length === 0 ? NOTHING_PENDING : deepFreeze(pendingIntents(input.pending, shared.walletAt)),
    state: deepFreeze(input.state),
    log: input.log,
  });
}

/** Whether an intent in this state can be pending: true for every live state and for `landed`. */
const CAN_BE_PENDING: Readonly<Record<IntentState, boolean>> = { planned: true, built: true, guarded: true, signed: true, submitted: true, landed: true, failed: false, expired: false, rejected: false };

function isPendingState(state: IntentState): state is PendingIntentState {
  return CAN_BE_PENDING[state];
}

/**
 * The instance's own intent that the wallet snapshot may or may not include, if there is one: sent (submitted or
 * landed now) before the snapshot's reads ended, and not recorded landed before they began. Its
 * transaction may have settled on chain before a read or after it (the ledger records a landing only once the
 * confirmation comes back), so the snapshot cannot be read either way: counted as pending when it is in the
 * balances, a rebalancer sees the opposite drift and trades it back; left out when it is not, it asks again. The
 * engine does not decide such an instance on this snapshot; the next one, read after the landing was recorded,
 * settles it.
 */
export function walletUnsure(pending: readonly PendingIntentData[], wallet: Pick<WalletData, 'at' | 'readAt'>): PendingIntentData | undefined {
  const readEnd = wallet.readAt ?? wallet.at;
  for (const p of pending) {
    if (p.state !== 'submitted' && p.state !== 'landed') continue;
    if (p.state === 'landed' && p.updatedAt < wallet.at) continue;
    // Sent after the reads ended: not in them (a submitted intent's last move is its sending).
    if ((p.state === 'submitted' ? p.updatedAt : p.createdAt) > readEnd) continue;
    return p;
  }
  return undefined;
}

/**
 * What the strategy sees as pending: intents still planned or in flight, and those that landed at or after the
 * wallet snapshot's time (not in it: the engine does not decide on a snapshot that may hold a landing of the
 * instance's own, see walletUnsure). Oldest first.
 */
export function pendingIntents(pending: readonly PendingIntentData[], walletAt: number): PendingIntentView[] {
  const out: PendingIntentView[] = [];
  for (const p of [...pending].sort((a, b) => a.createdAt - b.createdAt)) {
    const state = p.state;
    if (!isPendingState(state) || (state === 'landed' && p.updatedAt < walletAt)) continue;
    out.push({ id: p.id, kind: p.kind, state, intent: p.intent, createdAt: p.createdAt });
  }
  return out;
}
