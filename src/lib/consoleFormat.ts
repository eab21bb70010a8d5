import { fillPhrase, shortenIds, shortenValue, venueOrderPhrase } from './consoleFills.js';
import { formatUsd, humanNumber, shortId } from './fills.js';
import { summaryPhrase } from './summaryText.js';

// The console a person reads (`logging.format: pretty`, or `auto` on a terminal): each JSON log record becomes one
// human line, a few of them something better than their fields (the start banner, fills, claims, summaries). The
// JSON lines stay the record: this only renders them.

/** A parsed JSON log line. */
export type LogRecord = Record<string, unknown>;

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };

/** The per-trade lines a fill line replaces: "three per trade" is noise for a person. */
const FOLDED = new Set(['intent planned', 'signed; signature persisted before submit', 'landed']);

/** Fields every line has, or that the line shows in its own place. */
const PLAIN = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'service', 'component', 'instance']);

/** Strategy instances the banner lists (a config of thousands gets a count for the rest). */
const BANNER_INSTANCES = 30;

/** What the banner calls each risk limit (config `risk.*`), with how to show its value. */
const LIMITS: ReadonlyArray<[string, string, (v: unknown) => string]> = [
  ['maxNotionalUsdPerIntent', 'per intent', (v) => `${usd(v)} max`],
  ['maxDailyNotionalUsd', 'per UTC day', (v) => `${usd(v)} max`],
  ['maxSlippageBps', 'slippage', (v) => `${Number(v) / 100}% max`],
  ['minSolReserveLamports', 'SOL reserve', (v) => `${humanNumber(Number(v) / 1e9)} SOL kept`],
  ['maxDailyFeeLamports', 'fees per day', (v) => `${humanNumber(Number(v) / 1e9)} SOL max`],
  ['maxPriorityFeeLamports', 'priority fee', (v) => `${humanNumber(Number(v) / 1e9)} SOL max`],
  ['maxDailyLossUsd', 'daily loss', (v) => `${usd(v)} halts`],
  ['maxDrawdownPct', 'drawdown', (v) => `${String(v)}% halts`],
  ['maxEventExposureUsd', 'per prediction event', (v) => `${usd(v)} max`],
  ['maxIntentsPerEvaluation', 'intents per decision', (v) => `${String(v)} max`],
];

/**
 * The human text of one record (one line, the banner several), with its newline; undefined for a record a person
 * need not see (the per-trade lines a fill line replaces).
 */
export function formatRecord(rec: LogRecord): string | undefined {
  const msg = typeof rec.msg === 'string' ? rec.msg : '';
  const level = typeof rec.level === 'number' ? rec.level : 30;
  if (level <= 30 && FOLDED.has(msg)) return undefined;
  const time = clock(rec.time);
  if (msg === 'keeper started' && level === 30) return banner(rec);
  // A landing ('filled' by the executor) or a fill of a resting order (by the venue reconciliation: kind <product>.fill).
  if (msg === 'filled' && level === 30) return `${time} ${landedVerb(str(rec.kind))}  ${str(rec.instance)}  ${fillPhrase(rec)}${sig(rec.signature)}\n`;
  const order = level === 30 ? venueOrderPhrase(rec) : undefined;
  if (order !== undefined) return `${time} ${order}\n`;
  if (msg === 'claimed' && level === 30) return `${time} claimed  ${str(rec.instance)}  ${shortenIds(str(rec.reason))}${sig(rec.signature)}\n`;
  if (msg === 'summary' && level === 30) return `${time} summary  ${summaryLine(rec)}\n`;
  // A kill-switch change from any process (src/notify/killSwitchEcho.ts), as the notifications word it.
  if (msg === 'kill switch engaged' && rec.engaged === true) return `${time} KILL SWITCH ENGAGED (${str(rec.mode) || 'halt'}) by ${str(rec.by)}: ${str(rec.reason)}\n`;
  if (msg === 'kill switch released' && rec.engaged === false) return `${time} kill switch released by ${str(rec.by)}\n`;
  // The dashboard's URL is in the banner that follows.
  if (level <= 30 && rec.component === 'dashboard' && typeof rec.url === 'string' && msg.startsWith('dashboard at ')) return undefined;
  const head = [time, LEVELS[level] ?? String(level), rec.component, rec.instance].filter((p) => typeof p === 'string' && p !== '').join(' ');
  // Ids, addresses and signatures shortened: the line is read at a glance; the JSON format keeps them whole.
  const instance = typeof rec.instance === 'string' ? rec.instance : undefined;
  const extra = Object.entries(rec)
    .filter(([k, v]) => !PLAIN.has(k) && v !== undefined)
    .map(([k, v]) => `${k}=${value(shortenValue(v, instance))}`)
    .join(' ');
  return `${head}  ${shortenIds(msg)}${extra ? `  ${extra}` : ''}\n`;
}

/**
 * The first word of a landing's line: what the landed transaction did. Only a swap is filled when it lands; an order
 * is placed (its fills come later, from the venue), a deposit deposited, and so on. The JSON record stays 'filled'.
 */
function landedVerb(kind: string): string {
  switch (kind) {
    case 'swap':
    case 'trigger.fill':
    case 'recurring.fill':
    case 'prediction.fill':
      return 'filled';
    case 'trigger.create':
    case 'recurring.create':
    case 'prediction.buy':
    case 'prediction.sell':
      return 'placed';
    case 'trigger.cancel':
    case 'recurring.cancel':
    case 'prediction.closeOrder':
      return 'cancelled';
    case 'prediction.closePosition':
      return 'closed';
    case 'lend.deposit':
    case 'lend.mint':
      return 'deposited';
    case 'lend.withdraw':
    case 'lend.redeem':
      return 'withdrew';
    case 'send':
      return 'sent';
    case 'send.clawback':
      return 'clawed back';
    default:
      return 'landed';
  }
}

/** The summary fields as a phrase that says its scope (see summaryPhrase): "session 3 (12m): 4 trades, …". */
export function summaryLine(rec: LogRecord): string {
  const n = (k: string) => num(rec[k]) ?? 0;
  const pnl = (k: string) => num(rec[k]) ?? null;
  return summaryPhrase({ period: str(rec.period) || 'since start', sinceMs: num(rec.sinceMs), session: num(rec.session), trades: n('trades'), claims: n('claims'), volumeUsd: n('volumeUsd'), feesLamports: str(rec.feesLamports) || '0', refusals: n('refusals'), errors: n('errors'), pnlUsd: pnl('pnlUsd'), unrealizedUsd: pnl('unrealizedUsd') });
}

function banner(rec: LogRecord): string {
  const live = rec.venue === 'live';
  const rule = '='.repeat(78);
  const lines = [rule, live ? ' jup-keeper  LIVE TRADING: REAL MONEY, REAL TRANSACTIONS' : ' jup-keeper  PAPER TRADING on the simulator (no real money)'];
  lines.push(` venue      ${str(rec.venue)}${rec.venueUrl ? ` at ${str(rec.venueUrl)}` : ''}`);
  lines.push(` wallet     ${str(rec.wallet)}`);
  if (typeof rec.dashboard === 'string') lines.push(` dashboard  ${rec.dashboard}${typeof rec.dashboardBusyPort === 'number' ? `  (port ${rec.dashboardBusyPort} is in use, another keeper?)` : ''}`);
  else if (rec.dashboard === null) lines.push(' dashboard  off');
  if (rec.role !== undefined && rec.role !== 'all') lines.push(` role       ${str(rec.role)}`);
  const instances = Array.isArray(rec.instances) ? (rec.instances as LogRecord[]) : undefined;
  const ids = Array.isArray(rec.strategies) ? (rec.strategies as unknown[]).map(String) : [];
  lines.push(` strategies ${instances?.length ?? ids.length}`);
  if (instances) {
    const shown = instances.slice(0, BANNER_INSTANCES);
    const w = Math.max(...shown.map((i) => str(i.id).length), 2);
    const s = Math.max(...shown.map((i) => str(i.strategy).length), 2);
    for (const i of instances.slice(0, BANNER_INSTANCES)) lines.push(`   ${str(i.id).padEnd(w)}  ${str(i.strategy).padEnd(s)}  ${str(i.schedule)}`);
  } else for (const id of ids.slice(0, BANNER_INSTANCES)) lines.push(`   ${id}`);
  const total = instances?.length ?? ids.length;
  if (total > BANNER_INSTANCES) lines.push(`   … and ${total - BANNER_INSTANCES} more`);
  const limits = rec.limits && typeof rec.limits === 'object' ? (rec.limits as LogRecord) : undefined;
  if (limits) {
    lines.push(' limits');
    for (const [key, label, show] of LIMITS) if (limits[key] !== undefined && limits[key] !== null) lines.push(`   ${label.padEnd(21)} ${show(limits[key])}`);
  }
  lines.push(rule);
  return `${lines.join('\n')}\n`;
}

function sig(v: unknown): string {
  return typeof v === 'string' && v !== '' ? `  sig ${shortId(v)}` : '';
}

function clock(t: unknown): string {
  return typeof t === 'number' ? new Date(t).toISOString().slice(11, 19) : '--:--:--';
}

function usd(v: unknown): string {
  const n = Number(v);
  return Number.isFinite(n) ? formatUsd(n) : String(v);
}

function str(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return v === undefined || v === null ? '' : JSON.stringify(v);
}

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

function value(v: unknown): string {
  const s = typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v) ?? String(v);
  return s.length > 160 ? `${s.slice(0, 159)}…` : s;
}

/**
 * A destination for pino that writes human lines to `out`: each JSON line pino writes is parsed and formatted
 * (a line that is not JSON passes through as it is).
 */
export function prettyDestination(out: { write(text: string): unknown }): { write(line: string): void } {
  return {
    write(line: string) {
      for (const one of line.split('\n')) {
        if (one === '') continue;
        let rec: LogRecord;
        try {
          rec = JSON.parse(one) as LogRecord;
        } catch {
          out.write(`${one}\n`);
          continue;
        }
        const text = formatRecord(rec);
        if (text !== undefined) out.write(text);
      }
    },
  };
}
