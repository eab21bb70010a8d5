import type { Command } from 'commander';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { DecisionSummary } from '../../engine/ports.js';
import type { KillSwitchMode } from '../../engine/killSwitch.js';
import { ruleOfCode } from '../../engine/riskRules.js';
import { INTENT_STATES, type IntentState } from '../../engine/states.js';
import { formatUnits } from '../../lib/amounts.js';
import { KeeperError } from '../../lib/errors.js';
import { knownByMint } from '../../lib/mints.js';
import { RiskStore, StrategyStateStore } from '../../store/engineStore.js';
import { IntentStore } from '../../store/intents.js';
import { readKeeperStatus } from '../../store/keeperStore.js';
import { PnlStore } from '../../store/pnl.js';
import { SnapshotStore, type MarketSnapshot, type WalletSnapshot } from '../../store/snapshots.js';
import type { CliContext } from '../context.js';
import { formatDuration, formatMicroUsd, formatUsd, mintLabel } from '../format.js';
import { formatFields, formatTable } from '../output.js';
import { cadenceTag } from '../../engine/shards.js';
import { walletValueUsd } from '../../engine/walletValue.js';
import { readPresence, type KeeperBeat } from '../../store/presence.js';
import { withLocatedKeeper, type LocatedKeeper } from './locate.js';
import { renderKeeperJobs, type KeeperJobsDocument } from './statusKeeper.js';
import { clip, formatAge, nothingStored, prefixInUse, safeRedisUrl, shortId, withRedisArgs, type KeeperLocation, type RedisArgs } from './redisArgs.js';

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
}
interface Pnl {
  realizedUsd: number;
  volumeUsd: number;
  fills: number;
}

/** The document `status --json` prints (bigints as decimal strings, times in unix ms). */
export interface StatusDocument {
  prefix: string;
  redis: string;
  at: number;
  keeper: { startedAt: number | null; config: string | null };
  venue: { kind: string; url: string | null; rpcUrl: string | null } | null;
  wallet: { address: string } | null;
  balances: { at: number; sol: { lamports: bigint; ui: string }; tokens: Balance[] } | null;
  killSwitch: { engaged: boolean; mode: KillSwitchMode | null; reason: string | null; by: string | null; at: number | null };
  strategies: Array<{ id: string; strategy: string; version: string | null; schedule: z.output<typeof scheduleSchema>; lastDecision: DecisionSummary | null; pnl: Pnl; nextRunAt: NextRun }>;
  intents: { total: number; byState: Record<IntentState, number> };
  orders: { trigger: WalletSnapshot['trigger']; recurring: WalletSnapshot['recurring'] } | null;
  positions: { lend: WalletSnapshot['lend']; prediction: WalletSnapshot['prediction'] } | null;
  pnl: { strategies: Array<{ id: string } & Pnl>; total: Pnl };
  snapshots: Record<'market' | 'wallet' | 'prediction', { at: number; ageMs: number } | null>;
  feedErrors: Record<string, string>;
  guardRefusals: Array<{ id: string; strategy: string; kind: string; at: number; reason: string }>;
  /** Every refusal (risk gate and guard), newest first, with its rule. */
  refusals: Array<{ id: string; strategy: string; kind: string; at: number; rule: string; reason: string }>;
  /** The keeper jobs: each one's last run (when, outcome), the latest claims made, and the last sweep's report. */
  keeperJobs: KeeperJobsDocument;
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
  /** How the prefix was found when no flag named it (`heartbeat`: the only keeper alive; `default-config`: ./config/paper.yaml's). */
  located?: { how: LocatedKeeper['how']; othersAlive: string[] };
}

/** A strategy's next evaluation (unix ms) while its keeper is alive; null when stopped or not known. */
export type NextRun = number | null;

/** Registers `status`: what a keeper is doing and has done, read from Redis (nothing is started or changed). */
export function registerStatusCommand(program: Command, ctx: CliContext): void {
  withRedisArgs(
    program
      .command('status')
      .description("a keeper's state from Redis: alive or stopped, venue, wallet and its value, strategies and their next runs, intents, P&L (read-only)")
      .addHelpText(
        'after',
        `
Without --prefix or --config, status finds the keeper \`npm start\` runs: on the Redis of --redis-url,
./config/paper.yaml, REDIS_URL or redis://127.0.0.1:6379, the keeper alive now (by its heartbeat); with
several alive, ./config/paper.yaml's; with none alive, ./config/paper.yaml's prefix (when that file is in the
working directory), else "jk". A keeper is alive while its processes write their heartbeats (every 5 s, each
living 20 s); once they stop, status says STOPPED and since when.`,
      ),
    { locate: true },
  ).action(async (opts: RedisArgs) => {
    const found = await withLocatedKeeper(opts, async (redis, loc) => ({ loc, doc: (await prefixInUse(redis, loc.prefix)) ? await readStatus(redis, loc, Date.now()) : undefined }));
    const { loc } = found;
    const doc = found.doc && (loc.how === 'flag' ? found.doc : { ...found.doc, located: { how: loc.how, othersAlive: loc.othersAlive } });
    if (doc === undefined) {
      if (opts.json) ctx.io.json({ prefix: loc.prefix, redis: safeRedisUrl(loc.redisUrl), empty: true, message: nothingStored(loc) });
      else ctx.io.out(`${nothingStored(loc)}\n`);
      return;
    }
    if (opts.json) ctx.io.json(doc);
    else ctx.io.out(renderStatus(doc));
  });
}

/** Reads everything status shows, through the stores. */
export async function readStatus(redis: Redis, loc: KeeperLocation, now: number): Promise<StatusDocument> {
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
  for (const id of new Set([...meta.strategies.map((s) => s.id), ...pnlIds])) pnlOf.set(id, await pnlStore.summary(id));
  const strategies = [];
  for (const s of meta.strategies) {
    const d = await states.lastDecision(s.id);
    // The states recorded with a decision are those of that moment; show where each intent is now.
    const now = d ? new Map((await intents.read(d.intents.map((i) => i.id))).records.map((r) => [r.id, r.state])) : new Map<string, IntentState>();
    const lastDecision = d && { ...d, intents: d.intents.map((i) => ({ ...i, state: now.get(i.id) ?? i.state })) };
    strategies.push({ id: s.id, strategy: s.strategy, version: s.version ?? null, schedule: s.schedule, lastDecision: lastDecision ?? null, pnl: pnlOf.get(s.id)!, nextRunAt: null as NextRun });
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
    balances: wallet ? { at: wallet.at, sol: { lamports: wallet.lamports, ui: formatUnits(wallet.lamports, 9) }, tokens: wallet.holdings.map((h) => ({ mint: h.mint, symbol: symbolOf(h.mint, market), amount: h.amount, decimals: h.decimals, ui: formatUnits(h.amount, h.decimals) })) } : null,
    killSwitch: { engaged: halted !== null, mode: halted?.mode ?? null, reason: halted?.reason ?? null, by: halted?.by ?? null, at: halted && halted.at > 0 ? halted.at : null },
    strategies,
    intents: { total: INTENT_STATES.reduce((t, s) => t + byState[s], 0), byState },
    orders: wallet ? { trigger: wallet.trigger, recurring: wallet.recurring } : null,
    positions: wallet ? { lend: wallet.lend, prediction: wallet.prediction } : null,
    pnl: { strategies: pnlRows, total: { realizedUsd: sum('realizedUsd'), volumeUsd: sum('volumeUsd'), fills: sum('fills') } },
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

/** A book's holdings at the market's prices, minus their cost; mints without a price are named and left out. */
function unrealizedOf(holdings: ReadonlyArray<{ mint: string; qty: number; costUsd: number }>, market: MarketSnapshot | undefined): { unrealizedUsd: number; unpriced: string[] } {
  let usd = 0;
  const unpriced: string[] = [];
  for (const h of holdings) {
    const p = market?.prices[h.mint];
    if (!p || !(p.usd > 0)) unpriced.push(h.mint);
    else usd += (h.qty / 10 ** p.decimals) * p.usd - h.costUsd;
  }
  return { unrealizedUsd: usd, unpriced };
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

function symbolOf(mint: string, market: MarketSnapshot | undefined): string | null {
  return knownByMint(mint)?.symbol ?? market?.tokens[mint]?.symbol ?? null;
}

/** The human rendering of a status document. */
export function renderStatus(doc: StatusDocument): string {
  const ago = (at: number | null | undefined): string => (at ? `${formatAge(doc.at - at)} ago` : 'never');
  const out: string[] = [];
  const head: [string, string][] = [
    ['keeper', keeperLine(doc, ago)],
    ...(doc.dashboardUrl ? ([['dashboard', doc.dashboardUrl]] as [string, string][]) : []),
    ['where', `prefix ${doc.prefix} on ${doc.redis}${doc.keeper.config ? ` (${doc.keeper.config})` : ''}${locatedNote(doc)}`],
    ['venue', doc.venue ? `${doc.venue.kind} ${doc.venue.url ?? ''}`.trim() : 'unknown (no keeper meta)'],
    ['wallet', doc.wallet?.address ?? 'unknown'],
    ['wallet value', walletValueLine(doc, ago)],
    ['P&L', `realised ${formatPnlUsd(doc.pnl.total.realizedUsd)}, unrealised ${formatPnlUsd(doc.unrealizedPnl.totalUsd)} (the strategies' swaps, by average cost)`],
    ['kill switch', doc.killSwitch.engaged ? `ENGAGED (${doc.killSwitch.mode ?? 'halt'})${doc.killSwitch.by ? ` by ${doc.killSwitch.by}` : ''}${doc.killSwitch.at ? ` ${ago(doc.killSwitch.at)}` : ''}: ${doc.killSwitch.reason ?? ''}`.trim() : 'off'],
    ['risk today', riskLine(doc)],
    ['intents', `${doc.intents.total}${doc.intents.total > 0 ? ` (${INTENT_STATES.filter((s) => doc.intents.byState[s] > 0).map((s) => `${doc.intents.byState[s]} ${s}`).join(', ')})` : ''}`],
    ['snapshots', (['market', 'wallet', 'prediction'] as const).map((n) => `${n} ${ago(doc.snapshots[n]?.at)}`).join(', ')],
  ];
  out.push(formatFields(head));
  const decimals = new Map((doc.balances?.tokens ?? []).map((t) => [t.mint, t.decimals]));
  const amount = (mint: string, v: bigint): string => {
    const d = knownByMint(mint)?.decimals ?? decimals.get(mint);
    return d === undefined ? `${v} (base units)` : `${formatUnits(v, d)} ${mintLabel(mint)}`;
  };
  if (doc.balances) {
    const rows = [['SOL', doc.balances.sol.ui, '(native)'], ...doc.balances.tokens.map((t) => [t.symbol ?? shortId(t.mint), t.ui, t.mint])];
    out.push(`balances (${ago(doc.balances.at)})\n${indent(formatTable([{ header: 'TOKEN' }, { header: 'AMOUNT', align: 'right' }, { header: 'MINT' }], rows))}`);
  }
  if (doc.strategies.length > 0) {
    const rows = doc.strategies.map((s) => {
      const d = s.lastDecision;
      const schedule = 'every' in s.schedule ? `every ${s.schedule.every % 1000 === 0 ? formatDuration(s.schedule.every / 1000) : `${s.schedule.every}ms`}` : `cron ${s.schedule.cron}${s.schedule.tz ? ` ${s.schedule.tz}` : ''}`;
      const intents = d?.intents.map((i) => `${i.kind} ${i.state}`).join(', ') || '-';
      const next = !doc.heartbeat.alive ? 'stopped' : s.nextRunAt === null ? '-' : s.nextRunAt <= doc.at ? 'due now' : `in ${formatAge(s.nextRunAt - doc.at + 999)}`;
      return [s.id, `${s.strategy}${s.version ? `@${s.version}` : ''}`, schedule, d ? ago(d.at) : 'never', next, d?.outcome ?? '-', intents, clip(d?.message ?? d?.intents.find((i) => i.reason)?.reason, 50)];
    });
    out.push(`strategies\n${indent(formatTable([{ header: 'ID' }, { header: 'STRATEGY' }, { header: 'SCHEDULE' }, { header: 'DECIDED' }, { header: 'NEXT RUN' }, { header: 'OUTCOME' }, { header: 'INTENTS' }, { header: 'MESSAGE' }], rows))}`);
  }
  const orders = [
    ...(doc.orders?.trigger ?? []).map((o) => ['trigger', shortId(o.order), `${amount(o.inputMint, o.makingAmount)} for ${amount(o.outputMint, o.takingAmount)}, ${amount(o.inputMint, o.remainingMakingAmount)} left`]),
    ...(doc.orders?.recurring ?? []).map((o) => ['recurring', shortId(o.order), `${amount(o.inputMint, o.inUsed)} of ${amount(o.inputMint, o.inDeposited)} used, ${amount(o.outputMint, o.outReceived)} received`]),
    ...(doc.positions?.lend ?? []).map((p) => ['lend', mintLabel(p.asset), `${amount(p.asset, p.underlyingAssets)} (${p.shares} shares)`]),
    ...(doc.positions?.prediction ?? []).map((p) => ['prediction', shortId(p.marketId), `${formatUnits(p.contractsMicro, 6)} ${p.isYes ? 'YES' : 'NO'} at ${formatMicroUsd(p.avgPriceMicroUsd)}${p.claimable && !p.claimed ? ', claimable' : ''}${p.claimed ? ', claimed' : ''}`]),
  ];
  if (orders.length > 0) out.push(`open orders and positions\n${indent(formatTable([{ header: 'TYPE' }, { header: 'ID' }, { header: 'DETAILS' }], orders))}`);
  if (doc.pnl.strategies.length > 0) {
    const unrealized = new Map(doc.unrealizedPnl.strategies.map((u) => [u.id, u.unrealizedUsd]));
    const row = (id: string, p: Pnl, u: number | undefined) => [id, formatPnlUsd(p.realizedUsd), u === undefined ? '-' : formatPnlUsd(u), formatFixedUsd(p.volumeUsd), String(p.fills)];
    const rows = [...doc.pnl.strategies.map((p) => row(p.id, p, unrealized.get(p.id))), row('total', doc.pnl.total, doc.unrealizedPnl.totalUsd)];
    out.push(`P&L of swaps (average cost)\n${indent(formatTable([{ header: 'STRATEGY' }, { header: 'REALISED', align: 'right' }, { header: 'UNREALISED', align: 'right' }, { header: 'VOLUME', align: 'right' }, { header: 'FILLS', align: 'right' }], rows))}`);
  }
  const errors = Object.entries(doc.feedErrors);
  if (errors.length > 0) out.push(`feed errors\n${indent(formatFields(errors))}`);
  if (doc.refusals.length > 0) {
    const rows = doc.refusals.map((r) => [r.id, r.strategy, ago(r.at), r.rule, clip(r.reason, 80)]);
    out.push(`refusals (latest ${doc.refusals.length})\n${indent(formatTable([{ header: 'INTENT' }, { header: 'STRATEGY' }, { header: 'WHEN' }, { header: 'RULE' }, { header: 'REASON' }], rows))}`);
  }
  out.push(...renderKeeperJobs(doc.keeperJobs, ago));
  return out.join('\n');
}

/** Alive (with its processes) or stopped, and since when. */
function keeperLine(doc: StatusDocument, ago: (at: number | null | undefined) => string): string {
  const h = doc.heartbeat;
  if (h.alive) {
    const procs = h.processes.map((p) => `pid ${p.pid} on ${p.host}${p.role === 'all' ? '' : ` (${p.role})`}`).join(', ');
    return `RUNNING since ${formatTime(h.since)} (${ago(h.since)}), heartbeat ${ago(h.lastBeatAt)}: ${procs}`;
  }
  if (h.since !== null) {
    const how = h.stoppedAt !== null ? 'stopped cleanly' : 'no heartbeat since then: it died or hung';
    const ran = doc.keeper.startedAt !== null && doc.keeper.startedAt <= h.since ? `; it had run ${formatAge(h.since - doc.keeper.startedAt)} from ${formatTime(doc.keeper.startedAt)}` : '';
    return `STOPPED since ${formatTime(h.since)} (${ago(h.since)}, ${how})${ran}`;
  }
  return `not running (no heartbeat recorded${doc.keeper.startedAt ? `; last started ${ago(doc.keeper.startedAt)} by a version that did not beat` : ''})`;
}

/** Why this prefix, when no flag named it. */
function locatedNote(doc: StatusDocument): string {
  if (!doc.located) return '';
  const how = doc.located.how === 'heartbeat' ? ', the keeper alive on this Redis' : doc.located.how === 'default-config' ? ', from ./config/paper.yaml' : ', the default';
  const others = doc.located.othersAlive.length > 0 ? `; also alive here: ${doc.located.othersAlive.join(', ')} (--prefix)` : '';
  return `${how}${others}`;
}

/** The wallet's value at start and now, and the change. */
function walletValueLine(doc: StatusDocument, ago: (at: number | null | undefined) => string): string {
  const v = doc.walletValue;
  const start = v.startUsd === null ? 'not recorded' : formatFixedUsd(v.startUsd);
  if (v.nowUsd === null) return `${start} at start; now unknown (no wallet or market snapshot yet)`;
  const change = v.changeUsd === null ? '' : ` (${formatPnlUsd(v.changeUsd)})`;
  const unpriced = v.unpriced.length > 0 ? `; ${v.unpriced.length} token(s) without a price left out` : '';
  return `${start} at start, ${formatFixedUsd(v.nowUsd)} now${change} as of ${ago(v.at)}${unpriced}`;
}

/** USD with exactly 2 decimals ("$1,234.50", "$0.03"). */
export function formatFixedUsd(value: number): string {
  const text = Math.abs(value).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  return `${value < 0 && text !== '0.00' ? '-' : ''}$${text}`;
}

/** Signed USD with exactly 2 decimals ("+$1.20", "-$0.03", "$0.00"). */
export function formatPnlUsd(value: number): string {
  const text = formatFixedUsd(value);
  return text === '$0.00' || text.startsWith('-') ? text : `+${text}`;
}

/** Unix ms as "YYYY-MM-DD HH:MM:SS UTC". */
function formatTime(at: number | null): string {
  return at === null ? '-' : `${new Date(at).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** Today's notional, fees and refusals by rule, and the wallet's peak value. */
function riskLine(doc: StatusDocument): string {
  const r = doc.risk;
  const refused = Object.entries(r.refusalsToday).map(([rule, n]) => `${n} ${rule}`).join(', ');
  const parts = [`${formatUsd(r.notionalTodayUsd)} traded`, `${formatUnits(r.feesTodayLamports, 9)} SOL in fees`, refused ? `refused: ${refused}` : 'nothing refused'];
  if (r.peakValueUsd !== null) parts.push(`wallet peak ${formatUsd(r.peakValueUsd)}`);
  return parts.join(', ');
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
