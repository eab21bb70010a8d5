import { createRequire } from 'node:module';
import { Command, Option } from 'commander';
import { JUPITER_BASE_URL } from '../jupiter/transport.js';
import { intInRange } from './args.js';
import { CLI_TIERS, createContext, debugFromEnv, type CliContext } from './context.js';
import { EXIT_OK, reportError } from './errors.js';

/** Version printed by `--version`; kept in step with package.json by hand. */
/** The package version, read from package.json. */
export const CLI_VERSION = readVersion();

/**
 * Creates the `jup-keeper` program with its global options and no commands. Commander errors are thrown (not
 * exited on) so that `runCli` decides the exit status; subcommands inherit that because they are added afterwards.
 */
export function createProgram(): Command {
  const program = new Command('jup-keeper')
    .description('Autonomous trading bot and keeper for the Jupiter APIs on Solana')
    .version(CLI_VERSION)
    .addOption(new Option('--base-url <url>', 'origin of the Jupiter API').env('JUPITER_BASE_URL').default(JUPITER_BASE_URL))
    .addOption(new Option('--api-key <key>', 'Jupiter API key (sent as x-api-key, never printed)').env('JUPITER_API_KEY'))
    .addOption(new Option('--tier <tier>', 'rate tier of the key (default: free with a key, keyless without)').choices(CLI_TIERS))
    .addOption(new Option('--timeout <ms>', 'per-request timeout in ms').argParser(intInRange('--timeout', 1, 600_000)))
    .addOption(new Option('--debug', 'print stack traces and request logs to stderr (or JUPKEEPER_DEBUG=1)'))
    .showHelpAfterError('(add --help for usage)')
    .exitOverride();
  return program;
}

/**
 * Creates the program and its context, with commander's own output (help, usage errors) bound to the context's
 * writer so that it too is filtered for secrets. Register commands after this call: they inherit these settings.
 */
export function createCli(env: NodeJS.ProcessEnv = process.env): { program: Command; ctx: CliContext } {
  const program = createProgram();
  const ctx = createContext(program, env);
  program.configureOutput({
    writeOut: (text) => ctx.io.out(text),
    writeErr: (text) => ctx.io.err(text),
  });
  return { program, ctx };
}

/** Parses `argv`, runs the chosen command and returns the exit status (0, 1 failure, 2 usage). Never throws. */
export async function runCli(program: Command, ctx: CliContext, argv: readonly string[]): Promise<number> {
  try {
    await program.parseAsync([...argv]);
    return EXIT_OK;
  } catch (err) {
    const debug = program.getOptionValue('debug') === true || debugFromEnv();
    return reportError(err, ctx.io, debug);
  }
}

function readVersion(): string {
  const pkg: unknown = createRequire(import.meta.url)('../../package.json');
  return typeof pkg === 'object' && pkg !== null && 'version' in pkg && typeof pkg.version === 'string' ? pkg.version : '0.0.0';
}
