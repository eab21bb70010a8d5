// Harness of the exactly-once acceptance tests (test/e2e/exactly-once*.test.ts): one simulator and one private
// Redis per test file, one prefix and wallet per case, keeper processes that are always reaped, the ledger of the
// simulator as the judge, and a readable dump of the intents and the ledger when a test fails.
import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { expect } from 'vitest';
import { z } from 'zod';
import type { Keypair } from '@solana/web3.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { isTerminal } from '../../src/engine/states.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { airdrop, balances, control, ledger, SOL, USDC, type LedgerTx } from './sim.js';
import { dcaConfig, spawnKeeper, startKeeperEnv, writeConfig, writeKeypair, type KeeperProcess, type TestRedis } from './keeper.js';

/** Ledger kinds of swaps a keeper settles: Ultra executes and Metis swaps sent through RPC. */
const SWAP_KINDS = new Set(['ultra', 'swap']);

/** What a test file owns: its simulator (real-time clock), its Redis and a scratch directory. */
export interface Harness {
  sim: RunningSimulator;
  redis: TestRedis;
  dir: string;
  /** A case: its own prefix and funded wallet on this file's simulator and Redis. */
  newCase(label: string): Promise<Case>;
  close(): Promise<void>;
}

/** Options of a case's keeper config (see dcaConfig). */
export interface CaseConfig {
  via?: 'ultra' | 'metis';
  maxRuns?: number;
  everySeconds?: number;
}

/** One scenario: a prefix and a wallet, the keepers it spawned, and the ledger views the assertions use. */
export interface Case {
  label: string;
  sim: RunningSimulator;
  prefix: string;
  address: string;
  keypair: Keypair;
  walletPath: string;
  store: IntentStore;
  writeConfig(o?: CaseConfig): string;
  /** Spawns `jup-keeper run` for this case; the process is SIGKILLed at close if still running. */
  spawn(o: { config: string; role?: 'all' | 'scheduler' | 'worker'; env?: Record<string, string>; durationSeconds?: number }): KeeperProcess;
  intents(): Promise<IntentRecord[]>;
  /** dca runs recorded in the strategy state. */
  runs(): Promise<number>;
  /** Swaps of this case's wallet that settled on the simulator. */
  settled(): Promise<LedgerTx[]>;
  /** Waits until the strategy has used its runs and every intent is terminal (polls Redis, tolerates outages). */
  waitAllDone(maxRuns: number, timeoutMs: number): Promise<IntentRecord[]>;
  /** Stops a keeper with SIGTERM and returns its exit (0 is a clean shutdown). */
  stop(k: KeeperProcess, timeoutMs?: number): Promise<number | string>;
  /** The intents, the ledger and the keepers' log tails, for a failure message. */
  dump(): Promise<string>;
  /** Prints `dump()` when the running test fails. */
  dumpOnFailure(onTestFailed: (fn: () => Promise<void>) => void): void;
}

/** Starts a file's simulator (clockSpeed 1) and Redis (AOF on request). */
export async function startHarness(label: string, o: { aof?: boolean } = {}): Promise<Harness> {
  const env = await startKeeperEnv(label, { aof: o.aof });
  const { sim, redis } = env;
  const cases: CaseImpl[] = [];
  return {
    sim,
    redis,
    dir: env.dir,
    newCase: async (caseLabel) => {
      const c = await createCase(sim, redis, env.dir, `${label}-${caseLabel}`);
      cases.push(c);
      return c;
    },
    close: async () => {
      await Promise.all(cases.map((c) => c.killAll()));
      await env.close();
    },
  };
}

interface CaseImpl extends Case {
  killAll(): Promise<void>;
}

async function createCase(sim: RunningSimulator, redis: TestRedis, dir: string, label: string): Promise<CaseImpl> {
  const prefix = prefixFor(label);
  const { path: walletPath, keypair } = writeKeypair(dir, `${prefix}.wallet.json`);
  await airdrop(sim, keypair, SOL, 2_000_000_000n);
  const address = keypair.publicKey.toBase58();
  const client = redis.client();
  const store = new IntentStore(client, prefix);
  const states = new StrategyStateStore(client, prefix);
  const keepers: Array<{ name: string; k: KeeperProcess }> = [];
  const c: CaseImpl = {
    label,
    sim,
    prefix,
    address,
    keypair,
    walletPath,
    store,
    writeConfig: (o = {}) => writeConfig(dir, dcaConfig({ venueUrl: sim.url, prefix, via: o.via ?? 'ultra', maxRuns: o.maxRuns ?? 2, everySeconds: o.everySeconds ?? 2 }), `${prefix}-${o.via ?? 'ultra'}.yaml`),
    spawn: (o) => {
      const args = ['run', '--config', o.config, '--wallet', walletPath, '--redis-url', redis.url, '--prefix', prefix, '--role', o.role ?? 'all', '--duration', String(o.durationSeconds ?? 55)];
      const k = spawnKeeper(args, o.env ?? {});
      keepers.push({ name: `#${keepers.length + 1} ${o.role ?? 'all'}${o.env?.JUPKEEPER_CRASH_AT ? ` crash-at=${o.env.JUPKEEPER_CRASH_AT}` : ''}`, k });
      return k;
    },
    intents: () => store.all(),
    runs: async () => {
      const s = await states.getState('dca');
      return typeof s.runs === 'number' ? s.runs : 0;
    },
    settled: async () => (await ledger(sim)).filter((t) => t.wallet === address && SWAP_KINDS.has(t.kind)),
    waitAllDone: async (maxRuns, timeoutMs) => {
      const until = Date.now() + timeoutMs;
      let last = 'nothing read yet';
      for (;;) {
        try {
          const [runs, all] = await Promise.all([c.runs(), c.intents()]);
          last = `runs=${runs}, intents: ${all.map((r) => `${r.id}=${r.state}`).join(', ') || 'none'}`;
          if (runs >= maxRuns && all.length > 0 && all.every((r) => isTerminal(r.state))) return all;
        } catch (err) {
          // Redis may be down on purpose (the restart test); keep polling.
          last = `read failed: ${err instanceof Error ? err.message : String(err)}`;
        }
        if (Date.now() > until) throw new Error(`[${label}] not every intent became terminal within ${timeoutMs} ms (${last})\n${await c.dump().catch(() => '')}`);
        await sleep(250);
      }
    },
    stop: async (k, timeoutMs = 30_000) => {
      if (k.proc.exitCode !== null || k.proc.signalCode !== null) return k.exited;
      k.kill('SIGTERM');
      return withTimeout(k.exited, timeoutMs, `[${label}] keeper did not stop within ${timeoutMs} ms of SIGTERM`);
    },
    dump: async () => {
      const parts: string[] = [`==== case ${label} (prefix ${prefix}, wallet ${address}) ====`];
      try {
        parts.push('intents:', ...(await c.intents()).map(describeIntent));
      } catch (err) {
        parts.push(`intents unreadable: ${String(err)}`);
      }
      try {
        parts.push('settled swaps of the wallet:', ...(await c.settled()).map((t) => `  ${t.kind} sig=${t.signature} requestId=${t.requestId ?? '-'} out=${t.outputAmount ?? '-'} slot=${t.slot}`));
        parts.push(`faults still active: ${JSON.stringify(await control(sim, '/faults', undefined, 'GET'))}`);
      } catch (err) {
        parts.push(`ledger unreadable: ${String(err)}`);
      }
      for (const { name, k } of keepers) {
        const interesting = k.logs().filter((l) => Number(l.level) >= 40 || /landed|resum|re-driv|crash|moved|signed|stopp|started/.test(String(l.msg)));
        parts.push(`keeper ${name} (exit ${k.proc.exitCode ?? k.proc.signalCode ?? 'running'}), last log lines:`);
        parts.push(...interesting.slice(-40).map((l) => `  ${compactLog(l)}`));
        const raw = k.stderr.join('').split('\n').filter((l) => l && !l.startsWith('{'));
        if (raw.length > 0) parts.push('  non-JSON stderr:', ...raw.slice(-15).map((l) => `    ${l}`));
      }
      return parts.join('\n');
    },
    dumpOnFailure: (onTestFailed) => {
      onTestFailed(async () => {
        console.error(await c.dump());
      });
    },
    killAll: async () => {
      await Promise.all(
        keepers.map(async ({ k }) => {
          if (k.proc.exitCode === null && k.proc.signalCode === null) {
            k.kill('SIGKILL');
            await k.exited;
          }
        }),
      );
      client.disconnect();
    },
  };
  return c;
}

/** What the exactly-once assertions found, for further checks by the test. */
export interface ExactlyOnceReport {
  intents: IntentRecord[];
  landed: IntentRecord[];
  settled: LedgerTx[];
  bySignature: Map<string, LedgerTx>;
}

/**
 * The invariants every scenario must keep, judged by the simulator's ledger:
 * every intent terminal (landed, unless `allowUnlanded`), intent ids unique, one settled swap per landed intent and
 * none other (the same signatures on both sides), no signature and no Ultra requestId settled twice, distinct
 * signatures per attempt with the current one last, and the wallet's USDC balance equal to the settled outputs (plus
 * what the case was funded with, `initialUsdc`).
 */
export async function assertExactlyOnce(c: Case, o: { allowUnlanded?: boolean; initialUsdc?: bigint } = {}): Promise<ExactlyOnceReport> {
  const { records: intents, corrupt } = await c.store.list();
  const settled = await c.settled();
  const why = `\n${await c.dump()}`;
  expect(corrupt, `intent records that do not parse${why}`).toEqual([]);
  expect(intents.length, `no intent was recorded${why}`).toBeGreaterThan(0);
  expect(intents.filter((r) => !isTerminal(r.state)).map((r) => `${r.id}=${r.state}`), `intents still live${why}`).toEqual([]);
  if (!o.allowUnlanded) expect(intents.filter((r) => r.state !== 'landed').map((r) => `${r.id}=${r.state} ${r.error?.code ?? ''}`), `intents that did not land${why}`).toEqual([]);
  expect(new Set(intents.map((r) => r.id)).size, `duplicate intent ids${why}`).toBe(intents.length);

  const sigs = settled.map((t) => t.signature);
  expect(sigs.length - new Set(sigs).size, `a signature settled twice${why}`).toBe(0);
  const requestIds = settled.filter((t) => t.kind === 'ultra').map((t) => t.requestId);
  expect(requestIds.every((r) => typeof r === 'string' && r.length > 0), `an ultra settlement without a requestId${why}`).toBe(true);
  expect(requestIds.length - new Set(requestIds).size, `an Ultra requestId settled twice${why}`).toBe(0);

  const landed = intents.filter((r) => r.state === 'landed');
  expect(landed.length, `landed intents != settled swaps${why}`).toBe(settled.length);
  expect(landed.map((r) => r.signature).sort(), `the landed signatures are not the settled ones${why}`).toEqual([...sigs].sort());
  for (const r of intents) {
    expect(new Set(r.signatures).size, `intent ${r.id} reused a signature across attempts${why}`).toBe(r.signatures.length);
    expect(r.signatures.length, `intent ${r.id} has more signatures than attempts${why}`).toBeLessThanOrEqual(r.attempt);
    if (r.signature !== null) expect(r.signatures.at(-1), `intent ${r.id}: its signature is not its latest attempt's${why}`).toBe(r.signature);
  }
  // No earlier attempt of any intent settled: only the current signature of a landed intent may be in the ledger.
  const earlier = new Set(intents.flatMap((r) => (r.state === 'landed' ? r.signatures.slice(0, -1) : r.signatures)));
  expect(sigs.filter((s) => earlier.has(s)), `a superseded attempt settled${why}`).toEqual([]);

  const bySignature = new Map(settled.map((t) => [t.signature, t]));
  for (const r of landed) {
    const t = bySignature.get(r.signature!)!;
    if (t.kind === 'ultra') expect(t.requestId, `intent ${r.id} landed under another requestId${why}`).toBe(r.requestId);
    const recorded = recordedOutput(r);
    expect(recorded.amount, `intent ${r.id} landed with no output recorded (${recorded.source})${why}`).not.toBeNull();
    expect(recorded.amount, `intent ${r.id}: the output recorded (${recorded.source}) differs from the settled one${why}`).toBe(t.outputAmount);
  }
  const expectedUsdc = settled.reduce((sum, t) => sum + (t.outputMint === USDC ? BigInt(t.outputAmount ?? '0') : 0n), o.initialUsdc ?? 0n);
  const usdc = (await balances(c.sim, c.address)).tokens[USDC] ?? 0n;
  expect(usdc, `USDC balance != sum of the settled outputs${why}`).toBe(expectedUsdc);
  return { intents, landed, settled, bySignature };
}

const simulatedChanges = z.object({ tokens: z.array(z.object({ mint: z.string(), delta: z.bigint() })) });

/**
 * The output a landed swap's record says it received, as a decimal string: the venue's execute report for Ultra
 * (`result.outAmount`), else, for a Metis swap sent through RPC (no venue reports it), the wallet's change in the
 * output mint in the pre-sign simulation of the very transaction that landed (`quote.expectedChanges`).
 */
function recordedOutput(r: IntentRecord): { amount: string | null; source: string } {
  const out = r.result?.outAmount;
  if (typeof out === 'bigint' || typeof out === 'string') return { amount: String(out), source: 'result.outAmount' };
  if (r.intent.kind !== 'swap') return { amount: null, source: `not a swap: ${r.intent.kind}` };
  const outputMint = r.intent.outputMint;
  const changes = simulatedChanges.safeParse(r.quote?.expectedChanges);
  const delta = changes.success ? changes.data.tokens.find((t) => t.mint === outputMint)?.delta : undefined;
  return delta !== undefined ? { amount: String(delta), source: 'quote.expectedChanges' } : { amount: null, source: `neither result.outAmount nor a simulated change in ${outputMint}` };
}

/** Resolves with `p`, or rejects after `ms` with `message`. */
export function withTimeout<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<T>((_, rej) => (timer = setTimeout(() => rej(new Error(message)), ms)))]).finally(() => clearTimeout(timer));
}

/** A log line of a state move of the executor (`intent moved`, debug level) to `to`. */
export function movedTo(to: string): (l: Record<string, unknown>) => boolean {
  return (l) => l.msg === 'intent moved' && l.to === to;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

/** A Redis prefix for a case (the config allows 1 to 32 letters, digits, _ or -), unique per label. */
function prefixFor(label: string): string {
  const clean = `eo-${label}`.replace(/[^a-zA-Z0-9_-]/g, '-');
  if (clean.length <= 32) return clean;
  return `${clean.slice(0, 23)}-${createHash('sha256').update(label).digest('hex').slice(0, 8)}`;
}

function describeIntent(r: IntentRecord): string {
  return `  ${r.id} ${r.state} attempt=${r.attempt} fence=${r.fence} requestId=${r.requestId ?? '-'} signature=${r.signature ?? '-'} signatures=[${r.signatures.join(',')}] lvbh=${r.lastValidBlockHeight ?? '-'}${r.error ? ` error=${r.error.code}: ${r.error.message}` : ''}${r.result ? ` result=${inspect(r.result, { depth: 1, breakLength: Infinity })}` : ''}`;
}

function compactLog(l: Record<string, unknown>): string {
  const { level, time, msg, pid: _pid, hostname: _host, ...rest } = l;
  const t = typeof time === 'number' ? new Date(time).toISOString().slice(11, 23) : '';
  return `${t} ${String(level)} ${String(msg)} ${JSON.stringify(rest)}`;
}
