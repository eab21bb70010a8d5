import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { KillSwitchMode } from '../engine/killSwitch.js';
import type { DecisionSummary } from '../engine/ports.js';
import { ruleOfCode } from '../engine/riskRules.js';
import { cadenceTag } from '../engine/shards.js';
import { INTENT_STATES, type IntentState } from '../engine/states.js';
import { walletValueUsd } from '../engine/walletValue.js';
import { formatUnits } from '../lib/amounts.js';
import { KeeperError } from '../lib/errors.js';
import { knownByMint } from '../lib/mints.js';
import { RiskStore, StrategyStateStore } from './engineStore.js';
import { IntentStore } from './intents.js';
import { readKeeperStatus, type KeeperStatusData } from './keeperStore.js';
import { intentKeys } from './intentLayout.js';
import { PnlStore, unrealizedOf } from './pnl.js';
import { readPresence, type KeeperBeat } from './presence.js';
import { safeRedisUrl } from './redis.js';
import { readSessions, type Session } from './sessions.js';
import { SnapshotStore, type MarketSnapshot, type WalletSnapshot } from './snapshots.js';
import type { LastMessage } from './strategyState.js';
import { isClaim, readTrades } from './trades.js';

/**
 * The status read model: one document of what a keeper is doing and has done, read from its records in Redis through
 * the stores. `jup-keeper status` prints it (src/cli/commands/status.ts) and the dashboard serves it at /api/status
 * (src/dashboard/server.ts); both read it here, so they show the same thing.
 */

/** Guard refusals listed at most, newest first. */
const MAX_REFUSALS = 10;

const scheduleSchema = z.union([z.object({ every: z.number() }), z.object({ cron: z.string(), tz: z.string().optional() })]);
const metaSchema = z.object({
  venue: z.string().optional(),
  venueUrl: z.string().optional(),
  rpcUrl: z.string().optional(),
  wallet: z.string().optional(),
  config: z.string().optional(),
  startedAt: z.coerce.number().optional(),
  /** The wallet's value at the first wallet and market snapshots after the start (USD). */
  startValueUsd: z.coerce.number().optional(),
  strategies: z
    .string()
    .optional()
    .transform((t) => z.array(z.object({ id: z.string(), strategy: z.string(), version: z.string().optional(), schedule: scheduleSchema })).parse(t ? JSON.parse(t) : [])),
});

/** One token balance: base units, decimals and the human amount. */
interface Balance {
  mint: string;
  symbol: string | null;
  amount: bigint;
  decimals: number;
  ui: string;
  /** A product's share token (a Lend Earn jlToken): what it is worth, at the exchange price its account holds on chain. */
  worth?: { asset: string; assetSymbol: string | null; assetAmount: bigint; ui: string; exchangePrice: bigint; usd: number | null };
}
/** A strategy's (or the total) realised P&L of swaps, USD, its volume and fill count. */
export interface Pnl {
  realizedUsd: number;
  volumeUsd: number;
  fills: number;
}

/** The document `status --json` prints and /api/status serves (bigints as decimal strings, times in unix ms). */
export interface StatusDocument {
  prefix: string;
  redis: string;
  at: number;
  keeper: { startedAt: number | null; config: string | null };
  venue: { kind: string; url: string | null; rpcUrl: string | null } | null;
  wallet: { address: string } | null;
  balances: { at: number; sol: { lamports: bigint; ui: string }; tokens: Balance[] } | null;
  killSwitch: { engaged: boolean; mode: KillSwitchMode | null; reason: string | null; by: string | null; at: number | null };
  /**
   * Each instance: `lastEvaluation` is when it was last evaluated (its shard's last evaluation, unix ms, and the start
   * of the window it decided), every window, a skip included; `lastDecision` is its last decision that changed (an
   * instance deciding the same every window keeps its first); `lastMessage` is the last line it logged, with when it
   * first logged that text.
   */
  strategies: Array<{
    id: string;
    strategy: string;
    version: string | null;
    schedule: z.output<typeof scheduleSchema>;
    lastEvaluation: { at: number; window: number } | null;
    lastDecision: DecisionSummary | null;
    lastMessage: LastMessage | null;
    pnl: Pnl;
    nextRunAt: NextRun;
  }>;
  intents: { total: number; byState: Record<IntentState, number>; /** Created in the current session. */ session: number };
  /** The current session (the keeper's run; src/store/sessions.ts), which `pnl` and `trades` cover; null before any. */
  session: Session | null;
  /** Trades (the one definition, src/store/trades.ts: what `trades` lists) of the current session, claims among them. */
  trades: { session: number; claims: number };
  orders: { trigger: WalletSnapshot['trigger']; recurring: WalletSnapshot['recurring'] } | null;
  positions: { lend: WalletSnapshot['lend']; prediction: WalletSnapshot['prediction'] } | null;
  /** Realised P&L of the current session (`total` and each strategy), and of every session (`allSessions`). */
  pnl: { strategies: Array<{ id: string } & Pnl>; total: Pnl; allSessions: Pnl };
  snapshots: Record<'market' | 'wallet' | 'prediction', { at: number; ageMs: number } | null>;
  feedErrors: Record<string, string>;
  guardRefusals: Array<{ id: string; strategy: string; kind: string; at: number; reason: string }>;
  /** Every refusal (risk gate and guard), newest first, with its rule. */
  refusals: Array<{ id: string; strategy: string; kind: string; at: number; rule: string; reason: string }>;
  /** The keeper jobs: each one's last run (when, outcome), the latest claims made, and the last sweep's report. */
  keeperJobs: KeeperStatusData;
  /** The risk gate's tallies of the UTC day and the marks the loss limits measure from. */
  risk: { refusalsToday: Record<string, number>; notionalTodayUsd: number; feesTodayLamports: bigint; peakValueUsd: number | null; dayStartValueUsd: number | null };
  /**
   * Whether a keeper runs, by its heartbeats: `alive` while any keeper process of the prefix beats (every 5 s, each
   * beat lives 20 s); `since` is when the oldest live process started, or, once none is alive, when the keeper
   * stopped (its clean stop, else its last beat); null when no keeper of this version ever beat here.
   */
  heartbeat: { alive: boolean; since: number | null; lastBeatAt: number | null; stoppedAt: number | null; processes: KeeperBeat[] };
  /** The dashboard of the running keeper (its first process serving one), as its heartbeat says; null when none. */
  dashboardUrl: string | null;
  /** What the wallet was worth at the keeper's start and is worth now (at the latest snapshots), USD. */
  walletValue: { startUsd: number | null; nowUsd: number | null; changeUsd: number | null; at: number | null; unpriced: string[] };
  /** Unrealised P&L: what each strategy's swaps bought and still hold, at the latest prices, minus its average cost. */
  unrealizedPnl: { strategies: Array<{ id: string; unrealizedUsd: number; unpriced: string[] }>; totalUsd: number };
}

/** A strategy's next evaluation (unix ms) while its keeper is alive; null when stopped or not known. */
export type NextRun = number | null;

/** Reads everything status shows, through the stores: the deployment `loc.prefix` on the Redis at `loc.redisUrl` (shown without its credentials). */
export async function readStatus(redis: Redis, loc: { redisUrl: string; prefix: string }, now: number): Promise<StatusDocument> {
  const { prefix } = loc;
  const intents = new IntentStore(redis, prefix);
  const snapshots = new SnapshotStore(redis, prefix);
  const states = new StrategyStateStore(redis, prefix);
  const pnlStore = new PnlStore(redis, prefix);
  const parsed = metaSchema.safeParse(await redis.hgetall(`${prefix}:meta`));
  if (!parsed.success) throw new KeeperError('STATUS_META', 'halt', `${prefix}:meta is not what a keeper writes: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  const meta = parsed.data;
  const riskStore = new RiskStore(redis, prefix);
  const [market, wallet, prediction, halted, byState, pnlIds] = await Promise.all([
    snapshots.read('market'),
    snapshots.read('wallet'),
    snapshots.read('prediction'),
    riskStore.killSwitch(),
    intents.countByState(),
    pnlStore.instances(),
  ]);
  const pnlOf = new Map<string, Pnl>();
  const pnlAll: Pnl[] = [];
  for (const id of new Set([...meta.strategies.map((s) => s.id), ...pnlIds])) {
    pnlOf.set(id, await pnlStore.summary(id, 'session'));
    pnlAll.push(await pnlStore.summary(id, 'all'));
  }
  const session = (await readSessions(redis, prefix)).at(-1) ?? null;
  const sessionTrades = session ? await readTrades(redis, prefix, { session: session.id }) : [];
  const ids = meta.strategies.map((s) => s.id);
  const [evaluations, messages] = await Promise.all([states.lastEvaluations(ids), states.lastMessages(ids)]);
  const strategies = [];
  for (const s of meta.strategies) {
    const d = await states.lastDecision(s.id);
    // The states recorded with a decision are those of that moment; show where each intent is now.
    const now = d ? new Map((await intents.read(d.intents.map((i) => i.id))).records.map((r) => [r.id, r.state])) : new Map<string, IntentState>();
    const lastDecision = d && { ...d, intents: d.intents.map((i) => ({ ...i, state: now.get(i.id) ?? i.state })) };
    const e = evaluations.get(s.id);
    strategies.push({
      id: s.id,
      strategy: s.strategy,
      version: s.version ?? null,
      schedule: s.schedule,
      lastEvaluation: e ? { at: e.at, window: e.window } : null,
      lastDecision: lastDecision ?? null,
      lastMessage: messages.get(s.id) ?? null,
      pnl: pnlOf.get(s.id)!,
      nextRunAt: null as NextRun,
    });
  }
  const presence = await readPresence(redis, prefix);
  const alive = presence.alive.length > 0;
  if (alive) {
    const next = await nextEvaluations(redis, prefix);
    for (const s of strategies) s.nextRunAt = next.get(cadenceTag('every' in s.schedule ? { every: s.schedule.every } : { cron: s.schedule.cron, tz: s.schedule.tz })) ?? null;
  }
  const unrealized = [];
  for (const id of pnlOf.keys()) unrealized.push({ id, ...unrealizedOf(await pnlStore.holdings(id), market) });
  // A corrupt record is left out here (and named by `intents`): one damaged hash must not hide the rest.
  const rejected = (await intents.read(await intents.idsIn('rejected'))).records;
  const guardRefusals = rejected
    .filter((r) => r?.error?.code === 'GUARD_REFUSED')
    .map((r) => ({ id: r.id, strategy: r.instance, kind: r.kind, at: r.updatedAt, reason: r.error!.message }))
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_REFUSALS);
  const refusals = rejected
    .filter((r) => r?.error)
    .map((r) => ({ id: r.id, strategy: r.instance, kind: r.kind, at: r.updatedAt, rule: r.error!.rule ?? ruleOfCode(r.error!.code) ?? r.error!.code, reason: r.error!.message }))
    .sort((a, b) => b.at - a.at)
    .slice(0, MAX_REFUSALS);
  const [refusalsToday, notionalTodayUsd, feesTodayLamports, marks] = await Promise.all([riskStore.refusalsToday(now), riskStore.dailyNotional(now), riskStore.dailyFeeLamports(now), riskStore.valueMarks(now)]);
  const pnlRows = [...pnlOf].map(([id, p]) => ({ id, ...p }));
  const sum = (k: keyof Pnl): number => pnlRows.reduce((t, p) => t + p[k], 0);
  const age = (s: { at: number } | undefined) => (s ? { at: s.at, ageMs: now - s.at } : null);
  const address = meta.wallet ?? wallet?.address;
  return {
    prefix,
    redis: safeRedisUrl(loc.redisUrl),
    at: now,
    keeper: { startedAt: meta.startedAt ?? null, config: meta.config ?? null },
    venue: meta.venue ? { kind: meta.venue, url: meta.venueUrl ?? null, rpcUrl: meta.rpcUrl ?? null } : null,
    wallet: address ? { address } : null,
    balances: wallet ? { at: wallet.at, sol: { lamports: wallet.lamports, ui: formatUnits(wallet.lamports, 9) }, tokens: wallet.holdings.map((h) => balanceOf(h, market, wallet)) } : null,
    killSwitch: { engaged: halted !== null, mode: halted?.mode ?? null, reason: halted?.reason ?? null, by: halted?.by ?? null, at: halted && halted.at > 0 ? halted.at : null },
    strategies,
    intents: { total: INTENT_STATES.reduce((t, s) => t + byState[s], 0), byState, session: session ? await redis.zcount(intentKeys(prefix).index, session.startedAt, '+inf') : 0 },
    session,
    trades: { session: sessionTrades.length, claims: sessionTrades.filter(isClaim).length },
    orders: wallet ? { trigger: wallet.trigger, recurring: wallet.recurring } : null,
    positions: wallet ? { lend: wallet.lend, prediction: wallet.prediction } : null,
    pnl: { strategies: pnlRows, total: { realizedUsd: sum('realizedUsd'), volumeUsd: sum('volumeUsd'), fills: sum('fills') }, allSessions: { realizedUsd: pnlAll.reduce((t, p) => t + p.realizedUsd, 0), volumeUsd: pnlAll.reduce((t, p) => t + p.volumeUsd, 0), fills: pnlAll.reduce((t, p) => t + p.fills, 0) } },
    snapshots: { market: age(market), wallet: age(wallet), prediction: age(prediction) },
    feedErrors: wallet?.errors ?? {},
    guardRefusals,
    refusals,
    keeperJobs: await readKeeperStatus(redis, prefix, intents),
    risk: { refusalsToday, notionalTodayUsd, feesTodayLamports, peakValueUsd: marks.peakUsd, dayStartValueUsd: marks.dayStartUsd },
    heartbeat: {
      alive,
      since: alive ? presence.alive[0]!.startedAt : (presence.stoppedAt ?? presence.lastBeatAt),
      lastBeatAt: presence.lastBeatAt,
      stoppedAt: alive ? null : presence.stoppedAt,
      processes: presence.alive,
    },
    dashboardUrl: presence.alive.find((p) => p.dashboard)?.dashboard ?? null,
    walletValue: valueOf(meta.startValueUsd, market, wallet, prediction),
    unrealizedPnl: { strategies: unrealized, totalUsd: unrealized.reduce((t, u) => t + u.unrealizedUsd, 0) },
  };
}

/** The wallet's value at start (as the keeper noted it) and now (at the latest snapshots). */
function valueOf(startUsd: number | undefined, market: MarketSnapshot | undefined, wallet: WalletSnapshot | undefined, prediction: Parameters<typeof walletValueUsd>[2]): StatusDocument['walletValue'] {
  const now = market && wallet ? walletValueUsd(market, wallet, prediction) : undefined;
  const start = startUsd ?? null;
  return { startUsd: start, nowUsd: now?.usd ?? null, changeUsd: now && start !== null ? now.usd - start : null, at: wallet?.at ?? null, unpriced: now?.unpriced ?? [] };
}

/**
 * The next evaluation of each cadence (by its shard tag, `e5000` or `c<hash>`), from the job schedulers' next times
 * that BullMQ keeps in the evaluate queue's repeat set (`<prefix>:evaluate:repeat`, scored by the next run, members
 * `evaluate-<tag>.<n>of<count>`, a reactive shard's tag led by `r`). The earliest of a cadence's shards wins.
 */
async function nextEvaluations(redis: Redis, prefix: string): Promise<Map<string, number>> {
  const raw = await redis.zrange(`${prefix}:evaluate:repeat`, 0, -1, 'WITHSCORES');
  const out = new Map<string, number>();
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const m = /^evaluate-r?([ec][0-9a-z]+)\.\d+of\d+$/.exec(raw[i]!);
    const at = Number(raw[i + 1]);
    if (!m || !Number.isFinite(at)) continue;
    const prev = out.get(m[1]!);
    if (prev === undefined || at < prev) out.set(m[1]!, at);
  }
  return out;
}

/** A holding in human units; a share token named and valued as the wallet feed read it from the chain. */
function balanceOf(h: WalletSnapshot['holdings'][number], market: MarketSnapshot | undefined, wallet: WalletSnapshot): Balance {
  const balance = { mint: h.mint, symbol: symbolOf(h.mint, market), amount: h.amount, decimals: h.decimals, ui: formatUnits(h.amount, h.decimals) };
  const share = wallet.shareTokens?.find((s) => s.mint === h.mint);
  if (!share) return balance;
  const price = market?.prices[share.asset];
  const decimals = price?.decimals ?? knownByMint(share.asset)?.decimals ?? market?.tokens[share.asset]?.decimals;
  const worth = { asset: share.asset, assetSymbol: symbolOf(share.asset, market), assetAmount: share.underlyingAssets, ui: decimals === undefined ? `${share.underlyingAssets}` : formatUnits(share.underlyingAssets, decimals), exchangePrice: share.exchangePrice };
  return { ...balance, symbol: share.symbol, worth: { ...worth, usd: price && price.usd > 0 ? (Number(share.underlyingAssets) / 10 ** price.decimals) * price.usd : null } };
}

/** A mint's symbol: the known table's, else the market snapshot's token facts; null when neither has one. */
function symbolOf(mint: string, market: MarketSnapshot | undefined): string | null {
  return knownByMint(mint)?.symbol ?? market?.tokens[mint]?.symbol ?? null;
}
