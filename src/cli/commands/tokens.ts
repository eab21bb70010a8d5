import { Argument, type Command } from 'commander';
import { TOKEN_INTERVALS, TOKEN_TAGS, type TokenInfo, type TokenInterval, type TokenTag } from '../../jupiter/tokens/index.js';
import { intInRange } from '../args.js';
import type { CliContext } from '../context.js';
import { formatCompactUsd, formatFlag, formatUsd, NONE } from '../format.js';
import { formatTable } from '../output.js';
import { withJson, type JsonFlag } from './shared.js';

interface TrendingOptions extends JsonFlag {
  limit?: number;
}

/** Registers `tokens search|trending|recent|tag`: Tokens V2 look-ups shown as one token table. */
export function registerTokenCommands(program: Command, ctx: CliContext): void {
  const tokens = program.command('tokens').description('find tokens (Tokens V2)');
  const show = (list: TokenInfo[], opts: JsonFlag): void => {
    if (opts.json) ctx.io.json({ tokens: list });
    else ctx.io.out(list.length === 0 ? 'no tokens found\n' : tokenTable(list));
  };

  withJson(tokens.command('search').description('tokens matching a symbol, a name or mint addresses').argument('<query>', 'symbol, name, mint, or comma-separated mints')).action(
    async (query: string, opts: JsonFlag) => show(await (await ctx.client()).tokens.searchTokens({ query }), opts),
  );

  withJson(
    tokens
      .command('trending')
      .description('top trending tokens over an interval')
      .addArgument(new Argument('[interval]', 'ranking interval').choices(TOKEN_INTERVALS).default('1h'))
      .option('--limit <n>', 'number of tokens (1 to 100)', intInRange('--limit', 1, 100)),
  ).action(async (interval: TokenInterval, opts: TrendingOptions) =>
    show(await (await ctx.client()).tokens.getTokensByCategory({ category: 'toptrending', interval, limit: opts.limit }), opts),
  );

  withJson(tokens.command('recent').description('tokens whose first pool was created most recently')).action(async (opts: JsonFlag) =>
    show(await (await ctx.client()).tokens.getRecentTokens(), opts),
  );

  withJson(
    tokens
      .command('tag')
      .description('every token carrying a tag')
      .addArgument(new Argument('<tag>', 'token tag').choices(TOKEN_TAGS)),
  ).action(async (tag: TokenTag, opts: JsonFlag) => show(await (await ctx.client()).tokens.getTokensByTag({ tag }), opts));
}

function organic(t: TokenInfo): string {
  if (t.organicScore === null || t.organicScore === undefined) return NONE;
  const score = t.organicScore.toFixed(0);
  return t.organicScoreLabel ? `${score} (${t.organicScoreLabel})` : score;
}

function tokenTable(list: readonly TokenInfo[]): string {
  return formatTable(
    [
      { header: 'SYMBOL' },
      { header: 'NAME' },
      { header: 'MINT' },
      { header: 'PRICE', align: 'right' },
      { header: 'LIQUIDITY', align: 'right' },
      { header: 'ORGANIC', align: 'right' },
      { header: 'VERIFIED' },
    ],
    list.map((t) => [t.symbol, t.name, t.id, formatUsd(t.usdPrice), formatCompactUsd(t.liquidity), organic(t), formatFlag(t.isVerified)]),
  );
}
