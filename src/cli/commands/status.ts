import type { Command } from 'commander';
import { INTENT_STATES } from '../../engine/states.js';
import { formatUnits } from '../../lib/amounts.js';
import { knownByMint } from '../../lib/mints.js';
import { readStatus, type Pnl, type StatusDocument } from '../../store/status.js';
import type { CliContext } from '../context.js';
import { formatDuration } from '../../config/duration.js';
import { formatMicroUsd, formatUsd, mintLabel } from '../format.js';
import { formatFields, formatTable } from '../output.js';
import { withLocatedKeeper, type LocatedKeeper } from './locate.js';
import { renderKeeperJobs } from './statusKeeper.js';
import { clip, formatAge, nothingStored, prefixInUse, safeRedisUrl, withRedisArgs, type RedisArgs } from './redisArgs.js';
import { shortId } from '../../lib/fills.js';

/**
 * What `status` prints: the status read model (src/store/status.ts, which the dashboard serves too) and, when no
 * flag named the prefix, how it was found.
 */
export type StatusView = StatusDocument & {
  /** How the prefix was found when no flag named it (`heartbeat`: the only keeper alive; `default-config`: ./config/paper.yaml's). */
  located?: { how: LocatedKeeper['how']; othersAlive: string[] };
};

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

/** The human rendering of a status document. */
export function renderStatus(doc: StatusView): string {
  const ago = (at: number | null | undefined): string => (at ? `${formatAge(doc.at - at)} ago` : 'never');
  const out: string[] = [];
  const head: [string, string][] = [
    ['keeper', keeperLine(doc, ago)],
    ...(doc.dashboardUrl ? ([['dashboard', doc.dashboardUrl]] as [string, string][]) : []),
    ['where', `prefix ${doc.prefix} on ${doc.redis}${doc.keeper.config ? ` (${doc.keeper.config})` : ''}${locatedNote(doc)}`],
    ['venue', doc.venue ? `${doc.venue.kind} ${doc.venue.url ?? ''}`.trim() : 'unknown (no keeper meta)'],
    ['wallet', doc.wallet?.address ?? 'unknown'],
    ['wallet value', walletValueLine(doc, ago)],
    ['session', doc.session ? `${doc.session.id}, started ${ago(doc.session.startedAt)}: ${doc.trades.session} trade(s)${doc.trades.claims > 0 ? ` (${doc.trades.claims} claim(s))` : ''} (\`trades\`; --all for every session)` : 'none recorded'],
    ['P&L', `realised ${formatPnlUsd(doc.pnl.total.realizedUsd)} this session (${formatPnlUsd(doc.pnl.allSessions.realizedUsd)} over every session), unrealised ${formatPnlUsd(doc.unrealizedPnl.totalUsd)} (the strategies' swaps, by average cost)`],
    ['kill switch', doc.killSwitch.engaged ? `ENGAGED (${doc.killSwitch.mode ?? 'halt'})${doc.killSwitch.by ? ` by ${doc.killSwitch.by}` : ''}${doc.killSwitch.at ? ` ${ago(doc.killSwitch.at)}` : ''}: ${doc.killSwitch.reason ?? ''}`.trim() : 'off'],
    ['risk today', riskLine(doc)],
    ['intents', `${doc.intents.session} this session; ${doc.intents.total} over every session${doc.intents.total > 0 ? ` (${INTENT_STATES.filter((s) => doc.intents.byState[s] > 0).map((s) => `${doc.intents.byState[s]} ${s}`).join(', ')})` : ''}`],
    ['snapshots', (['market', 'wallet', 'prediction'] as const).map((n) => `${n} ${ago(doc.snapshots[n]?.at)}`).join(', ')],
  ];
  out.push(formatFields(head));
  const decimals = new Map((doc.balances?.tokens ?? []).map((t) => [t.mint, t.decimals]));
  const amount = (mint: string, v: bigint): string => {
    const d = knownByMint(mint)?.decimals ?? decimals.get(mint);
    return d === undefined ? `${v} (base units)` : `${formatUnits(v, d)} ${mintLabel(mint)}`;
  };
  if (doc.balances) {
    const rows = [['SOL', doc.balances.sol.ui, '(native)'], ...doc.balances.tokens.map((t) => [t.symbol ?? shortId(t.mint), t.ui, t.mint, shareWorth(t.worth)])];
    // A share token (a lend deposit's jlTokens) is worth its asset at the exchange price the chain holds.
    const worth = doc.balances.tokens.some((t) => t.worth) ? [{ header: 'WORTH' }] : [];
    out.push(`balances (${ago(doc.balances.at)})\n${indent(formatTable([{ header: 'TOKEN' }, { header: 'AMOUNT', align: 'right' }, { header: 'MINT' }, ...worth], rows))}`);
  }
  if (doc.strategies.length > 0) {
    const rows = doc.strategies.map((s) => {
      const d = s.lastDecision;
      const schedule = 'every' in s.schedule ? `every ${formatDuration(s.schedule.every)}` : `cron ${s.schedule.cron}${s.schedule.tz ? ` ${s.schedule.tz}` : ''}`;
      const intents = d?.intents.map((i) => `${i.kind} ${i.state}`).join(', ') || '-';
      const next = !doc.heartbeat.alive ? 'stopped' : s.nextRunAt === null ? '-' : s.nextRunAt <= doc.at ? 'due now' : `in ${formatAge(s.nextRunAt - doc.at + 999)}`;
      const evaluated = s.lastEvaluation ? ago(s.lastEvaluation.at) : 'never';
      return [s.id, `${s.strategy}${s.version ? `@${s.version}` : ''}`, schedule, evaluated, next, d?.outcome ?? '-', d ? ago(d.at) : '-', intents, clip(strategyMessage(s), 50)];
    });
    out.push(`strategies\n${indent(formatTable([{ header: 'ID' }, { header: 'STRATEGY' }, { header: 'SCHEDULE' }, { header: 'EVALUATED' }, { header: 'NEXT RUN' }, { header: 'OUTCOME' }, { header: 'SINCE' }, { header: 'INTENTS' }, { header: 'MESSAGE' }], rows))}`);
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
    out.push(`P&L of swaps this session (average cost)\n${indent(formatTable([{ header: 'STRATEGY' }, { header: 'REALISED', align: 'right' }, { header: 'UNREALISED', align: 'right' }, { header: 'VOLUME', align: 'right' }, { header: 'FILLS', align: 'right' }], rows))}`);
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

/**
 * What a strategy row says: why it did not decide (a skip's or a failure's reason), else the last line the strategy
 * logged, else its last intent's reason.
 */
function strategyMessage(s: StatusDocument['strategies'][number]): string | undefined {
  const d = s.lastDecision;
  if (d?.message && (d.outcome === 'skipped' || d.outcome === 'error')) return d.message;
  return s.lastMessage?.text ?? d?.message ?? d?.intents.find((i) => i.reason)?.reason;
}

/** Alive (with its processes) or stopped, and since when. */
function keeperLine(doc: StatusView, ago: (at: number | null | undefined) => string): string {
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
function locatedNote(doc: StatusView): string {
  if (!doc.located) return '';
  const how = doc.located.how === 'heartbeat' ? ', the keeper alive on this Redis' : doc.located.how === 'default-config' ? ', from ./config/paper.yaml' : ', the default';
  const others = doc.located.othersAlive.length > 0 ? `; also alive here: ${doc.located.othersAlive.join(', ')} (--prefix)` : '';
  return `${how}${others}`;
}

/** What a share token is worth in its asset ("203.12 USDC, $203.10"); empty for another token. */
function shareWorth(w: NonNullable<StatusView['balances']>['tokens'][number]['worth']): string {
  return w ? `${w.ui} ${w.assetSymbol ?? shortId(w.asset)}${w.usd === null ? '' : `, ${formatFixedUsd(w.usd)}`}` : '';
}

/** The wallet's value at start and now, and the change. */
function walletValueLine(doc: StatusView, ago: (at: number | null | undefined) => string): string {
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
function riskLine(doc: StatusView): string {
  const r = doc.risk;
  const refused = Object.entries(r.refusalsToday).map(([rule, n]) => `${n} ${rule}`).join(', ');
  const parts = [`${formatUsd(r.notionalTodayUsd)} traded`, `${formatUnits(r.feesTodayLamports, 9)} SOL in fees`, refused ? `refused: ${refused}` : 'nothing refused'];
  if (r.peakValueUsd !== null) parts.push(`wallet peak ${formatUsd(r.peakValueUsd)}`);
  return parts.join(', ');
}

function indent(text: string): string {
  return text.replace(/^(?=.)/gm, '  ');
}
