import type { Command } from 'commander';
import { ConfigError } from '../../config/index.js';
import { loadConfigWithStrategies } from '../strategies.js';
import { configJsonSchema } from '../../config/jsonSchema.js';
import { KeeperError } from '../../lib/errors.js';
import { builtinStrategies } from '../../../strategies/index.js';
import type { CliContext } from '../context.js';

/**
 * Registers `config check <file>`: validates a config file (with the environment and .env, as `run` would read
 * them) against the schema and the built-in strategies, without starting anything; and `config schema`: prints the
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
        const { config, close } = await loadConfigWithStrategies(file, process.env);
        await close();
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
