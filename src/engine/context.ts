import { WSOL_MINT } from '../lib/mints.js';
import { deepFreeze, type MarketView, type PendingIntentState, type PricePoint, type PendingIntentView, type StrategyContext, type StrategyLogger } from '../sdk/context.js';
import type { MarketData, PendingIntentData, PredictionData, WalletData } from './ports.js';
import type { IntentState } from './states.js';

/** What the decide() contexts of one evaluation share (everything read from the snapshots), built and frozen once. */
export interface SharedContext {
  readonly now: number;
  /** When the wallet snapshot was read, and what it found of the intents sent meanwhile (see inWallet). */
  readonly walletRead: Pick<WalletData, 'at' | 'readAt' | 'sent'>;
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
    walletRead: { at: wallet.at, readAt: wallet.readAt, sent: wallet.sent },
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
    pendingIntents: input.pending.length === 0 ? NOTHING_PENDING : deepFreeze(pendingIntents(input.pending, shared.walletRead)),
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
 * Whether the wallet snapshot holds an intent's effect: `in` it, `out` of it (pending), or `unsure`. Recorded landed
 * before its reads began: in. Never sent (planned, built, guarded, signed): out. Sent while it was read: as the feed
 * found on chain around its reads (`sent`: settled before them, not settled after them, or settled meanwhile). Sent
 * after its reads ended: out. Anything else is unsure: its transaction may have settled before a read or after it
 * (the ledger records a landing only once the confirmation comes back).
 */
export function inWallet(p: PendingIntentData, wallet: Pick<WalletData, 'at' | 'readAt' | 'sent'>): 'in' | 'out' | 'unsure' {
  if (p.state === 'landed' && p.updatedAt < wallet.at) return 'in';
  if (p.state !== 'submitted' && p.state !== 'landed') return 'out';
  const seen = wallet.sent?.[p.id];
  if (seen !== undefined) return seen;
  // A submitted intent's last move is its sending.
  return (p.state === 'submitted' ? p.updatedAt : p.createdAt) > (wallet.readAt ?? wallet.at) ? 'out' : 'unsure';
}

/**
 * The instance's own intent that the wallet snapshot may or may not hold (see inWallet), if there is one. Counted as
 * pending when it is in the balances, a rebalancer sees the opposite drift and trades it back; left out when it is
 * not, it asks again. The engine does not decide such an instance on this snapshot; the next one settles it.
 */
export function walletUnsure(pending: readonly PendingIntentData[], wallet: Pick<WalletData, 'at' | 'readAt' | 'sent'>): PendingIntentData | undefined {
  return pending.find((p) => inWallet(p, wallet) === 'unsure');
}

/**
 * What the strategy sees as pending: intents planned or in flight, and landings, that the wallet snapshot does not
 * hold (see inWallet; the engine does not decide on a snapshot unsure of one, see walletUnsure). Oldest first.
 */
export function pendingIntents(pending: readonly PendingIntentData[], wallet: Pick<WalletData, 'at' | 'readAt' | 'sent'>): PendingIntentView[] {
  const out: PendingIntentView[] = [];
  for (const p of [...pending].sort((a, b) => a.createdAt - b.createdAt)) {
    const state = p.state;
    if (!isPendingState(state) || inWallet(p, wallet) === 'in') continue;
    out.push({ id: p.id, kind: p.kind, state, intent: p.intent, createdAt: p.createdAt });
  }
  return out;
}
