import { Option, type Command } from 'commander';
import { formatUnits } from '../../lib/amounts.js';
import {
  EVENT_CATEGORIES,
  EVENT_FILTERS,
  PREDICTION_PROVIDERS,
  type EventCategory,
  type EventFilter,
  type Market,
  type PredictionEvent,
  type PredictionPosition,
  type PredictionProvider,
} from '../../jupiter/prediction/index.js';
import type { LendPosition } from '../../jupiter/lend/index.js';
import { intInRange, parseAddress } from '../args.js';
import type { CliContext } from '../context.js';
import { formatAmount, formatFlag, formatMarketTitle, formatMicroUsd, formatPercent, formatSignedMicroUsd, formatUnixTime, NONE } from '../format.js';
import { formatFields, formatTable } from '../output.js';
import { withJson, type JsonFlag } from './shared.js';

interface EventsOptions extends JsonFlag {
  category?: EventCategory;
  filter?: EventFilter;
  provider?: PredictionProvider;
  limit: number;
}

/** Events listed when `--limit` is not given. */
const DEFAULT_EVENT_LIMIT = 20;

/** Registers `events`, `market` and `positions`: the Prediction Market look-ups (positions include Lend Earn). */
export function registerPredictionCommands(program: Command, ctx: CliContext): void {
  withJson(
    program
      .command('events')
      .description('prediction events with their markets')
      .addOption(new Option('--category <c>', 'event category').choices(EVENT_CATEGORIES))
      .addOption(new Option('--filter <f>', 'named filter').choices(EVENT_FILTERS))
      .addOption(new Option('--provider <p>', 'liquidity provider (service default polymarket)').choices(PREDICTION_PROVIDERS))
      .option('--limit <n>', 'number of events (1 to 100)', intInRange('--limit', 1, 100), DEFAULT_EVENT_LIMIT),
  ).action(async (opts: EventsOptions) => {
    const page = await (await ctx.client()).prediction.getEvents({
      includeMarkets: true,
      category: opts.category,
      filter: opts.filter,
      provider: opts.provider,
      start: 0,
      end: opts.limit,
    });
    if (opts.json) ctx.io.json(page);
    else ctx.io.out(page.data.length === 0 ? 'no events found\n' : eventsTable(page.data));
  });

  withJson(program.command('market').description('one prediction market').argument('<id>', 'market id, e.g. POLY-1345531-YES')).action(
    async (marketId: string, opts: JsonFlag) => {
      const market = await (await ctx.client()).prediction.getMarket({ marketId });
      if (opts.json) ctx.io.json(market);
      else ctx.io.out(marketFields(market));
    },
  );

  withJson(
    program
      .command('positions')
      .description("a wallet's prediction positions and Lend Earn positions")
      .argument('<wallet>', 'wallet address', parseAddress),
  ).action(async (wallet: string, opts: JsonFlag) => {
    const client = (await ctx.client());
    const [prediction, lend] = await Promise.all([
      client.prediction.getPredictionPositions({ ownerPubkey: wallet }),
      client.lend.getLendPositions({ users: [wallet] }),
    ]);
    if (opts.json) {
      ctx.io.json({ wallet, prediction: prediction.data, lend });
      return;
    }
    const held = lend.filter((p) => p.shares > 0n);
    ctx.io.out('Prediction positions\n');
    ctx.io.out(prediction.data.length === 0 ? 'none\n' : predictionTable(prediction.data));
    if (prediction.pagination.hasNext) ctx.io.out(`(first ${prediction.data.length} of ${prediction.pagination.total}; use --json for the raw page)\n`);
    ctx.io.out('\nLend positions\n');
    ctx.io.out(held.length === 0 ? 'none\n' : lendTable(held));
  });
}

function yesNo(m: Market): [string, string] {
  return [formatMicroUsd(m.pricing.buyYesPriceUsd), formatMicroUsd(m.pricing.buyNoPriceUsd)];
}

function eventsTable(events: readonly PredictionEvent[]): string {
  const rows: string[][] = [];
  for (const ev of events) {
    const title = ev.metadata?.title ?? ev.eventId;
    if (ev.markets.length === 0) rows.push([title, NONE, '(no markets)', '', '', '', '']);
    ev.markets.forEach((m, i) => rows.push([i === 0 ? title : '', m.marketId, m.title, m.status, ...yesNo(m), formatUnixTime(m.closeTime)]));
  }
  return formatTable(
    [
      { header: 'EVENT' },
      { header: 'MARKET' },
      { header: 'TITLE' },
      { header: 'STATUS' },
      // What a buyer pays now (the best asks), not probabilities: YES and NO together usually cost a bit over $1.
      { header: 'BUY YES', align: 'right' },
      { header: 'BUY NO', align: 'right' },
      { header: 'CLOSES' },
    ],
    rows,
  );
}

function marketFields(m: Market): string {
  const p = m.pricing;
  return formatFields([
    ['market', m.marketId],
    ['title', m.title || NONE],
    ['event', m.eventId ?? NONE],
    ['provider', m.provider ?? NONE],
    ['status', m.status],
    ['tradable', formatFlag(m.isTradable)],
    ['result', m.result ?? NONE],
    ['opens', formatUnixTime(m.openTime)],
    ['closes', formatUnixTime(m.closeTime)],
    ['buy yes', formatMicroUsd(p.buyYesPriceUsd)],
    ['buy no', formatMicroUsd(p.buyNoPriceUsd)],
    ['sell yes', formatMicroUsd(p.sellYesPriceUsd)],
    ['sell no', formatMicroUsd(p.sellNoPriceUsd)],
    ['volume', p.volume === null ? NONE : String(p.volume)],
  ]);
}

/** Contracts held: the exact micro-contract count when sent, else the legacy whole count. */
function contracts(p: PredictionPosition): string {
  return p.contractsMicro !== undefined ? formatUnits(p.contractsMicro, 6) : p.contracts.toString();
}

/** Whether the position holds any contracts yet (a position opens with its first order, before any fill). */
function holds(p: PredictionPosition): boolean {
  return p.contractsMicro !== undefined ? p.contractsMicro > 0n : p.contracts > 0n;
}

function pnl(p: PredictionPosition): string {
  if (p.pnlUsd === null || !holds(p)) return NONE;
  const pct = p.pnlUsdPercent === null || p.pnlUsdPercent === undefined ? '' : ` (${formatPercent(p.pnlUsdPercent)})`;
  return `${formatSignedMicroUsd(p.pnlUsd)}${pct}`;
}

function predictionTable(positions: readonly PredictionPosition[]): string {
  return formatTable(
    [
      { header: 'MARKET' },
      { header: 'TITLE' },
      { header: 'SIDE' },
      { header: 'CONTRACTS', align: 'right' },
      { header: 'AVG PRICE', align: 'right' },
      { header: 'VALUE', align: 'right' },
      { header: 'P&L', align: 'right' },
      { header: 'ORDERS', align: 'right' },
      { header: 'CLAIMABLE' },
    ],
    positions.map((p) => [
      p.marketId,
      formatMarketTitle(p.eventMetadata?.title, p.marketMetadata?.title, p.marketId),
      p.isYes ? 'YES' : 'NO',
      contracts(p),
      // With no contracts yet (its first buy still open) there is no price paid or value: not $0.00.
      holds(p) ? formatMicroUsd(p.avgPriceUsd) : NONE,
      holds(p) ? formatMicroUsd(p.valueUsd) : NONE,
      pnl(p),
      p.openOrders === undefined ? NONE : String(p.openOrders),
      p.claimable ? `yes (${formatMicroUsd(p.payoutUsd)})` : 'no',
    ]),
  );
}

function lendTable(positions: readonly LendPosition[]): string {
  return formatTable(
    [{ header: 'TOKEN' }, { header: 'SHARES', align: 'right' }, { header: 'WORTH', align: 'right' }, { header: 'APY', align: 'right' }],
    positions.map((p) => [
      p.token.symbol,
      formatAmount(p.shares, p.token.decimals),
      formatAmount(p.underlyingAssets, p.token.asset.decimals, p.token.asset.symbol),
      formatPercent(p.token.totalRate / 100, false),
    ]),
  );
}
