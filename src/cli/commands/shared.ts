import type { Command } from 'commander';

/** Options of a command that has `--json`. */
export interface JsonFlag {
  json?: boolean;
}

/** Adds the `--json` flag every look-up command has. */
export function withJson(command: Command): Command {
  return command.option('--json', 'print one JSON document instead of a table (amounts as decimal strings)');
}
