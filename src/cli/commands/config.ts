import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../config/index.js';
import { loadConfigWithStrategies } from '../strategies.js';
import { formatLookedUp } from '../symbols.js';
import { configJsonSchema } from '../../config/jsonSchema.js';
import { builtinStrategies } from '../../../strategies/index.js';
import type { CliContext } from '../context.js';
import type { KeeperConfig } from '../../config/index.js';
import { liveRoutesOf, type LiveRoute } from '../../execution/liveRoutes.js';
import type { IntentKind } from '../../sdk/intents.js';

/**
 * The wallet the config names, loaded as `run` would load it (the keypair file, else JUPKEEPER_SECRET_KEY): a missing
 * or unreadable file, or one that is not a keypair, is a config problem. Nothing of the key is printed.
 */
async function checkKeypair(config: KeeperConfig): Promise<void> {
  const { env, wallet, file } = config;
  const fromEnv = env.JUPKEEPER_KEYPAIR_PATH;
  const path = fromEnv ?? (wallet.keypairPath === undefined ? undefined : resolve(dirname(file), wallet.keypairPath));
  if (path === undefined && env.JUPKEEPER_SECRET_KEY === undefined) return; // a paper wallet, or none (reported by the loader)
  const { HotWallet } = await import('../../solana/wallet.js');
  try {
    if (path !== undefined) HotWallet.fromFile(path);
    else HotWallet.fromSecret(env.JUPKEEPER_SECRET_KEY!);
  } catch (err) {
    const where = path === undefined ? '(env).JUPKEEPER_SECRET_KEY' : fromEnv !== undefined ? '(env).JUPKEEPER_KEYPAIR_PATH' : 'wallet.keypairPath';
    throw new ConfigError(file, [{ path: where, message: err instanceof Error ? err.message : 'not a keypair' }]);
  }
}

/**
 * What a live config's strategies will meet on the live service (docs/going-live.md): for each enabled instance, the
 * routes its strategy declares it may take (StrategyDefinition.emits) and how far each is proven, then the keeper's
 * own jobs. A strategy of the user's own that declares nothing is said to be undeclared: the guard checks whatever it
 * sends, but nothing here tells the operator which routes that is.
 */
export function liveRoutesReport(config: KeeperConfig): string {
  const excluded = new Set<string>(config.api.ultra?.excludeRouters ?? []);
  const lines = ['live routes of the enabled strategies (docs/going-live.md; proven: real mainnet transactions pass the guard; checked: the guard checks them, no real bytes; refused: the guard refuses them):'];
  const kinds = new Set<string>();
  const show = (r: LiveRoute): string => `    ${r.status.padEnd(8)} ${r.product}: ${r.route}${r.note ? ` (${r.note})` : ''}`;
  for (const inst of config.strategies.filter((i) => i.enabled)) {
    const emitted = inst.definition.emits?.(inst.params);
    if (!emitted) {
      lines.push(`  ${inst.id} (${inst.strategy}): undeclared (its strategy says nothing of the intents it returns; the guard checks each one)`);
      continue;
    }
    lines.push(`  ${inst.id} (${inst.strategy}):`);
    const seen = new Set<LiveRoute>();
    for (const e of emitted) {
      kinds.add(e.kind);
      for (const r of liveRoutesOf(e.kind, e.via, excluded)) {
        if (seen.has(r)) continue;
        seen.add(r);
        lines.push(show(r));
      }
    }
  }
  const keeper: IntentKind[] = [...kinds].some((k) => k.startsWith('prediction.')) ? ['prediction.claim', 'prediction.closeOrder'] : [];
  if (keeper.length > 0) {
    lines.push('  keeper jobs (claims, stale orders):');
    for (const r of new Set(keeper.flatMap((k) => liveRoutesOf(k)))) lines.push(show(r));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Registers `config check <file>`: validates a config file (with the environment and .env, as `run` would read
 * them) against the schema and the built-in strategies, without starting anything (but, when params name symbols
 * outside the known table and the venue is the in-process simulator, a short-lived one to ask its token list); and `config schema`: prints the
 * config's JSON Schema, every built-in strategy's params included (config/schema.json is this output, for editors).
 */
export function registerConfigCommands(program: Command, ctx: CliContext): void {
  const group = program.command('config').description('work with configuration files');

  group
    .command('check')
    .description('validate a config file and list every problem with its path; exit 1 when it is invalid')
    .argument('<file>', 'the YAML config file')
    .action(async (file: string) => {
      // Strategies of the user's own are loaded (each in its thread) and their params checked, then stopped.
      // Symbols outside the known table are looked up in the token list of the venue the config names. A ConfigError
      // lists every problem, one a line (src/cli/errors.ts).
      const { config, close, symbols } = await loadConfigWithStrategies(file, process.env, { lookUpSymbols: true });
      await close();
      await checkKeypair(config);
      for (const s of symbols) ctx.io.out(`symbol ${formatLookedUp(s)} in the venue's token list\n`);
      const n = config.strategies.length;
      ctx.io.out(`ok: ${file} (${n} ${n === 1 ? 'strategy' : 'strategies'}: ${config.strategies.map((s) => s.id).join(', ')})\n`);
      if (config.venue.kind === 'live') ctx.io.out(liveRoutesReport(config));
    });

  group
    .command('schema')
    .description('print the JSON Schema of config files, with every built-in strategy\'s params (config/schema.json is this output)')
    .action(() => {
      ctx.io.out(`${JSON.stringify(configJsonSchema(builtinStrategies), null, 2)}\n`);
    });
}
