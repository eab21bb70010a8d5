// Harness of the exactly-once product suite (test/e2e/exactly-once-products*.test.ts): one simulator (frozen clock:
// the venue's keepers act only when told) and one private Redis per file, one Redis prefix, and a case per intent
// kind and scenario: its own funded wallet (a keypair file a child process can load), what its intent acts on, and
// its intent recorded in the ledger. Children (runIntents.ts) execute many cases' intents at once and are crashed,
// paused or raced; the keeper's executor in this process finishes what they left. The simulator's ledger judges.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { expect } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import type { ExecutionResult } from '../../src/execution/executor.js';
import type { CrashPoint } from '../../src/execution/faultPoints.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent } from '../../src/sdk/intents.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { SLOT_MS } from '../../src/sim/clock.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import type { IntentRecord } from '../../src/store/intents.js';
import { capturingLogger, intentExecutors, type IntentExecutors } from './intentExecutor.js';
import { ROOT, spawnNode, startKeeperEnv, type KeeperEnv, type KeeperProcess, type TestRedis } from './keeper.js';
import { KIND_SCENARIOS, type Balances, type KindScenario } from './productScenarios.js';
import { balances, control, fundedWallet, ledger, SOL, USDC, type LedgerTx } from './sim.js';

/** The state an executor stopped (or killed) at each fault point leaves its intent in. */
export const LEFT_IN: Record<CrashPoint, string> = { 'after-build': 'built', 'after-sign': 'signed', 'after-submit': 'submitted' };

/** A kind the suite proves (every intent kind but swap). */
export type ProductKind = keyof typeof KIND_SCENARIOS;

/** One kind in one scenario: its wallet, its prerequisites' signatures and its intent, recorded and not yet run. */
export interface ProductCase {
  kind: ProductKind;
  scenario: string;
  /** The intent's id in the ledger. */
  id: string;
  intent: Intent;
  keypair: Keypair;
  wallet: HotWallet;
  walletPath: string;
  owner: string;
  /** Signatures of the prerequisites this case landed (not the intent's own). */
  prepSignatures: Set<string>;
  /** The wallet's balances once the prerequisites landed, before the scenario. */
  before: Balances;
  spec: KindScenario;
}

/** A child process executing cases' intents, and what it printed at the end. */
export interface IntentRun {
  proc: KeeperProcess;
  cases: ProductCase[];
  /** How each intent ended for this child (its last stdout line), once it exited by itself. */
  results(): Map<string, { state?: string; superseded?: boolean; error?: string }>;
}

/** A test file's world. */
export interface ProductWorld {
  sim: RunningSimulator;
  redis: TestRedis;
  prefix: string;
  /** The keeper's executors in this process (prerequisites and recoveries), and their log lines. */
  local: IntentExecutors;
  localLogs: Array<Record<string, unknown>>;
  /** Funds a wallet, lands the kind's prerequisites and records its intent. */
  newCase(kind: ProductKind, scenario: string): Promise<ProductCase>;
  /** Runs the cases' intents in a child process (all at once), with fault-point environment `env`. */
  spawn(cases: ProductCase[], env?: Record<string, string>): IntentRun;
  /**
   * Moves the simulator's frozen clock on by one slot, so that a transaction built from here on carries another
   * blockhash than one built before: a second build of the same intent is then other bytes, and would settle again.
   */
  nextSlot(): Promise<void>;
  /** Executes a case's intent with the keeper's executor in this process (a fresh worker on the same Redis). */
  recover(c: ProductCase): Promise<ExecutionResult>;
  record(c: ProductCase): Promise<IntentRecord>;
  /** The exactly-once verdict for a case (see judge). */
  judge(c: ProductCase): Promise<Judged>;
  /** The case's record, its wallet's settlements and the children's log lines about it, for a failure message. */
  dump(c: ProductCase, runs?: IntentRun[]): Promise<string>;
  close(): Promise<void>;
}

/** What judge found. */
export interface Judged {
  rec: IntentRecord;
  landed: LedgerTx;
}

/** Starts a file's world: a frozen-clock simulator, a private Redis (AOF with appendfsync always on request). */
export async function startProductWorld(label: string, o: { aof?: boolean } = {}): Promise<ProductWorld> {
  const env: KeeperEnv = await startKeeperEnv(label, { sim: { clockSpeed: 0 }, aof: o.aof });
  const { sim, redis } = env;
  const prefix = `eop-${label}`.slice(0, 32);
  const { logger, lines: localLogs } = capturingLogger();
  const local = await intentExecutors({ redisUrl: redis.url, prefix, venueUrl: sim.url, logger });
  // The builder prices recurring orders from the market snapshot, as the keeper's price feed writes it.
  await local.refreshMarket([SOL, USDC]);
  const markets = marketPool(local);
  const runs: IntentRun[] = [];

  const newCase = async (kind: ProductKind, scenario: string): Promise<ProductCase> => {
    const spec = KIND_SCENARIOS[kind];
    const keypair = await fundedWallet(sim, spec.funds.lamports, spec.funds.usdc > 0n ? [[USDC, spec.funds.usdc]] : []);
    const owner = keypair.publicKey.toBase58();
    const walletPath = join(env.dir, `${owner}.json`);
    writeFileSync(walletPath, JSON.stringify(Array.from(keypair.secretKey)));
    const wallet = HotWallet.fromFile(walletPath);
    const id = `eo.${scenario}.${kind}.${randomUUID().slice(0, 8)}`;
    const prepSignatures = new Set<string>();
    const land = async (intent: Intent, prepId = `${id}.prep.${prepSignatures.size}`): Promise<IntentRecord> => {
      await local.store.create({ id: prepId, instance: 'eo-prep', strategy: 'exactly-once@1', intent, createdAt: Date.now(), deadline: Date.now() + 600_000 });
      const result = await local.executorOf(wallet).execute(prepId);
      const rec = (await local.store.get(prepId))!;
      expect(result.state, `[${kind} ${scenario}] the prerequisite ${intent.kind} lands (${rec.error?.code ?? ''} ${rec.error?.message ?? ''})`).toBe('landed');
      prepSignatures.add(rec.signature!);
      return rec;
    };
    const intent = await spec.prepare({ sim, jup: local.jup, wallet, land, intentId: id, freshMarket: markets });
    const created = await local.store.create({ id, instance: 'eo', strategy: 'exactly-once@1', intent, createdAt: Date.now(), deadline: Date.now() + 600_000 });
    expect(created).toEqual({ created: true, state: 'planned' });
    return { kind, scenario, id, intent, keypair, wallet, walletPath, owner, prepSignatures, before: await balances(sim, owner), spec };
  };

  const spawn = (cases: ProductCase[], env: Record<string, string> = {}): IntentRun => {
    const args = [join(ROOT, 'bin/run-ts.js'), join(ROOT, 'test/helpers/runIntents.ts'), '--redis-url', redis.url, '--prefix', prefix, '--venue', sim.url, ...cases.flatMap((c) => ['--job', `${c.id}=${c.walletPath}`])];
    const proc = spawnNode(args, env);
    const run: IntentRun = {
      proc,
      cases,
      results: () => {
        const last = proc.stdout.join('').trim().split('\n').at(-1) ?? '';
        const parsed = JSON.parse(last || '{"results":[]}') as { results: Array<{ id: string; state?: string; superseded?: boolean; error?: string }> };
        return new Map(parsed.results.map((r) => [r.id, r]));
      },
    };
    runs.push(run);
    return run;
  };

  const record = async (c: ProductCase): Promise<IntentRecord> => {
    const rec = await local.store.get(c.id);
    if (!rec) throw new Error(`intent ${c.id} is not in the ledger`);
    return rec;
  };

  const judge = async (c: ProductCase): Promise<Judged> => {
    const rec = await record(c);
    const all = await ledger(sim);
    const why = `\n${await dump(c)}`;
    expect(rec.state, `the intent ended ${rec.state} (${rec.error?.code ?? ''} ${rec.error?.message ?? ''})${why}`).toBe('landed');
    // No signature settled twice anywhere on the venue.
    const sigs = all.map((t) => t.signature);
    expect(sigs.filter((s, i) => sigs.indexOf(s) !== i), `signatures settled twice${why}`).toEqual([]);
    // Exactly one settlement of the intent's effect by this wallet, under the signature the record says landed.
    const own = all.filter((t) => t.wallet === c.owner && t.kind === c.spec.settlesAs && !c.prepSignatures.has(t.signature));
    expect(own.map((t) => t.signature), `settlements of ${c.spec.settlesAs} by the intent${why}`).toEqual([rec.signature]);
    // Each attempt signed once; no attempt but the landed one settled anything.
    expect(new Set(rec.signatures).size, `a signature reused across attempts${why}`).toBe(rec.signatures.length);
    expect(rec.signatures.length, `more signatures than attempts${why}`).toBeLessThanOrEqual(rec.attempt);
    expect(rec.signatures.at(-1), `the landed signature is not the latest attempt's${why}`).toBe(rec.signature);
    const earlier = new Set(rec.signatures.slice(0, -1));
    expect(all.filter((t) => earlier.has(t.signature)), `a superseded attempt settled${why}`).toEqual([]);
    const landed = own[0]!;
    await c.spec.once({ sim, jup: local.jup, owner: c.owner, intent: c.intent, rec, landed, before: c.before, now: await balances(sim, c.owner) });
    return { rec, landed };
  };

  const dump = async (c: ProductCase, only?: IntentRun[]): Promise<string> => {
    const parts = [`==== ${c.scenario} ${c.kind} (intent ${c.id}, wallet ${c.owner}) ====`];
    try {
      const r = await local.store.get(c.id);
      parts.push(r ? describeIntent(r) : 'no record');
    } catch (err) {
      parts.push(`record unreadable: ${String(err)}`);
    }
    try {
      parts.push('settlements of the wallet:', ...(await ledger(sim)).filter((t) => t.wallet === c.owner).map((t) => `  ${t.kind} sig=${t.signature}${c.prepSignatures.has(t.signature) ? ' (prerequisite)' : ''} in=${t.inputAmount ?? '-'} out=${t.outputAmount ?? '-'} slot=${t.slot}`));
      parts.push(`faults still active: ${JSON.stringify(await control(sim, '/faults', undefined, 'GET'))}`);
    } catch (err) {
      parts.push(`ledger unreadable: ${String(err)}`);
    }
    for (const [i, run] of (only ?? runs).entries()) {
      if (!run.cases.includes(c)) continue;
      const p = run.proc.proc;
      parts.push(`child #${i + 1} (exit ${p.exitCode ?? p.signalCode ?? 'running'}), its lines about the intent:`);
      parts.push(...run.proc.logs().filter((l) => l.intent === c.id || Number(l.level) >= 50).slice(-30).map((l) => `  ${compactLog(l)}`));
      const raw = run.proc.stderr.join('').split('\n').filter((l) => l && !l.startsWith('{'));
      if (raw.length > 0) parts.push('  non-JSON stderr:', ...raw.slice(-10).map((l) => `    ${l}`));
    }
    parts.push('this process\'s executor about the intent:', ...localLogs.filter((l) => l.intent === c.id).slice(-20).map((l) => `  ${compactLog(l)}`));
    return parts.join('\n');
  };

  return {
    sim,
    redis,
    prefix,
    local,
    localLogs,
    newCase,
    spawn,
    nextSlot: async () => {
      await control(sim, '/clock', { advanceMs: SLOT_MS });
    },
    recover: (c) => local.executorOf(c.wallet).execute(c.id),
    record,
    judge,
    dump,
    close: async () => {
      await Promise.all(
        runs.map(async ({ proc }) => {
          if (proc.proc.exitCode === null && proc.proc.signalCode === null) {
            proc.kill('SIGKILL');
            await proc.exited;
          }
        }),
      );
      await local.close();
      await env.close();
    },
  };
}

/** Prepares a case of every kind for a scenario at once; a kind whose preparation failed holds its error. */
export async function prepareAll(world: ProductWorld, kinds: readonly ProductKind[], scenario: string): Promise<Map<ProductKind, ProductCase | Error>> {
  const settled = await Promise.allSettled(kinds.map((k) => world.newCase(k, scenario)));
  return new Map(kinds.map((k, i) => {
    const s = settled[i]!;
    return [k, s.status === 'fulfilled' ? s.value : s.reason instanceof Error ? s.reason : new Error(String(s.reason))];
  }));
}

/** The prepared cases of a map (those whose preparation succeeded). */
export function preparedCases(cases: Map<ProductKind, ProductCase | Error>): ProductCase[] {
  return [...cases.values()].filter((c): c is ProductCase => !(c instanceof Error));
}

/** The case of a kind, or the error its preparation failed with. */
export function caseOf(cases: Map<ProductKind, ProductCase | Error> | undefined, kind: ProductKind): ProductCase {
  const c = cases?.get(kind);
  if (!c) throw new Error(`no case of ${kind} was prepared (the scenario's setup failed; see the hook error)`);
  if (c instanceof Error) throw new Error(`preparing the ${kind} case failed: ${c.message}`, { cause: c });
  return c;
}

/** Resolves once a child printed `JUPKEEPER_PAUSED <point>` (every intent reached the step); rejects if it exits. */
export async function pausedAt(run: IntentRun, point: string, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!run.proc.stderr.join('').includes(`JUPKEEPER_PAUSED ${point}`)) {
    if (run.proc.proc.exitCode !== null || run.proc.proc.signalCode !== null) throw new Error(`the child exited (${String(run.proc.proc.exitCode ?? run.proc.proc.signalCode)}) before pausing at ${point}:\n${run.proc.stderr.join('').slice(-3000)}`);
    if (Date.now() > until) throw new Error(`the child did not pause at ${point} within ${timeoutMs} ms:\n${run.proc.stderr.join('').slice(-3000)}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

/**
 * How a child ended: its exit code, or 'timeout' (it is then SIGKILLed) when it has not exited within `timeoutMs`, so
 * that each case's verdict still runs and says what the ledger holds.
 */
export async function finished(run: IntentRun, timeoutMs: number): Promise<number | string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'timeout'>((res) => (timer = setTimeout(() => res('timeout'), timeoutMs)));
  const exit = await Promise.race([run.proc.exited, late]).finally(() => clearTimeout(timer));
  if (exit === 'timeout') {
    run.proc.kill('SIGKILL');
    await run.proc.exited;
  }
  return exit;
}

/** Log lines of a child (or this process) about an intent with a message. */
export function linesAbout(lines: Array<Record<string, unknown>>, id: string, msg: string): Array<Record<string, unknown>> {
  return lines.filter((l) => l.intent === id && l.msg === msg);
}

/**
 * A pool of open prediction markets quoted on both sides below $0.90, read once from the venue's listings; each
 * call hands out one no other case took, so fills and resolutions of one case never touch another's.
 */
function marketPool(local: IntentExecutors): () => Promise<Market> {
  let pool: Promise<Market[]> | undefined;
  let next = 0;
  return async () => {
    pool ??= (async () => {
      const pages = await Promise.all((['politics', 'economics', 'culture', 'sports'] as const).map((category) => local.jup.prediction.getEvents({ includeMarkets: true, category })));
      return pages
        .flatMap((p) => p.data.flatMap((e) => e.markets))
        .filter((m) => m.isTradable && m.pricing.buyYesPriceUsd !== null && m.pricing.buyYesPriceUsd < 900_000n && m.pricing.buyNoPriceUsd !== null && m.pricing.buyNoPriceUsd < 900_000n);
    })();
    const markets = await pool;
    const m = markets[next];
    next += 1;
    if (!m) throw new Error(`only ${markets.length} open prediction markets to hand out`);
    return m;
  };
}

function describeIntent(r: IntentRecord): string {
  return `  ${r.id} ${r.state} attempt=${r.attempt} fence=${r.fence} requestId=${r.requestId ?? '-'} signature=${r.signature ?? '-'} signatures=[${r.signatures.join(',')}]${r.error ? ` error=${r.error.code}: ${r.error.message}` : ''}${r.result ? ` result=${inspect(r.result, { depth: 1, breakLength: Infinity })}` : ''}`;
}

function compactLog(l: Record<string, unknown>): string {
  const { level, time, msg, pid: _pid, hostname: _host, service: _s, intent: _i, ...rest } = l;
  const t = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  return `${t} ${String(level)} ${String(msg)} ${JSON.stringify(rest)}`;
}

/** Resolves with `p`, or rejects after `ms` with `message`. */
export function within<T>(p: Promise<T>, ms: number, message: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, rej) => (timer = setTimeout(() => rej(new Error(message())), ms)))]).finally(() => clearTimeout(timer));
}
