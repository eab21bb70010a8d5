// The engine's side of a user strategy: one worker thread per strategy module, which imports the module and makes
// its decisions (thread.ts), and a watchdog over it. A decision that runs past the time limit, or a thread that
// runs out of memory, crashes or exits, is stopped; the decision it was making fails with that cause, the instance
// is suspended for a while (longer at each repeat), and the thread starts again for the rest. A throw or a bad
// return fails that decision only. Other instances, and every built-in strategy, keep their cadence.
import { Worker } from 'node:worker_threads';
import { pathToFileURL } from 'node:url';
import type { PricePoint } from '../../sdk/context.js';
import type { SymbolLookups } from '../../sdk/symbols.js';
import type { MarketData, PredictionData, WalletData } from '../ports.js';
import type { CheckResult, DecideItem, DecideResult, Reply, Request, StrategyInfo } from './protocol.js';

/** Limits on a strategy thread (config `isolation`). */
export interface IsolationLimits {
  /** Longest one decide() call may run, ms. */
  decisionTimeoutMs: number;
  /** Heap of the thread (V8 old generation), MB. */
  memoryLimitMb: number;
  /** Longest the module may take to load (and answer describe/check), ms. */
  loadTimeoutMs: number;
  /** How long an instance whose decision was stopped is suspended the first time; doubled at each repeat, to 1 h. */
  suspendMs: number;
  /**
   * Not a limit: the symbols the CLI looked up in the venue's token list, which the thread's params check resolves
   * (its copy of the SDK cannot see the engine's). Carried here because the hosts are made with these options.
   */
  symbols?: SymbolLookups | undefined;
}

export const DEFAULT_ISOLATION: IsolationLimits = Object.freeze({ decisionTimeoutMs: 1_000, memoryLimitMb: 256, loadTimeoutMs: 15_000, suspendMs: 60_000 });

const MAX_SUSPEND_MS = 3_600_000;

/** The snapshots a batch of decisions is made on. */
export interface DecideInput {
  now: number;
  market: MarketData;
  prediction: PredictionData | undefined;
  wallet: WalletData;
  /** The price history of the shard's watched mints (ctx.priceHistory). */
  history?: ReadonlyMap<string, readonly PricePoint[]> | undefined;
}

/** The user strategy module failed to load, or the thread failed around it. */
export class StrategyThreadError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'StrategyThreadError';
  }
}

interface Suspension {
  strikes: number;
  until: number;
  cause: string;
}

/** Why a thread stopped: the cause, and the decision it was making (an index of the request's items) if any. */
interface Stop {
  cause: string;
  culprit: number | undefined;
}

export class StrategyHost {
  private worker: Worker | undefined;
  private readonly watch = new SharedArrayBuffer(16);
  private readonly running = new Float64Array(this.watch);
  private seq = 0;
  private tail: Promise<unknown> = Promise.resolve();
  private readonly suspended = new Map<string, Suspension>();
  private closed = false;
  /** Threads started, the first included (for status and tests). */
  starts = 0;

  constructor(
    /** Absolute path of the strategy's module. */
    readonly file: string,
    readonly limits: IsolationLimits = DEFAULT_ISOLATION,
  ) {}

  /** What the module's strategy says of itself; throws StrategyThreadError when it does not load. */
  describe(): Promise<StrategyInfo> {
    return this.serial(async () => {
      const reply = await this.ask({ type: 'describe', seq: this.nextSeq() });
      if (reply.type !== 'describe') throw new StrategyThreadError(this.file, 'the strategy thread answered out of turn');
      if (!reply.ok) throw new StrategyThreadError(this.file, reply.error);
      return reply.info;
    });
  }

  /** Each entry's params parsed by the strategy's schema, and its watches. */
  check(entries: Array<{ index: number; params: unknown }>): Promise<CheckResult[]> {
    return this.serial(async () => {
      const reply = await this.ask({ type: 'check', seq: this.nextSeq(), entries, symbols: this.limits.symbols });
      if (reply.type !== 'check') throw new StrategyThreadError(this.file, 'the strategy thread answered out of turn');
      return reply.results;
    });
  }

  /** The instances' decisions, in order: what each decide() returned (unchecked) or why it failed. Never throws. */
  decideMany(input: DecideInput, items: readonly DecideItem[]): Promise<DecideResult[]> {
    return this.serial(async () => {
      const results: Array<DecideResult | undefined> = new Array<DecideResult | undefined>(items.length);
      const run: DecideItem[] = [];
      const at: number[] = [];
      items.forEach((item, i) => {
        const s = this.suspended.get(item.id);
        if (s && input.now < s.until) results[i] = { ok: false, error: `suspended until ${new Date(s.until).toISOString()}: ${s.cause}`, logs: [] };
        else {
          run.push(item);
          at.push(i);
        }
      });
      const got: Array<DecideResult | undefined> = new Array<DecideResult | undefined>(run.length);
      // Each pass sends what has no result yet; a stopped thread's culprit gets its failure, the rest go again.
      for (;;) {
        const left = [...got.keys()].filter((i) => got[i] === undefined);
        if (left.length === 0 || this.closed) break;
        const part: Array<DecideResult | undefined> = new Array<DecideResult | undefined>(left.length);
        const stop = await this.decideAll(input, left.map((i) => run[i]!), part);
        part.forEach((r, j) => (got[left[j]!] = r));
        if (!stop) continue;
        if (stop.culprit === undefined) {
          for (const i of left) got[i] ??= { ok: false, error: stop.cause, logs: [] };
          break;
        }
        const i = left[stop.culprit]!;
        got[i] = { ok: false, error: this.suspend(run[i]!.id, stop.cause, input.now), logs: [] };
      }
      got.forEach((r, i) => {
        if (r?.ok) this.suspended.delete(run[i]!.id);
        results[at[i]!] = r ?? { ok: false, error: 'the keeper is stopping', logs: [] };
      });
      return results as DecideResult[];
    });
  }

  /** Stops the thread. */
  async close(): Promise<void> {
    this.closed = true;
    const w = this.worker;
    this.worker = undefined;
    if (w) await w.terminate();
  }

  private suspend(id: string, cause: string, now: number): string {
    const strikes = (this.suspended.get(id)?.strikes ?? 0) + 1;
    const until = now + Math.min(this.limits.suspendMs * 2 ** (strikes - 1), MAX_SUSPEND_MS);
    this.suspended.set(id, { strikes, until, cause });
    return `${cause}; the instance is suspended until ${new Date(until).toISOString()}`;
  }

  private nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.tail.then(work, work);
    this.tail = next.catch(() => undefined);
    return next;
  }

  private thread(): Worker {
    if (this.closed) throw new StrategyThreadError(this.file, 'the keeper is stopping');
    if (this.worker) return this.worker;
    this.running[0] = 0;
    const worker = new Worker(new URL('./entry.mjs', import.meta.url), {
      workerData: { moduleUrl: pathToFileURL(this.file).href, watch: this.watch },
      resourceLimits: { maxOldGenerationSizeMb: this.limits.memoryLimitMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(4, Math.floor(this.limits.memoryLimitMb / 8))) },
      // The strategy may not print on the keeper's console: its lines go through ctx.log.
      stdout: true,
      stderr: true,
    });
    worker.stdout.resume();
    worker.stderr.resume();
    // A stopped thread may still report its end (out of memory after terminate()): never an unhandled 'error'.
    worker.on('error', () => undefined);
    worker.unref();
    this.starts += 1;
    this.worker = worker;
    return worker;
  }

  /** Stops the thread now; the next request starts another. */
  private kill(): void {
    const w = this.worker;
    this.worker = undefined;
    if (w) void w.terminate();
  }

  /** One request and its one reply, within the load time limit (describe, check). */
  private ask(req: Request): Promise<Reply> {
    return new Promise<Reply>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = this.thread();
      } catch (err) {
        reject(err instanceof Error ? err : new Error(String(err)));
        return;
      }
      const done = (): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
      };
      const fail = (message: string): void => {
        done();
        this.kill();
        reject(new StrategyThreadError(this.file, message));
      };
      const onMessage = (reply: Reply): void => {
        if (reply.seq !== req.seq) return;
        done();
        resolve(reply);
      };
      const onError = (err: Error): void => fail(threadFailure(err, this.limits));
      const onExit = (code: number): void => fail(`its thread exited (code ${code}) while loading`);
      const timer = setTimeout(() => fail(`the module did not load and answer within ${this.limits.loadTimeoutMs} ms`), this.limits.loadTimeoutMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref();
      worker.postMessage(req);
    }).finally(() => this.worker?.unref());
  }

  /**
   * Sends the items to the thread and fills `got` as chunks come back. Resolves with nothing when every item is
   * done, or with why the thread was stopped and which item (an index of `items`) it was deciding.
   */
  private decideAll(input: DecideInput, items: DecideItem[], got: Array<DecideResult | undefined>): Promise<Stop | undefined> {
    return new Promise<Stop | undefined>((resolve) => {
      let worker: Worker;
      try {
        worker = this.thread();
      } catch (err) {
        resolve({ cause: err instanceof Error ? err.message : String(err), culprit: undefined });
        return;
      }
      const seq = this.nextSeq();
      const started = Date.now();
      let progressAt = started;
      const finish = (stop: Stop | undefined): void => {
        clearInterval(watchdog);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        worker.unref();
        resolve(stop);
      };
      /** The item the thread is deciding now, if any (an index of `items`). */
      const current = (): number | undefined => (this.running[0]! > 0 ? this.running[0]! - 1 : undefined);
      const stopWith = (cause: string): void => {
        const culprit = current();
        this.kill();
        finish({ cause, culprit });
      };
      const onMessage = (reply: Reply): void => {
        if (reply.type !== 'decided' || reply.seq !== seq) return;
        reply.results.forEach((r, i) => (got[reply.from + i] = r));
        progressAt = Date.now();
        if (reply.done) finish(undefined);
      };
      const onError = (err: Error): void => stopWith(threadFailure(err, this.limits));
      const onExit = (code: number): void => stopWith(`its thread exited (code ${code})`);
      const watchdog = setInterval(
        () => {
          const now = Date.now();
          if (current() !== undefined) {
            if (now - this.running[1]! > this.limits.decisionTimeoutMs) stopWith(`decide() ran longer than ${this.limits.decisionTimeoutMs} ms and was stopped`);
          } else if (now - progressAt > this.limits.loadTimeoutMs) {
            stopWith(`the strategy thread did not answer within ${this.limits.loadTimeoutMs} ms`);
          }
        },
        Math.min(250, Math.max(10, Math.floor(this.limits.decisionTimeoutMs / 5))),
      );
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.ref();
      const req: Request = { type: 'decide', seq, now: input.now, market: input.market, prediction: input.prediction, wallet: input.wallet, history: input.history, items, from: 0 };
      worker.postMessage(req);
    });
  }
}

function threadFailure(err: Error, limits: IsolationLimits): string {
  if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') return `it ran out of memory (the limit is ${limits.memoryLimitMb} MB) and its thread was stopped`;
  return `its thread failed: ${err.message}`;
}
