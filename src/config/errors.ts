import { KeeperError } from '../lib/errors.js';

/** One problem in a config file: where (a path like `strategies[0].schedule.cron`) and what. */
export interface ConfigIssue {
  path: string;
  message: string;
  /** For an unknown field, the field's own path (`risk.maxNotionalUSD`); `path` is the object holding it. */
  unknownField?: string;
  /** A symbol outside the known table that this problem is about (mintParam's issue): one to look up at the venue. */
  symbol?: string;
}

/** The config file is invalid; every problem is listed, each with its path. The bot must not start. */
export class ConfigError extends KeeperError {
  readonly file: string;
  readonly issues: readonly ConfigIssue[];
  /**
   * Symbols the strategies' params name that are neither known nor looked up (whatever else is wrong): a command
   * that can reach the venue looks them up in its token list and parses again (src/cli/strategies.ts).
   */
  readonly unknownSymbols: readonly string[];
  constructor(file: string, issues: readonly ConfigIssue[], unknownSymbols: readonly string[] = []) {
    const list = issues.map((i) => `  - ${i.path}: ${i.message}`).join('\n');
    super('CONFIG_INVALID', 'halt', `${file} is invalid (${issues.length} problem${issues.length === 1 ? '' : 's'}):\n${list}`, { details: { file, issues } });
    this.file = file;
    this.issues = issues;
    this.unknownSymbols = unknownSymbols;
  }
}
