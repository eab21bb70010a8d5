// Runs inside a strategy thread (a worker_threads Worker started by host.ts): imports one strategy module of the
// user's, and answers the host's requests: what the strategy is, whether params are good, and decisions. The
// strategy's code runs only here, never in the engine's thread: a throw, a hang or a memory hog stops this thread
// at worst, and the host's watchdog sees which decision did it through the shared `watch` array.
import { parentPort, workerData } from 'node:worker_threads';
import { buildContext, sharedContext } from '../context.js';
import { deepFreeze } from '../../sdk/context.js';
import { UNKNOWN_SYMBOL_PARAM, withSymbolLookups, type SymbolLookups } from '../../sdk/symbols.js';
import { didYouMean, isMissing, knownFields, missingMessage } from '../../lib/suggest.js';
import type { AnyStrategy } from '../../sdk/strategy.js';
import type { z } from 'zod';
import type { CheckResult, DecideResult, LogLine, ParamIssue, Reply, Request, ThreadData } from './protocol.js';

const { moduleUrl, watch } = workerData as ThreadData;
const running = new Float64Array(watch);
const port = parentPort!;

/** Results are posted in chunks of this many, so a stopped thread loses little finished work. */
const CHUNK = 256;
/** Lines one decision may log; more are dropped with a note. */
const MAX_LOG_LINES = 20;

let loaded: Promise<AnyStrategy> | undefined;

function load(): Promise<AnyStrategy> {
  loaded ??= import(moduleUrl).then((mod: Record<string, unknown>) => {
    const candidate = mod.default ?? mod.strategy;
    if (!isStrategy(candidate)) throw new TypeError('the module must export a strategy made by defineStrategy, as `export default` (or `export const strategy`)');
    return candidate;
  });
  return loaded;
}

function isStrategy(v: unknown): v is AnyStrategy {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Partial<AnyStrategy>;
  return typeof s.name === 'string' && typeof s.version === 'string' && typeof s.decide === 'function' && typeof s.watches === 'function' && typeof s.params?.safeParse === 'function';
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** A value as it can cross to the host: itself if it can be cloned, else undefined. */
function cloneable(value: unknown): boolean {
  try {
    structuredClone(value);
    return true;
  } catch {
    return false;
  }
}

async function describe(seq: number): Promise<Reply> {
  try {
    const s = await load();
    return { type: 'describe', seq, ok: true, info: { name: s.name, version: s.version, sdk: s.sdk, description: s.description, reactive: s.reactive === true, exactWallet: s.exactWallet !== false } };
  } catch (err) {
    return { type: 'describe', seq, ok: false, error: message(err) };
  }
}

/** The symbol of mintParam's issue for one it could not resolve (the SDK copy the module loaded made it). */
function unknownSymbol(issue: { code: string; params?: Record<string, unknown> | undefined }): string | undefined {
  const symbol = issue.code === 'custom' ? issue.params?.[UNKNOWN_SYMBOL_PARAM] : undefined;
  return typeof symbol === 'string' ? symbol : undefined;
}

/** One of zod's issues with a module's params as the config loader words them (src/config/load.ts, describe). */
function paramIssues(s: AnyStrategy, params: unknown, issue: z.core.$ZodIssue): ParamIssue[] {
  const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    const known = knownFields(s.params, path);
    return issue.keys.map((k) => ({ path, message: `unknown field ${JSON.stringify(k)}${didYouMean(k, known)}`, symbol: undefined }));
  }
  const message = path.length > 0 && isMissing(params, path) ? missingMessage(issue.message) : issue.message;
  return [{ path, message, symbol: unknownSymbol(issue) }];
}

async function check(seq: number, entries: Array<{ index: number; params: unknown }>, symbols: SymbolLookups | undefined): Promise<Reply> {
  const s = await load();
  const results = entries.map(({ index, params }): CheckResult => {
    const { result: parsed } = withSymbolLookups(symbols, () => s.params.safeParse(params));
    if (!parsed.success) return { index, ok: false, issues: parsed.error.issues.flatMap((i) => paramIssues(s, params, i)) };
    try {
      const watches = s.watches(parsed.data);
      if (!cloneable(parsed.data) || !cloneable(watches)) return { index, ok: false, issues: [{ path: [], message: 'the parsed params or watches() hold functions or other values that cannot be copied to the engine' }] };
      return { index, ok: true, params: parsed.data, watches };
    } catch (err) {
      return { index, ok: false, issues: [{ path: [], message: `the strategy rejects these params: ${message(err)}` }] };
    }
  });
  return { type: 'check', seq, results };
}

async function decide(req: Extract<Request, { type: 'decide' }>): Promise<void> {
  const s = await load();
  // The history crossed as a copy: frozen here as in the engine, so one instance cannot change what the next sees.
  if (req.history) for (const series of req.history.values()) deepFreeze(series);
  const shared = sharedContext({ now: req.now, market: req.market, prediction: req.prediction, wallet: req.wallet, history: req.history });
  let chunk: DecideResult[] = [];
  let chunkFrom = req.from;
  for (let i = req.from; i < req.items.length; i += 1) {
    const item = req.items[i]!;
    const logs: LogLine[] = [];
    const log = (level: LogLine['level']) => (text: string, fields?: Record<string, unknown>) => {
      if (logs.length < MAX_LOG_LINES) logs.push({ level, message: String(text), fields: fields !== undefined && cloneable(fields) ? fields : undefined });
      else if (logs.length === MAX_LOG_LINES) logs.push({ level: 'warn', message: `more than ${MAX_LOG_LINES} log lines in one decision; the rest are dropped` });
    };
    let result: DecideResult;
    running[1] = Date.now();
    running[0] = i + 1;
    try {
      const ctx = buildContext(shared, { instanceId: item.id, params: item.params, pending: item.pending, state: item.state, log: { debug: log('debug'), info: log('info'), warn: log('warn') } });
      const out: unknown = s.decide(ctx);
      if (out instanceof Promise) {
        out.catch(() => undefined);
        result = { ok: false, error: 'decide() returned a promise; it must be synchronous and do no I/O', logs };
      } else if (!cloneable(out)) {
        result = { ok: false, error: 'decide() returned functions or other values that cannot be copied (intents and state must be plain data)', logs };
      } else {
        result = { ok: true, out, logs };
      }
    } catch (err) {
      result = { ok: false, error: `decide() threw: ${message(err)}`, logs };
    }
    running[0] = 0;
    chunk.push(result);
    if (chunk.length >= CHUNK) {
      port.postMessage({ type: 'decided', seq: req.seq, from: chunkFrom, results: chunk, done: false } satisfies Reply);
      chunkFrom = i + 1;
      chunk = [];
    }
  }
  port.postMessage({ type: 'decided', seq: req.seq, from: chunkFrom, results: chunk, done: true } satisfies Reply);
}

port.on('message', (req: Request) => {
  void (async () => {
    try {
      if (req.type === 'describe') port.postMessage(await describe(req.seq));
      else if (req.type === 'check') port.postMessage(await check(req.seq, req.entries, req.symbols));
      else await decide(req);
    } catch (err) {
      // The module would not load: every later request fails the same way, which the host reports.
      if (req.type === 'check') port.postMessage({ type: 'check', seq: req.seq, results: req.entries.map((e) => ({ index: e.index, ok: false, issues: [{ path: [], message: message(err) }] })) } satisfies Reply);
      else if (req.type === 'decide') port.postMessage({ type: 'decided', seq: req.seq, from: req.from, results: req.items.slice(req.from).map(() => ({ ok: false, error: `the strategy's module failed: ${message(err)}`, logs: [] })), done: true } satisfies Reply);
    }
  })();
});
