import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Redis } from 'ioredis';
import { parseDuration } from '../../config/duration.js';
import { formatUnits } from '../../lib/amounts.js';
import { knownByMint } from '../../lib/mints.js';
import { SnapshotStore } from '../../store/snapshots.js';
import { readPresence } from '../../store/presence.js';
import { readSessions, type Session } from '../../store/sessions.js';
import { readTrades, tradePriceUsd, type Trade, type TradeLeg } from '../../store/trades.js';
import type { CliContext } from '../context.js';
import { formatUsd } from '../format.js';
import { formatTable } from '../output.js';
import { withLocatedKeeper, type LocatedKeeper } from './locate.js';
import { nothingStored, prefixInUse, withRedisArgs, type RedisArgs } from './redisArgs.js';
import { shortId } from '../../lib/fills.js';

interface TradesOptions extends RedisArgs {
  since?: number;
  all?: boolean;
}

/**
 * One trade as `trades --json` prints it. An outside tool relies on exactly these keys: amounts are decimal strings
 * in human units (the token's decimals: "0.05" SOL, not lamports; prediction contracts as contracts), null when the
 * ledger does not record them; `priceUsd` a decimal string (USD per unit of the leg that is not a USD stablecoin,
 * or per contract); `feeLamports` the transaction fee in lamports (a decimal string of an integer); `at` ISO 8601.
 */
export interface TradeRow {
  intent: string;
  strategy: string;
  kind: string;
  signature: string | null;
  at: string;
  inputMint: string | null;
  inAmount: string | null;
  outputMint: string | null;
  outAmount: string | null;
  priceUsd: string | null;
  feeLamports: string | null;
  session: number | null;
}

/** Registers `trades`: every settled trade and claim of a keeper, read from its Redis ledger (read-only). */
export function registerTradesCommand(program: Command, ctx: CliContext): void {
  withRedisArgs(
    program
      .command('trades')
      .description("a keeper's settled trades and claims from its Redis ledger, oldest first, amounts in token units (read-only)")
      .option('--all', 'every session of the prefix, with a SESSION column (default: the current session, or the last one)')
      .addOption(new Option('--since <when>', 'only trades at or after this: a duration back from now (30m, 12h, 7d) or an ISO time (2026-11-27T05:00:00Z)').argParser(parseSince))
      .addHelpText(
        'after',
        `
What is listed: landed swaps; limit (trigger), recurring and prediction orders once the keeper's venue
reconciliation saw them filled (a limit order at its own terms: the venue may have paid more; a recurring
order's output is not recorded); prediction claims; Lend Earn deposits, withdrawals, mints and redeems.
Orders still resting, cancels and sends are not trades (see \`intents\`, \`send list\`). This is the one
definition of a trade: the console summary, status and the dashboard count the same.

Scope: a session is one run of the keeper (each start begins the next). By default only the current session's
trades are listed (the last one's once the keeper stopped), and the first line says which; --all lists every
session's, each naming its session.

--json prints an array of objects with exactly these keys:
  intent, strategy, kind, signature, at, inputMint, inAmount, outputMint, outAmount, priceUsd, feeLamports, session
Amounts are decimal strings in human units (the token's decimals: "0.05" SOL, not lamports); prediction
contracts are counted in contracts, with a null mint; an amount the ledger does not record is null.
priceUsd is a decimal string: USD per unit of the side that is not a USD stablecoin (per contract for
prediction fills and claims), null when neither side is in USD. feeLamports is the transaction's fee in
lamports. at is an ISO 8601 time (UTC). kind is one of swap, trigger.fill, recurring.fill, prediction.fill,
prediction.sell, prediction.claim, lend.deposit, lend.withdraw, lend.mint, lend.redeem. session is the
number of the session it happened in (null for trades before sessions were recorded).

Without --prefix or --config it finds the keeper as \`status\` does (the one alive, else ./config/paper.yaml's).`,
      ),
    { locate: true },
  ).action(async (opts: TradesOptions) => {
    const found = await withLocatedKeeper(opts, async (redis, loc) => ((await prefixInUse(redis, loc.prefix)) ? { loc, trades: await readWithDecimals(redis, loc.prefix, opts.since, opts.all === true) } : { loc, trades: undefined }));
    const { loc, trades } = found;
    if (trades === undefined) {
      // stdout stays a valid (empty) array for tools; the explanation goes to stderr.
      if (opts.json) {
        ctx.io.json([]);
        ctx.io.err(`${nothingStored(loc)}\n`);
      } else ctx.io.out(`${nothingStored(loc)}\n`);
      return;
    }
    if (opts.json) {
      ctx.io.json(trades.rows.map(tradeRow));
      return;
    }
    ctx.io.out(renderTrades(trades.rows, loc, trades.symbolOf, trades.scope));
  });
}

/** Which sessions a listing covers: every one, or one (the current or last), or every one because none is recorded. */
export type TradesScope = ({ all: true; sessions: number } | { all: false; session: Session } | { all: false; session: null }) & { running?: boolean };

/** The trades of the scope, with decimals and symbols the snapshots know for mints outside the fixed table. */
async function readWithDecimals(redis: Redis, prefix: string, since: number | undefined, all: boolean): Promise<{ rows: Trade[]; scope: TradesScope; symbolOf: (mint: string) => string | undefined }> {
  const snapshots = new SnapshotStore(redis, prefix);
  const [market, wallet, sessions, presence] = await Promise.all([snapshots.read('market').catch(() => undefined), snapshots.read('wallet').catch(() => undefined), readSessions(redis, prefix), readPresence(redis, prefix)]);
  const decimalsOf = (mint: string) => market?.prices[mint]?.decimals ?? market?.tokens[mint]?.decimals ?? wallet?.holdings.find((h) => h.mint === mint)?.decimals;
  const last = sessions.at(-1);
  const running = presence.alive.length > 0;
  const scope: TradesScope = all ? { all: true, sessions: sessions.length, running } : { all: false, session: last ?? null, running };
  const rows = await readTrades(redis, prefix, { since, decimalsOf, ...(!all && last ? { session: last.id } : {}) });
  return { rows, scope, symbolOf: (mint) => market?.tokens[mint]?.symbol };
}

/** The JSON row of a trade: exactly the keys of the interface, in its order. */
export function tradeRow(t: Trade): TradeRow {
  return {
    intent: t.intent,
    strategy: t.strategy,
    kind: t.kind,
    signature: t.signature,
    at: new Date(t.at).toISOString(),
    inputMint: t.in?.mint ?? null,
    inAmount: human(t.in),
    outputMint: t.out?.mint ?? null,
    outAmount: human(t.out),
    priceUsd: tradePriceUsd(t),
    feeLamports: t.feeLamports === null ? null : t.feeLamports.toString(),
    session: t.session,
  };
}

function human(leg: TradeLeg | null): string | null {
  return leg === null || leg.decimals === null || leg.amount === null ? null : formatUnits(leg.amount, leg.decimals);
}

/** The table a person reads: a first line naming the scope, one line per trade (its session with --all), and a count. */
export function renderTrades(trades: readonly Trade[], loc: LocatedKeeper, symbolOf: (mint: string) => string | undefined = () => undefined, scope: TradesScope = { all: false, session: null }): string {
  const running = scope.running ?? loc.how === 'heartbeat';
  const which = scope.all
    ? `every session (${scope.sessions})`
    : scope.session
      ? `session ${scope.session.id} (started ${new Date(scope.session.startedAt).toISOString().slice(0, 19).replace('T', ' ')} UTC${running ? ', the keeper running now' : ', the last one'}; --all for every session)`
      : `every trade (no session recorded)${running ? ', the keeper running now' : ''}`;
  const head = `trades of prefix ${loc.prefix}, ${which}`;
  if (trades.length === 0) return `${head}: none settled yet\n`;
  const name = (leg: TradeLeg | null): string => (leg === null ? '?' : leg.mint === null ? (leg.label ?? 'contracts') : (knownByMint(leg.mint)?.symbol ?? symbolOf(leg.mint) ?? shortId(leg.mint)));
  const amount = (leg: TradeLeg | null): string => {
    if (leg === null || leg.amount === null) return 'not recorded';
    const unit = leg.mint === null ? 'contracts' : name(leg);
    return leg.decimals === null ? `${leg.amount} base units of ${unit}` : `${formatUnits(leg.amount, leg.decimals)} ${unit}`;
  };
  const rows = trades.map((t) => {
    const price = tradePriceUsd(t);
    return [
      ...(scope.all ? [t.session === null ? '-' : String(t.session)] : []),
      new Date(t.at).toISOString().slice(0, 19).replace('T', ' '),
      t.strategy,
      t.kind,
      `${name(t.in)} → ${name(t.out)}`,
      amount(t.in),
      amount(t.out),
      price === null ? '-' : formatUsd(Number(price)),
      t.feeLamports === null ? '-' : `${formatUnits(t.feeLamports, 9)} SOL`,
      shortId(t.signature, 6),
    ];
  });
  const table = formatTable(
    [...(scope.all ? [{ header: 'SESSION', align: 'right' as const }] : []), { header: 'TIME (UTC)' }, { header: 'STRATEGY' }, { header: 'KIND' }, { header: 'PAIR' }, { header: 'IN', align: 'right' }, { header: 'OUT', align: 'right' }, { header: 'PRICE', align: 'right' }, { header: 'FEE', align: 'right' }, { header: 'SIGNATURE' }],
    rows,
  );
  return `${head}: ${trades.length} trade(s)\n${table}`;
}

/** `--since`: a duration back from now or an ISO time, as unix ms. */
export function parseSince(value: string): number {
  const ms = parseDuration(value);
  if (ms !== undefined) return Date.now() - ms;
  if (/^\d{4}-\d{2}-\d{2}/.test(value)) {
    const at = Date.parse(value);
    if (!Number.isNaN(at)) return at;
  }
  throw new InvalidArgumentError(`"${value}" is neither a duration (30m, 12h, 7d) nor an ISO time (2026-11-27T05:00:00Z).`);
}
