import type { Command } from 'commander';
import { knownByMint, WSOL_MINT } from '../../lib/mints.js';
import type { Holdings, ShieldWarnings } from '../../jupiter/ultra/index.js';
import type { PriceMap } from '../../jupiter/price/index.js';
import { collectMints, parseAddress } from '../args.js';
import type { CliContext } from '../context.js';
import { formatAmount, formatCompactUsd, formatPercent, formatUsd, NONE } from '../format.js';
import { formatTable } from '../output.js';
import { withJson, type JsonFlag } from './shared.js';

const MINTS_HELP = 'mint addresses or known symbols (SOL, USDC, JUP, ...)';

/** Registers `price`, `holdings` and `shield`: read-only look-ups of prices, balances and token warnings. */
export function registerLookupCommands(program: Command, ctx: CliContext): void {
  withJson(
    program
      .command('price')
      .description('USD prices of tokens (Price V3)')
      .argument('<mint...>', MINTS_HELP, collectMints),
  ).action(async (mints: string[], opts: JsonFlag) => {
    const prices = await (await ctx.client()).price.getPrices({ ids: mints });
    const missing = mints.filter((m) => prices[m] === undefined);
    if (opts.json) ctx.io.json({ prices, missing });
    else ctx.io.out(priceTable(mints, prices));
  });

  withJson(
    program
      .command('holdings')
      .description("a wallet's SOL and token balances (Ultra holdings)")
      .argument('<wallet>', 'wallet address', parseAddress),
  ).action(async (wallet: string, opts: JsonFlag) => {
    const holdings = await (await ctx.client()).ultra.getHoldings({ address: wallet });
    if (opts.json) ctx.io.json({ wallet, ...holdings });
    else ctx.io.out(holdingsTable(holdings));
  });

  withJson(
    program
      .command('shield')
      .description('safety warnings about tokens (Ultra Shield)')
      .argument('<mint...>', MINTS_HELP, collectMints),
  ).action(async (mints: string[], opts: JsonFlag) => {
    const warnings = await (await ctx.client()).ultra.getShield({ mints });
    if (opts.json) ctx.io.json({ warnings });
    else ctx.io.out(shieldTable(warnings));
  });
}

function symbolOf(mint: string): string {
  return knownByMint(mint)?.symbol ?? '';
}

function priceTable(mints: readonly string[], prices: PriceMap): string {
  const rows = mints.map((mint) => {
    const p = prices[mint];
    if (!p) return [symbolOf(mint), mint, 'no price', NONE, NONE];
    return [symbolOf(mint), mint, formatUsd(p.usdPrice), formatPercent(p.priceChange24h), formatCompactUsd(p.liquidity)];
  });
  return formatTable(
    [{ header: 'SYMBOL' }, { header: 'MINT' }, { header: 'PRICE', align: 'right' }, { header: '24H', align: 'right' }, { header: 'LIQUIDITY', align: 'right' }],
    rows,
  );
}

function holdingsTable(holdings: Holdings): string {
  const rows: string[][] = [['SOL', 'native', formatAmount(holdings.amount, 9), '']];
  for (const [mint, accounts] of Object.entries(holdings.tokens)) {
    const first = accounts[0];
    if (!first) continue;
    const total = accounts.reduce((sum, a) => sum + a.amount, 0n);
    const frozen = accounts.some((a) => a.isFrozen);
    const symbol = mint === WSOL_MINT ? 'wSOL' : symbolOf(mint);
    rows.push([symbol, mint, formatAmount(total, first.decimals), `${accounts.length}${frozen ? ' (frozen)' : ''}`]);
  }
  return formatTable([{ header: 'SYMBOL' }, { header: 'MINT' }, { header: 'BALANCE', align: 'right' }, { header: 'ACCOUNTS', align: 'right' }], rows);
}

function shieldTable(warnings: ShieldWarnings): string {
  const rows: string[][] = [];
  for (const [mint, list] of Object.entries(warnings)) {
    if (list.length === 0) rows.push([symbolOf(mint), mint, NONE, 'no warnings', '']);
    for (const w of list) rows.push([symbolOf(mint), mint, w.severity, w.type, w.message ?? '']);
  }
  return formatTable([{ header: 'SYMBOL' }, { header: 'MINT' }, { header: 'SEVERITY' }, { header: 'TYPE' }, { header: 'MESSAGE' }], rows);
}
