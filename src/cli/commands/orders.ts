import type { Command } from 'commander';
import { formatUnits } from '../../lib/amounts.js';
import { NotFoundError } from '../../jupiter/errors.js';
import type { JupiterClient } from '../../jupiter/client.js';
import type { TriggerOrder } from '../../jupiter/trigger/index.js';
import type { RecurringOrder } from '../../jupiter/recurring/index.js';
import type { PredictionOrder } from '../../jupiter/prediction/index.js';
import { parseAddress } from '../args.js';
import type { CliContext } from '../context.js';
import { formatDuration } from '../../config/duration.js';
import { formatIsoTime, formatMarketTitle, formatMicroUsd, formatUnixTime, mintLabel } from '../format.js';
import { formatTable } from '../output.js';
import { withJson, type JsonFlag } from './shared.js';

/** Pages fetched at most per paginated product (10 orders a page), so a huge account cannot stall the command. */
const MAX_PAGES = 20;

/** A wallet's open orders in every product. */
export interface OpenOrders {
  trigger: TriggerOrder[];
  recurring: RecurringOrder[];
  prediction: PredictionOrder[];
}

/** Registers `orders`: a wallet's open trigger, recurring and prediction orders in one table. */
export function registerOrderCommands(program: Command, ctx: CliContext): void {
  withJson(
    program
      .command('orders')
      .description("a wallet's open orders across products (trigger, recurring, prediction)")
      .argument('<wallet>', 'wallet address', parseAddress),
  ).action(async (wallet: string, opts: JsonFlag) => {
    const { orders, truncated, unserved } = await fetchOpenOrders((await ctx.client()), wallet);
    for (const product of unserved) ctx.io.err(`note: this venue does not serve ${product} orders (HTTP 404); none listed\n`);
    if (opts.json) {
      ctx.io.json(orders);
      return;
    }
    const rows = [...orders.trigger.map(triggerRow), ...orders.recurring.map(recurringRow), ...orders.prediction.map(predictionRow)];
    ctx.io.out(rows.length === 0 ? 'no open orders\n' : ordersTable(rows));
    for (const product of truncated) ctx.io.err(`note: more ${product} orders exist than were fetched\n`);
  });
}

/**
 * Fetches the open orders of every product in parallel, following trigger and recurring pages up to MAX_PAGES.
 * `unserved`: products whose endpoint the venue does not have (404), listed as none.
 */
export async function fetchOpenOrders(client: JupiterClient, wallet: string): Promise<{ orders: OpenOrders; truncated: string[]; unserved: string[] }> {
  const truncated: string[] = [];
  const allPages = async <T>(product: string, fetchPage: (page: number) => Promise<{ orders: T[]; hasMore: boolean }>): Promise<T[]> => {
    const out: T[] = [];
    for (let page = 1; page <= MAX_PAGES; page += 1) {
      const res = await fetchPage(page);
      out.push(...res.orders);
      if (!res.hasMore) return out;
    }
    truncated.push(product);
    return out;
  };
  const unserved: string[] = [];
  // A venue without a product (the simulator before that product exists) answers its path with 404: list the
  // other products and say which could not be read. Any other failure still fails the command.
  const orNone = <T>(product: string, read: Promise<T[]>): Promise<T[]> =>
    read.catch((err: unknown) => {
      if (!(err instanceof NotFoundError)) throw err;
      unserved.push(product);
      return [];
    });
  const [trigger, recurring, prediction] = await Promise.all([
    orNone('trigger', allPages('trigger', (page) => client.trigger.getOrders({ user: wallet, orderStatus: 'active', page }))),
    orNone('recurring', allPages('recurring', (page) => client.recurring.getOrders({ user: wallet, orderStatus: 'active', recurringType: 'all', page }))),
    orNone(
      'prediction',
      client.prediction.getPredictionOrders({ ownerPubkey: wallet }).then((r) => {
        if (r.pagination.hasNext) truncated.push('prediction');
        return r.data;
      }),
    ),
  ]);
  return { orders: { trigger, recurring, prediction }, truncated, unserved };
}

type Row = [product: string, id: string, market: string, order: string, status: string, created: string];

function pair(input: string, output: string): string {
  return `${mintLabel(input)} -> ${mintLabel(output)}`;
}

function triggerRow(o: TriggerOrder): Row {
  const inSym = mintLabel(o.inputMint);
  const outSym = mintLabel(o.outputMint);
  const filled = o.remainingMakingAmount !== o.makingAmount ? `, ${o.remainingMakingAmount} ${inSym} left` : '';
  return ['trigger', o.orderKey, pair(o.inputMint, o.outputMint), `${o.makingAmount} ${inSym} for ${o.takingAmount} ${outSym}${filled}`, o.status, formatIsoTime(o.createdAt)];
}

function recurringRow(o: RecurringOrder): Row {
  const inSym = mintLabel(o.inputMint);
  if (o.recurringType === 'price') {
    // Real price-order rows may lack inLeft (jupiter-api.md §13 item 12's 2025 data): then say what was used.
    const left = o.inLeft !== undefined ? `${o.inLeft} ${inSym} left` : `${o.inUsed} of ${o.inDeposited} ${inSym} used`;
    return ['recurring', o.orderKey, pair(o.inputMint, o.outputMint), `price-based, ${left}`, o.status, formatIsoTime(o.createdAt)];
  }
  const order = `${o.inAmountPerCycle} ${inSym} every ${formatDuration(o.cycleFrequency * 1000)}, ${o.inUsed} of ${o.inDeposited} used`;
  return ['recurring', o.orderKey, pair(o.inputMint, o.outputMint), order, o.userClosed ? 'closed' : 'active', formatIsoTime(o.createdAt)];
}

function predictionRow(o: PredictionOrder): Row {
  const count = o.contractsDecimal ?? (o.contractsMicro !== undefined ? formatUnits(o.contractsMicro, 6) : o.contracts.toString());
  const limit = o.isBuy ? `max ${formatMicroUsd(o.maxBuyPriceUsd ?? o.maxFillPriceUsd)}` : `min ${formatMicroUsd(o.minSellPriceUsd)}`;
  const order = `${o.isBuy ? 'buy' : 'sell'} ${o.isYes ? 'YES' : 'NO'} ${count} @ ${limit}`;
  return ['prediction', o.pubkey, formatMarketTitle(o.eventMetadata?.title, o.marketMetadata?.title, o.marketId), order, o.status, formatUnixTime(o.createdAt)];
}

function ordersTable(rows: readonly Row[]): string {
  return formatTable([{ header: 'PRODUCT' }, { header: 'ID' }, { header: 'MARKET' }, { header: 'ORDER' }, { header: 'STATUS' }, { header: 'CREATED' }], rows);
}
