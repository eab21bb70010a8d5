import { CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { KeeperError } from '../lib/errors.js';
import { ForbiddenError, RateLimitError, UnauthorizedError } from '../jupiter/errors.js';
import type { CliOutput } from './output.js';

/** Exit statuses of jup-keeper: 0 success, 1 a failed operation, 2 a usage error (bad command line). */
export const EXIT_OK = 0;
/** A command ran and failed (service error, schema break, network, unexpected error). */
export const EXIT_FAILURE = 1;
/** The command line was wrong; nothing was sent. */
export const EXIT_USAGE = 2;

/** The command line or the settings are wrong (a bad option value, an invalid base URL); reported with exit status 2. */
export class UsageError extends KeeperError {
  constructor(message: string) {
    super('CLI_USAGE', 'abandon', message);
  }
}

/** A hint for errors a user can fix by changing the settings. Chosen by class, never by message text. */
function hintFor(err: KeeperError): string | undefined {
  if (err instanceof UnauthorizedError) return 'check the API key (--api-key or JUPITER_API_KEY)';
  if (err instanceof ForbiddenError) return 'the API key may not use this endpoint; check its plan at developers.jup.ag';
  if (err instanceof RateLimitError) return 'the rate limit is spent; retry later or set --tier to match your plan';
  return undefined;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/**
 * Reports an error that ended a command and returns the exit status. Commander's own errors were already printed
 * by commander. A config error prints `error: <file> is invalid (<n> problems):` and one problem a line; Jupiter and
 * other keeper errors print `error: <message> (<code>)`, never a stack trace unless `debug`; anything else prints one
 * line. All text goes through the output's secret filter.
 */
export function reportError(err: unknown, io: CliOutput, debug: boolean): number {
  if (err instanceof CommanderError) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  if (err instanceof UsageError) {
    io.err(`error: ${oneLine(err.message)}\n`);
    return EXIT_USAGE;
  }
  if (err instanceof ConfigError) {
    // Every problem on a line of its own, the file first: the list is the whole message, with nothing after it.
    io.err(`error: ${err.message}\n`);
    if (debug && err.stack) io.err(`${err.stack}\n`);
    return EXIT_FAILURE;
  }
  if (err instanceof KeeperError) {
    io.err(`error: ${oneLine(err.message)} (${err.code})\n`);
    const hint = hintFor(err);
    if (hint) io.err(`hint: ${hint}\n`);
    if (debug && err.stack) io.err(`${err.stack}\n`);
    return EXIT_FAILURE;
  }
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  io.err(`error: unexpected ${oneLine(text)}\n`);
  if (debug && err instanceof Error && err.stack) io.err(`${err.stack}\n`);
  else io.err('(run with --debug or JUPKEEPER_DEBUG=1 for the stack trace)\n');
  return EXIT_FAILURE;
}
