import { dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { ConfigError } from '../../config/index.js';
import { loadConfigWithStrategies } from '../strategies.js';
import { formatLookedUp } from '../symbols.js';
import { configJsonSchema } from '../../config/jsonSchema.js';
import { KeeperError } from '../../lib/errors.js';
import { builtinStrategies } from '../../../strategies/index.js';
import type { CliContext } from '../context.js';
import type { KeeperConfig } from '../../config/index.js';

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
      try {
        // Strategies of the user's own are loaded (each in its thread) and their params checked, then stopped.
        // Symbols outside the known table are looked up in the token list of the venue the config names.
        const { config, close, symbols } = await loadConfigWithStrategies(file, process.env, { lookUpSymbols: true });
        await close();
        await checkKeypair(config);
        for (const s of symbols) ctx.io.out(`symbol ${formatLookedUp(s)} in the venue's token list\n`);
        const n = config.strategies.length;
        ctx.io.out(`ok: ${file} (${n} ${n === 1 ? 'strategy' : 'strategies'}: ${config.strategies.map((s) => s.id).join(', ')})\n`);
      } catch (err) {
        if (!(err instanceof ConfigError)) throw err;
        // The full list, one problem a line; the error reporter below would fold it onto one line.
        ctx.io.err(`${err.message}\n`);
        throw new KeeperError(err.code, err.action, `${file}: ${err.issues.length} problem${err.issues.length === 1 ? '' : 's'} (listed above)`);
      }
    });

  group
    .command('schema')
    .description('print the JSON Schema of config files, with every built-in strategy\'s params (config/schema.json is this output)')
    .action(() => {
      ctx.io.out(`${JSON.stringify(configJsonSchema(builtinStrategies), null, 2)}\n`);
    });
}
