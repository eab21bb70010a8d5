import { readFileSync } from 'node:fs';
import type { z } from 'zod';
import { dirname, resolve } from 'node:path';
import type { AnyStrategy, Watches } from '../sdk/strategy.js';
import { deepFreeze } from '../sdk/context.js';
import { UNKNOWN_SYMBOL_PARAM, withSymbolLookups, type SymbolLookups } from '../sdk/symbols.js';
import { didYouMean, isMissing, knownFields, missingMessage, nearestName } from '../lib/suggest.js';
import { envSchema, type KeeperEnv } from './env.js';
import { ConfigError, type ConfigIssue } from './errors.js';
import { configSchema, type RawKeeperConfig } from './schema.js';
import { parseYaml } from './yaml.js';

/** Looks strategies up by name. */
export interface StrategyRegistry {
  get(name: string): AnyStrategy | undefined;
  names(): readonly string[];
}

/** A strategy instance with its definition and parsed params. */
export interface ConfiguredStrategy {
  id: string;
  strategy: string;
  enabled: boolean;
  schedule: RawKeeperConfig['strategies'][number]['schedule'];
  params: unknown;
  definition: AnyStrategy;
  /** USD the instance may trade per UTC day, if it has a budget of its own. */
  dailyBudgetUsd: number | undefined;
  /** Decides also on every new price snapshot. */
  reactive: boolean;
  /** What the instance watches (its strategy's watches() of its params). */
  watches: Watches;
  /** A strategy of the user's own: the absolute path of its module, which runs in a thread of its own. */
  source?: string | undefined;
}

/**
 * A strategy named by a path (`./strategies/mine.ts`, relative to the config file, or absolute): a module of the
 * user's own, which decides in a thread of its own (src/engine/isolation). Anything else names a built-in.
 */
export const STRATEGY_PATH = /^(\.{1,2}\/|\/).*\.(ts|mts|js|mjs)$/;

/** One instance of a strategy of the user's own, as the config names it, before its module is loaded. */
export interface UserStrategyEntry {
  /** Index of the instance in `strategies`. */
  index: number;
  /** Absolute path of the module. */
  file: string;
  /** The params as written (the module's own schema parses them). */
  params: unknown;
}

/**
 * What loading a user strategy's module found for one instance (src/engine/isolation/load.ts): its definition as
 * the module describes it, the params its schema parsed and its watches; or the problems (paths under `params`).
 */
export type UserStrategyCheck =
  | { ok: true; definition: AnyStrategy; params: unknown; watches: Watches }
  | { ok: false; issues: Array<{ path: Array<string | number>; message: string; symbol?: string | undefined }> };

/** What parseConfig takes besides the text (both made by the CLI, which can load modules and reach the venue). */
export interface ParseOptions {
  /** The checks of the instances of strategies of the user's own, by instance index (see parseConfig). */
  userChecks?: ReadonlyMap<number, UserStrategyCheck> | undefined;
  /** Symbols outside the known table, looked up in the venue's token list; without them such symbols are refused. */
  symbols?: SymbolLookups | undefined;
}

/** The validated, frozen configuration of a keeper, with the environment it was read with. */
export interface KeeperConfig extends Omit<RawKeeperConfig, 'strategies'> {
  file: string;
  strategies: readonly ConfiguredStrategy[];
  env: KeeperEnv;
}

// Field names that hold secrets. `seed` alone is the simulator's seed, `token` alone may name a mint: not secrets.
const SECRET_KEY_NAMES = /^((x-)?api[-_]?key|(secret|private)([-_]?key)?|password|passphrase|mnemonic|seed[-_]?phrase|keypair|client[-_]?secret|(api|auth|access|bearer|bot)[-_]?token)$/i;

// zod says "expected object, received undefined" for a missing field; "missing" says what is wrong. A field whose
// schema has a message of its own is told missing by describe(), which sees the data.
const PARSE_OPTIONS = {
  error: (iss: z.core.$ZodRawIssue) => (iss.code === 'invalid_type' && iss.input === undefined ? `missing (expected ${iss.expected})` : undefined),
};

/**
 * Reads and validates a config file; throws ConfigError listing every problem. For commands that do not reach the
 * venue: a symbol outside the known table is refused, with a word on where it would resolve.
 */
export function loadConfig(file: string, registry: StrategyRegistry, env: NodeJS.ProcessEnv = process.env): KeeperConfig {
  try {
    return parseConfig(readConfigText(file), file, registry, env);
  } catch (err) {
    if (!(err instanceof ConfigError) || err.unknownSymbols.length === 0) throw err;
    const issues = err.issues.map((i) => (i.symbol === undefined ? i : { ...i, message: `${i.message}; ${NOT_LOOKED_UP}` }));
    throw new ConfigError(file, issues, err.unknownSymbols);
  }
}

/** Said of a symbol a command refuses without asking the venue. */
const NOT_LOOKED_UP = "this command does not look symbols up in the venue's token list (`jup-keeper run` and `config check` do): write the mint address";

/** A config file's text; ConfigError when it cannot be read. */
export function readConfigText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(file, [{ path: '(file)', message: `cannot read it: ${(err as NodeJS.ErrnoException).code ?? String(err)}` }]);
  }
}

/**
 * The config's instances of strategies of the user's own (`strategy: ./path.ts`), their paths resolved against the
 * config file's folder, and the config's data for parseConfig. A file that does not parse is reported by parseConfig.
 */
export function userStrategyEntries(text: string, file: string): { entries: UserStrategyEntry[]; isolation: RawKeeperConfig['isolation'] } {
  let data: unknown;
  try {
    data = parseYaml(text, file);
  } catch {
    return { entries: [], isolation: configSchema.shape.isolation.parse(undefined) };
  }
  const entries = strategyEntries(data).flatMap(({ index, strategy, params }) =>
    typeof strategy === 'string' && STRATEGY_PATH.test(strategy) && isRecord(params) ? [{ index, file: resolve(dirname(file), strategy), params }] : [],
  );
  const isolation = configSchema.shape.isolation.safeParse(isRecord(data) ? data.isolation : undefined);
  return { entries, isolation: isolation.data ?? configSchema.shape.isolation.parse(undefined) };
}

/**
 * Validates config text (YAML). Throws ConfigError with every problem found. Instances of strategies of the user's
 * own are checked by `userChecks` (by instance index), made by loading their modules; without them (commands that
 * read only the config's other sections) such instances are taken unchecked and cannot run. Strategy params naming
 * a symbol outside the known table resolve through `symbols` (looked up in the venue's token list); without them
 * the ConfigError lists such symbols in `unknownSymbols`.
 */
export function parseConfig(text: string, file: string, registry: StrategyRegistry, env: NodeJS.ProcessEnv = process.env, options: ParseOptions = {}): KeeperConfig {
  const { userChecks, symbols } = options;
  const data = parseYaml(text, file);
  const secrets: ConfigIssue[] = [];
  findSecrets(data, [], secrets);

  const found: ConfigIssue[] = [];
  const envResult = envSchema.safeParse(env, PARSE_OPTIONS);
  if (!envResult.success) found.push(...toIssues(envResult.error, ['(env)'], envSchema, env));
  const parsed = configSchema.safeParse(data ?? {}, PARSE_OPTIONS);
  if (!parsed.success) found.push(...toIssues(parsed.error, [], configSchema, data ?? {}));

  // Fix: these checks used to run only once the whole file parsed, so a file with a typo in one section hid its
  // duplicate ids, missing wallet and broken strategy params until the next run. They now run on every section
  // and strategy entry that parses by itself: one `config check` lists every mistake.
  const sections = parsed.success ? parsed.data : parseSections(data);
  crossChecks(sections, envResult.success ? envResult.data : undefined, found);
  const entries = strategyEntries(data);
  checkDuplicateIds(entries, found);
  const { checked, unknownSymbols } = checkStrategies(entries, registry, found, file, userChecks, symbols);

  const issues = [...secrets, ...withoutSecretPaths(found, secrets)];
  if (issues.length > 0 || !parsed.success || !envResult.success) throw new ConfigError(file, issues, unknownSymbols);
  const strategies = parsed.data.strategies.map((inst, i): ConfiguredStrategy => {
    const ok = checked.get(i);
    if (!ok) throw new ConfigError(file, [{ path: `strategies[${i}]`, message: 'not checked' }]); // unreachable: every entry that parses is checked
    return { id: inst.id, strategy: inst.strategy, enabled: inst.enabled, schedule: inst.schedule, params: ok.params, definition: ok.definition, dailyBudgetUsd: inst.dailyBudgetUsd, reactive: inst.reactive ?? ok.definition.reactive === true, watches: ok.watches, source: ok.source };
  });
  const result = { ...parsed.data, file, strategies } as Omit<KeeperConfig, 'env'> & { env?: KeeperEnv };
  // The environment holds the secrets: not enumerable, so logging or serialising the config never includes it.
  Object.defineProperty(result, 'env', { value: envResult.data, enumerable: false });
  return deepFreeze(result as KeeperConfig);
}

/** Sections of a config read one by one: each present only when it parses by itself. */
export type ConfigSections = Partial<Pick<RawKeeperConfig, 'venue' | 'wallet' | 'api' | 'notify'>>;

/**
 * The sections of config text that parse by themselves, whatever else is wrong with it (empty when the YAML does not
 * parse): the CLI reads the venue from them before the strategies' params parse.
 */
export function configSections(text: string, file: string): ConfigSections {
  try {
    return parseSections(parseYaml(text, file));
  } catch {
    return {};
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The sections the cross-checks read, each parsed alone (absent when broken: the schema issue is reported). */
function parseSections(data: unknown): ConfigSections {
  if (!isRecord(data)) return {};
  const venue = configSchema.shape.venue.safeParse(data.venue);
  const wallet = configSchema.shape.wallet.safeParse(data.wallet);
  const api = configSchema.shape.api.safeParse(data.api);
  const notify = configSchema.shape.notify.safeParse(data.notify);
  return { venue: venue.data, wallet: wallet.data, api: api.data, notify: notify.data };
}

/** What the strategy checks read of one `strategies[]` entry; the schema reports the entry's other problems. */
interface StrategyEntry {
  index: number;
  id: unknown;
  strategy: unknown;
  params: unknown;
}

/** The raw strategy entries, whatever else is wrong with them, so their params are checked in the same run. */
function strategyEntries(data: unknown): StrategyEntry[] {
  if (!isRecord(data) || !Array.isArray(data.strategies)) return [];
  return data.strategies.flatMap((raw: unknown, index) => (isRecord(raw) ? [{ index, id: raw.id, strategy: raw.strategy, params: raw.params ?? {} }] : []));
}

function crossChecks(config: ConfigSections, env: KeeperEnv | undefined, issues: ConfigIssue[]): void {
  const { venue, wallet, api } = config;
  if (venue?.kind === 'live') {
    if (wallet?.paper) issues.push({ path: 'wallet.paper', message: 'a paper wallet only exists on the simulator venue' });
    if (wallet && Object.keys(wallet.fund).length > 0) issues.push({ path: 'wallet.fund', message: 'funding by airdrop only exists on the simulator venue' });
    if (env && !venue.rpcUrl && !env.SOLANA_RPC_URL) issues.push({ path: 'venue.rpcUrl', message: 'a live venue needs a Solana RPC endpoint: set venue.rpcUrl or SOLANA_RPC_URL' });
  }
  if (env && wallet && !wallet.paper && !wallet.keypairPath && !env.JUPKEEPER_KEYPAIR_PATH && !env.JUPKEEPER_SECRET_KEY) {
    issues.push({ path: 'wallet', message: 'no wallet: set wallet.keypairPath, JUPKEEPER_KEYPAIR_PATH or JUPKEEPER_SECRET_KEY (or wallet.paper: true on the simulator)' });
  }
  // A notifier's secret is in the environment only: say so at load (and in `config check`), not at the first send.
  const { notify } = config;
  if (env && notify?.webhook && !notify.webhook.url && !env.NOTIFY_WEBHOOK_URL) issues.push({ path: 'notify.webhook.url', message: 'a webhook needs a URL: notify.webhook.url, or NOTIFY_WEBHOOK_URL in the environment' });
  if (env && notify?.telegram && !env.TELEGRAM_BOT_TOKEN) issues.push({ path: 'notify.telegram', message: 'Telegram needs the bot token in the environment: TELEGRAM_BOT_TOKEN' });
  if (env && notify?.discord && !env.DISCORD_WEBHOOK_URL) issues.push({ path: 'notify.discord', message: 'Discord needs the webhook URL in the environment: DISCORD_WEBHOOK_URL' });
  if (api?.tier === 'custom' && api.requestsPerMinute === undefined) {
    issues.push({ path: 'api.requestsPerMinute', message: 'the custom tier needs requestsPerMinute' });
  }
}

function checkDuplicateIds(entries: readonly StrategyEntry[], issues: ConfigIssue[]): void {
  const seen = new Map<string, number>();
  for (const { index, id } of entries) {
    if (typeof id !== 'string') continue;
    const first = seen.get(id);
    if (first !== undefined) issues.push({ path: `strategies[${index}].id`, message: `duplicate id ${JSON.stringify(id)} (also strategies[${first}])` });
    else seen.set(id, index);
  }
}

interface CheckedStrategy {
  definition: AnyStrategy;
  params: unknown;
  watches: Watches;
  source?: string | undefined;
}

/** Stands for a user strategy whose module was not loaded (see parseConfig): it has a name and cannot decide. */
function unloaded(path: string): AnyStrategy {
  return Object.freeze({
    name: path,
    version: '0.0.0',
    params: { safeParse: (v: unknown) => ({ success: true, data: v }) } as unknown as AnyStrategy['params'],
    watches: () => ({}),
    decide: () => {
      throw new Error(`the strategy module ${path} was not loaded`);
    },
  });
}

/**
 * Checks each entry's params against its strategy's own schema, with the looked-up symbols in force; returns the
 * parsed params by entry index, and the symbols the params name that resolved to nothing.
 */
function checkStrategies(entries: readonly StrategyEntry[], registry: StrategyRegistry, issues: ConfigIssue[], file: string, userChecks: ReadonlyMap<number, UserStrategyCheck> | undefined, symbols: SymbolLookups | undefined): { checked: Map<number, CheckedStrategy>; unknownSymbols: string[] } {
  const out = new Map<number, CheckedStrategy>();
  const unknown = new Set<string>();
  const before = issues.length;
  for (const { index: i, strategy, params: raw } of entries) {
    if (typeof strategy !== 'string' || !isRecord(raw)) continue; // the schema reports these
    if (STRATEGY_PATH.test(strategy)) {
      const source = resolve(dirname(file), strategy);
      if (!userChecks) {
        out.set(i, { definition: unloaded(strategy), params: raw, watches: {}, source });
        continue;
      }
      const check = userChecks.get(i);
      if (!check) issues.push({ path: `strategies[${i}].strategy`, message: `the strategy module ${strategy} was not loaded` });
      else if (!check.ok) issues.push(...check.issues.map((iss) => ({ path: formatPath(['strategies', i, ...(iss.path[0] === 'strategy' ? iss.path : ['params', ...iss.path])]), message: iss.message, ...(iss.symbol === undefined ? {} : { symbol: iss.symbol }) })));
      else out.set(i, { definition: check.definition, params: check.params, watches: check.watches, source });
      continue;
    }
    const definition = registry.get(strategy);
    if (!definition) {
      issues.push({ path: `strategies[${i}].strategy`, message: `unknown strategy ${JSON.stringify(strategy)}${nearMiss(strategy, registry.names())}; known: ${registry.names().join(', ')}; or a module of your own: ./path/to/file.ts` });
      continue;
    }
    // Strategies that read symbols through resolveMint themselves (rebalance's weights) report them through the scope.
    const { result: params, unknownSymbols } = withSymbolLookups(symbols, () => definition.params.safeParse(raw, PARSE_OPTIONS));
    for (const s of unknownSymbols) unknown.add(s);
    if (!params.success) {
      const found = toIssues(params.error, ['strategies', i, 'params'], definition.params, raw);
      issues.push(...found);
      // A symbol that was looked up and names no single token, read by a strategy outside mintParam (whose issue
      // does not say why): the reason is reported once at the instance's params.
      for (const s of unknownSymbols) {
        const why = symbols?.failed.get(s);
        if (why !== undefined && !found.some((f) => f.symbol === s)) issues.push({ path: `strategies[${i}].params`, message: why, symbol: s });
      }
      continue;
    }
    let watches: Watches;
    try {
      watches = definition.watches(params.data);
    } catch (err) {
      issues.push({ path: `strategies[${i}].params`, message: `the strategy rejects these params: ${err instanceof Error ? err.message : String(err)}` });
      continue;
    }
    out.set(i, { definition, params: params.data, watches });
  }
  for (const issue of issues.slice(before)) if (issue.symbol !== undefined) unknown.add(issue.symbol);
  // Found or failed, a looked-up symbol is no longer one to look up.
  const unresolved = [...unknown].filter((s) => !symbols?.found.has(s) && !symbols?.failed.has(s));
  return { checked: out, unknownSymbols: unresolved };
}

/** ` (did you mean "dca-swap"?)` for a misspelt strategy name, or nothing. */
function nearMiss(name: string, known: readonly string[]): string {
  const near = nearestName(name, known);
  return near === undefined ? '' : ` (did you mean ${JSON.stringify(near)}?)`;
}

/**
 * Drops the other problems found at or under a path already reported as a secret: their messages may quote the
 * value (a duration or amount error echoes what it got), and the secret must not reach the terminal or a log.
 */
function withoutSecretPaths(issues: readonly ConfigIssue[], secrets: readonly ConfigIssue[]): ConfigIssue[] {
  const paths = secrets.map((s) => s.path);
  const covered = (path: string): boolean => paths.some((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`));
  return issues.filter((i) => !covered(i.path) && !paths.some((p) => i.unknownField !== undefined && p === i.unknownField));
}

function findSecrets(value: unknown, path: Array<string | number>, issues: ConfigIssue[]): void {
  const where = formatPath(path);
  if (Array.isArray(value)) {
    if (value.length === 64 && value.every((n) => Number.isInteger(n) && n >= 0 && n <= 255)) {
      issues.push({ path: where, message: 'looks like a secret key (64 bytes); secrets must come from the environment (JUPKEEPER_SECRET_KEY) or a keypair file, never the config' });
      return;
    }
    value.forEach((v, i) => findSecrets(v, [...path, i], issues));
    return;
  }
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (SECRET_KEY_NAMES.test(k)) {
        issues.push({ path: formatPath([...path, k]), message: 'secrets must not be written in the config file; set JUPITER_API_KEY or JUPKEEPER_SECRET_KEY in the environment (or .env)' });
        continue;
      }
      findSecrets(v, [...path, k], issues);
    }
    return;
  }
  if (typeof value === 'string' && (/^jup_[A-Za-z0-9_-]{8,}$/.test(value) || /^[1-9A-HJ-NP-Za-km-z]{86,90}$/.test(value))) {
    issues.push({ path: where, message: 'looks like an API key or a secret key; secrets must come from the environment, never the config' });
    return;
  }
  // Fix: a credentialed URL (an RPC URL with `?api-key=`, a redis URL with a password) passed as a plain URL.
  if (typeof value === 'string' && hasCredential(value)) {
    issues.push({ path: where, message: 'this URL carries a credential (user:password or a key in the query); set it in the environment (SOLANA_RPC_URL, REDIS_URL, ...) instead' });
  }
}

function hasCredential(value: string): boolean {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return url.username !== '' || url.password !== '' || [...url.searchParams.keys()].some((k) => /key|token|secret|auth|passw|sig/i.test(k));
  } catch {
    return false;
  }
}

/** What a parse was of: its schema and the data it read, for what zod's issues do not say (see describe). */
interface Parsed {
  schema: z.ZodType;
  data: unknown;
}

/** One zod issue as config issues; a failed union reports its closest branch (the one with the fewest problems). */
function toIssues(error: z.ZodError, prefix: Array<string | number>, schema: z.ZodType, data: unknown): ConfigIssue[] {
  return error.issues.flatMap((issue) => describe(issue, prefix, [], { schema, data }));
}

/**
 * One zod issue at `within` (its place in the parsed data: a union's branches report theirs from the union) as config
 * issues. An unknown field names the known one nearest to it; a field absent from the data is said to be missing,
 * whatever its schema's own message (a custom check's "expected an integer amount" is about a value written).
 */
function describe(issue: z.core.$ZodIssue, prefix: ReadonlyArray<string | number>, within: ReadonlyArray<string | number>, parsed: Parsed): ConfigIssue[] {
  const rel = [...within, ...issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p))];
  const at = [...prefix, ...rel];
  if (issue.code === 'unrecognized_keys') {
    const base = formatPath(at);
    const known = knownFields(parsed.schema, rel);
    return issue.keys.map((k) => ({ path: base, message: `unknown field ${JSON.stringify(k)}${didYouMean(k, known)}`, unknownField: formatPath([...at, k]) }));
  }
  // A record key that fails its own check (`wallet.fund.USCD`): zod's message is only "Invalid key in record".
  if (issue.code === 'invalid_key') return [{ path: formatPath(at), message: issue.issues[0]?.message ?? issue.message }];
  if (issue.code === 'invalid_union') {
    // Fix: this took the first branch's first problem, which is about a field the user never meant to write.
    const branches = issue.errors.filter((b) => b.length > 0);
    const closest = branches.reduce<z.core.$ZodIssue[] | undefined>((best, b) => (best === undefined || b.length < best.length ? b : best), undefined);
    if (closest) return closest.flatMap((inner) => describe(inner, prefix, rel, parsed));
  }
  const symbol: unknown = issue.code === 'custom' ? issue.params?.[UNKNOWN_SYMBOL_PARAM] : undefined;
  const message = rel.length > 0 && isMissing(parsed.data, rel) ? missingMessage(issue.message) : issue.message;
  return [{ path: formatPath(at), message, ...(typeof symbol === 'string' ? { symbol } : {}) }];
}

/** `['strategies', 0, 'schedule']` -> `strategies[0].schedule`. */
export function formatPath(path: ReadonlyArray<string | number>): string {
  if (path.length === 0) return '(root)';
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), '');
}
