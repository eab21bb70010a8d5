import type { Command } from 'commander';
import { KeeperError } from '../../lib/errors.js';
import { knownByMint } from '../../lib/mints.js';
import type { JupiterClient } from '../../jupiter/client.js';
import { intInRange, parseAmount, parseMint } from '../args.js';
import type { CliContext } from '../context.js';
import { formatAmount, formatPercent, formatUsd, NONE } from '../format.js';
import { formatFields } from '../output.js';
import { withJson } from './shared.js';

interface QuoteOptions {
  in: string;
  out: string;
  amount: bigint;
  slippageBps?: number;
  ultra?: boolean;
  json?: boolean;
}

/** Symbol and decimals of a mint, as far as they are known. */
interface MintMeta {
  symbol: string | undefined;
  decimals: number | undefined;
}

/** One route leg as shown. */
interface Leg {
  label: string | undefined;
  ammKey: string;
  percent: number | undefined;
  bps: number | undefined;
}

/** The fields of a swap quote or Ultra order that the table shows. Amounts in base units. */
interface QuoteView {
  source: string;
  inputMint: string;
  outputMint: string;
  inAmount: bigint;
  outAmount: bigint;
  minOut: bigint;
  slippageBps: number;
  /** Percent (1 = 1%). */
  priceImpactPercent: number | undefined;
  legs: Leg[];
  extra: [string, string][];
}

/** Registers `quote`: a Swap V1 quote, or with `--ultra` an Ultra order without taker (nothing is signed or sent). */
export function registerQuoteCommand(program: Command, ctx: CliContext): void {
  withJson(
    program
      .command('quote')
      .description('quote a swap (Swap V1 /quote, or an Ultra order without taker with --ultra)')
      .requiredOption('--in <mint>', 'input mint or known symbol', parseMint)
      .requiredOption('--out <mint>', 'output mint or known symbol', parseMint)
      .requiredOption('--amount <base units>', 'input amount in base units of the input mint (integer)', parseAmount)
      .option('--slippage-bps <n>', 'slippage tolerance in bps (0 to 10000)', intInRange('--slippage-bps', 0, 10_000))
      .option('--ultra', 'ask Ultra for an order (without taker) instead of a Swap V1 quote'),
  ).action(async (opts: QuoteOptions) => {
    const client = (await ctx.client());
    const params = { inputMint: opts.in, outputMint: opts.out, amount: opts.amount, slippageBps: opts.slippageBps };
    let view: QuoteView;
    if (opts.ultra) {
      const order = await client.ultra.getOrder(params);
      if (opts.json) {
        ctx.io.json({ source: 'ultra.order', order });
        return;
      }
      view = {
        source: 'Ultra order (no taker)',
        inputMint: order.inputMint,
        outputMint: order.outputMint,
        inAmount: order.inAmount,
        outAmount: order.outAmount,
        minOut: order.otherAmountThreshold,
        slippageBps: order.slippageBps,
        // priceImpactPct is a ratio sent as a string; priceImpact (newer) is already in percent.
        priceImpactPercent: order.priceImpactPct !== undefined ? Number(order.priceImpactPct) * 100 : order.priceImpact,
        legs: order.routePlan.map((s) => toLeg(s.swapInfo, s.percent ?? undefined, s.bps)),
        extra: [
          ['router', order.router ?? NONE],
          ['usd value', `${formatUsd(order.inUsdValue)} -> ${formatUsd(order.outUsdValue)}`],
          ['fee', `${order.feeBps} bps`],
          ['request id', order.requestId],
        ],
      };
    } else {
      const { quote } = await client.swap.getQuote(params);
      if (opts.json) {
        ctx.io.json({ source: 'swap.quote', quote });
        return;
      }
      view = {
        source: 'Swap V1 quote',
        inputMint: quote.inputMint,
        outputMint: quote.outputMint,
        inAmount: quote.inAmount,
        outAmount: quote.outAmount,
        minOut: quote.otherAmountThreshold,
        slippageBps: quote.slippageBps,
        priceImpactPercent: quote.priceImpactPct * 100,
        legs: quote.routePlan.map((s) => toLeg(s.swapInfo, s.percent, s.bps)),
        extra: quote.contextSlot !== undefined ? [['context slot', String(quote.contextSlot)]] : [],
      };
    }
    const meta = await mintMeta(client, [view.inputMint, view.outputMint]);
    ctx.io.out(quoteFields(view, meta));
  });
}

/** Symbols and decimals of the quoted mints: known mints locally, others from a token search (best effort). */
async function mintMeta(client: JupiterClient, mints: readonly string[]): Promise<Map<string, MintMeta>> {
  const out = new Map<string, MintMeta>();
  for (const mint of mints) {
    const known = knownByMint(mint);
    if (known) out.set(mint, { symbol: known.symbol, decimals: known.decimals });
  }
  const unknown = mints.filter((m) => !out.has(m));
  if (unknown.length > 0) {
    try {
      for (const t of await client.tokens.searchTokens({ query: unknown })) out.set(t.id, { symbol: t.symbol, decimals: t.decimals });
    } catch (err) {
      // Decimals only improve the display; without them the amounts are shown in base units alone.
      if (!(err instanceof KeeperError)) throw err;
    }
  }
  return out;
}

function amountText(amount: bigint, meta: MintMeta | undefined): string {
  if (meta?.decimals === undefined) return `${amount} base units (decimals unknown)`;
  return `${formatAmount(amount, meta.decimals, meta.symbol)} (${amount} base units)`;
}

function toLeg(info: { label?: string | undefined; ammKey: string }, percent: number | undefined, bps: number | undefined): Leg {
  return { label: info.label, ammKey: info.ammKey, percent, bps };
}

function legText(leg: Leg): string {
  const share = leg.percent ?? (leg.bps !== undefined ? leg.bps / 100 : undefined);
  return `${leg.label ?? leg.ammKey}${share !== undefined ? ` ${share}%` : ''}`;
}

function quoteFields(v: QuoteView, meta: Map<string, MintMeta>): string {
  const inMeta = meta.get(v.inputMint);
  const outMeta = meta.get(v.outputMint);
  return formatFields([
    ['source', v.source],
    ['input', amountText(v.inAmount, inMeta)],
    ['output', amountText(v.outAmount, outMeta)],
    ['min out', amountText(v.minOut, outMeta)],
    ['slippage', `${v.slippageBps} bps`],
    ['price impact', formatPercent(v.priceImpactPercent, false)],
    ['route', v.legs.length > 0 ? v.legs.map(legText).join(', ') : NONE],
    ['input mint', v.inputMint],
    ['output mint', v.outputMint],
    ...v.extra,
  ]);
}
