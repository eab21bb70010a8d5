import { Option, type Command } from 'commander';
import { ruleOfCode } from '../../engine/riskRules.js';
import { INTENT_STATES, isTerminal, type IntentState } from '../../engine/states.js';
import type { VenueOrderRecord } from '../../engine/keeperPorts.js';
import { IntentStore, type IntentRecord } from '../../store/intents.js';
import { readVenueOrders } from '../../store/keeperStore.js';
import { readSessions, sessionWindow, type Session } from '../../store/sessions.js';
import { intInRange } from '../args.js';
import type { CliContext } from '../context.js';
import { formatTable } from '../output.js';
import { withLocatedKeeper } from './locate.js';
import { clip, formatAge, nothingStored, prefixInUse, withRedisArgs, type RedisArgs } from './redisArgs.js';
import { shortId } from '../../lib/fills.js';

interface IntentsOptions extends RedisArgs {
  state?: IntentState;
  strategy?: string;
  limit?: number;
  all?: boolean;
}

/**
 * One intent as `intents --json` prints it. Outside tools rely on the first six keys, in this order: new fields
 * are only ever appended after them.
 */
export interface IntentRow {
  id: string;
  /** The strategy instance id (the config's `strategies[].id`). */
  strategy: string;
  kind: string;
  state: IntentState;
  /** The signature of every attempt, oldest first. */
  signatures: string[];
  requestId: string | null;
  attempt: number;
  /** Why it failed, expired or was rejected. */
  error: { code: string; message: string } | null;
  /** Why the strategy asked for it. */
  reason: string | null;
  /** Strategy name@version that decided it. */
  decidedBy: string;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms of the last move. */
  updatedAt: number;
  /** For a rejected intent: the risk-gate or guard rule that refused it (guard rules comma-separated), and why. */
  rejection: { rule: string; message: string } | null;
  /**
   * For an intent that opens an order on the venue (limit, recurring, prediction): its order (and position) account
   * and the venue's word on it (open, partially-filled, filled, cancelled, expired) as the keeper's venue
   * reconciliation last read it; `status` is null until it has. Null for other intents.
   */
  venueOrder: VenueOrderRecord | null;
}

/** Registers `intents`: the intent ledger of a keeper, read from Redis (nothing is started or changed). */
export function registerIntentsCommand(program: Command, ctx: CliContext): void {
  withRedisArgs(
    program
      .command('intents')
      .description("a keeper's intents from its Redis ledger, oldest first (read-only)")
      .addOption(new Option('--state <state>', 'only intents in this state').choices(INTENT_STATES))
      .option('--strategy <id>', 'only intents of this strategy instance')
      .addOption(new Option('--limit <n>', 'only the latest n matching intents').argParser(intInRange('--limit', 1, 1_000_000)))
      .option('--all', 'intents of every session of the prefix (default: those of the current session, or the last one, and any still in flight)'),
    { locate: true },
  ).action(async (opts: IntentsOptions) => {
    // Without --prefix or --config: the running keeper's, as `status` finds it.
    const { loc, listing } = await withLocatedKeeper(opts, async (redis, loc) => {
      if (!(await prefixInUse(redis, loc.prefix))) return { loc, listing: undefined };
      const [l, sessions] = await Promise.all([new IntentStore(redis, loc.prefix).list(), readSessions(redis, loc.prefix)]);
      return { loc, listing: { ...l, sessions, venue: await readVenueOrders(redis, loc.prefix, l.records.map((r) => r.id)) } };
    });
    // A record that does not parse is named on stderr, never printed as a row nor allowed to hide the others.
    for (const c of listing?.corrupt ?? []) ctx.io.err(`intent ${c.id} is corrupt and left out: ${c.problem}\n`);
    const found = listing?.records;
    if (found === undefined) {
      // stdout stays a valid (empty) array for tools; the explanation goes to stderr.
      if (opts.json) ctx.io.json([]);
      if (opts.json) ctx.io.err(`${nothingStored(loc)}\n`);
      else ctx.io.out(`${nothingStored(loc)}\n`);
      return;
    }
    const last = opts.all ? undefined : listing?.sessions.at(-1);
    const window = last === undefined ? undefined : sessionWindow(listing?.sessions ?? [], last.id);
    // The current (or last) session's intents, and any of an earlier one still in flight: it acts in this one.
    const inScope = (r: IntentRecord) => window === undefined || (r.createdAt >= window.from && r.createdAt < window.to) || !isTerminal(r.state);
    let rows = found.filter((r) => inScope(r) && (opts.state === undefined || r.state === opts.state) && (opts.strategy === undefined || r.instance === opts.strategy)).map((r) => intentRow(r, listing?.venue.get(r.id)));
    if (opts.limit !== undefined) rows = rows.slice(-opts.limit);
    if (opts.json) {
      ctx.io.json(rows);
      return;
    }
    const scope = scopeLine(last, listing?.sessions.length ?? 0);
    if (rows.length === 0) {
      ctx.io.out(found.length === 0 ? 'no intents recorded yet\n' : `no intents match (${found.length} recorded in every session; ${scope})\n`);
      return;
    }
    ctx.io.out(`${intentsTable(rows, Date.now())}${rows.length} intent${rows.length === 1 ? '' : 's'}, ${scope}\n`);
  });
}

/** The JSON row of an intent record (with what the venue reconciliation wrote on it): the interface's six keys first, in order, then the extras. */
export function intentRow(r: IntentRecord, venue?: VenueOrderRecord): IntentRow {
  const signatures = r.signatures.length > 0 ? r.signatures : r.signature ? [r.signature] : [];
  return {
    id: r.id,
    strategy: r.instance,
    kind: r.kind,
    state: r.state,
    signatures,
    requestId: r.requestId,
    attempt: r.attempt,
    error: r.error,
    reason: r.intent.reason ?? null,
    decidedBy: r.strategy,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    rejection: r.state === 'rejected' && r.error ? { rule: r.error.rule ?? ruleOfCode(r.error.code) ?? r.error.code, message: r.error.message } : null,
    venueOrder: venue ?? venueOrderOfBuild(r),
  };
}

/** The products whose order-opening intents carry a venue order. */
const OPENS_ORDER: Partial<Record<IntentRecord['kind'], VenueOrderRecord['product']>> = { 'trigger.create': 'trigger', 'recurring.create': 'recurring', 'prediction.buy': 'prediction', 'prediction.sell': 'prediction' };

/** Before the reconciliation read it: the order and position accounts as the build reported them, status unknown. */
function venueOrderOfBuild(r: IntentRecord): VenueOrderRecord | null {
  const product = OPENS_ORDER[r.kind];
  if (!product) return null;
  const text = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);
  const position = text(r.quote?.position) ?? (r.intent.kind === 'prediction.sell' ? r.intent.positionPubkey : null);
  return { product, order: text(r.quote?.order), position, status: null, checkedAt: null, changedAt: null };
}

function intentsTable(rows: readonly IntentRow[], now: number): string {
  return formatTable(
    [{ header: 'ID' }, { header: 'STRATEGY' }, { header: 'KIND' }, { header: 'STATE' }, { header: 'ATTEMPT', align: 'right' }, { header: 'SIGNATURE' }, { header: 'AGE', align: 'right' }, { header: 'ERROR / REASON' }],
    rows.map((r) => [
      r.id,
      r.strategy,
      r.kind,
      r.state,
      String(r.attempt),
      shortId(r.signatures.at(-1)),
      formatAge(now - r.createdAt),
      r.rejection ? clip(`${r.rejection.rule}: ${r.rejection.message}`) : r.error ? clip(`${r.error.code}: ${r.error.message}`) : clip(r.reason),
    ]),
  );
}

/** Which sessions a listing covers, as its last line says. */
function scopeLine(session: Session | undefined, sessions: number): string {
  if (session !== undefined) return `session ${session.id} (started ${new Date(session.startedAt).toISOString().slice(0, 19).replace('T', ' ')} UTC) and any still in flight; --all for every session`;
  return sessions === 0 ? 'every intent (no session recorded)' : `every session (${sessions})`;
}
