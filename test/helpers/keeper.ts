import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Keypair } from '@solana/web3.js';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import type { RunningSimulator, SimulatorOptions } from '../../src/sim/server.js';
import { startTestSim } from './sim.js';

/** The project root (where bin/jup-keeper.js lives). */
export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/jup-keeper.js');

/** A scratch directory for a test file, removed by `cleanup()`. */
export function scratchDir(label: string): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), `jk-${label}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Writes a Solana CLI keypair file and returns its path and keypair. */
export function writeKeypair(dir: string, name = 'wallet.json'): { path: string; keypair: Keypair } {
  const keypair = Keypair.generate();
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(Array.from(keypair.secretKey)));
  return { path, keypair };
}

/** Writes a config file. */
export function writeConfig(dir: string, yaml: string, name = 'keeper.yaml'): string {
  const path = join(dir, name);
  writeFileSync(path, yaml);
  return path;
}

/**
 * A test config: the simulator venue at `venueUrl`, a dca-swap of `amount` lamports SOL->USDC every `everySeconds`,
 * at most `maxRuns` runs, short locks and a fast reconciler so crash tests finish in seconds.
 */
export function dcaConfig(o: { venueUrl: string; prefix: string; amount?: bigint; everySeconds?: number; maxRuns?: number; via?: 'ultra' | 'metis'; extra?: string; jobLock?: string }): string {
  return dcaSwapsConfig({
    venueUrl: o.venueUrl,
    prefix: o.prefix,
    extra: o.extra,
    // Crash tests need a dead worker's job noticed in seconds: a short lock (the price: a worker starved for longer
    // loses its job, which those tests tolerate and the ledger judges).
    jobLock: o.jobLock ?? '3s',
    instances: [{ id: 'dca', inputMint: 'SOL', outputMint: 'USDC', amount: o.amount ?? 10_000_000n, via: o.via, everySeconds: o.everySeconds, maxRuns: o.maxRuns }],
  });
}

/** One dca-swap instance of a test config. */
export interface DcaInstance {
  id: string;
  inputMint: string;
  outputMint: string;
  amount: bigint;
  via?: 'ultra' | 'metis';
  everySeconds?: number;
  maxRuns?: number;
}

/**
 * A test config like `dcaConfig` (simulator venue at `venueUrl`, fast feeds and reconciler) with any number of
 * dca-swap instances, in any direction. `extra` is appended at the top level (e.g. an `api:` block). The job lock is
 * 15 s unless told otherwise: long enough that a worker starved by a loaded machine keeps its job (BullMQ logs a lost
 * lock at error level, which the tests that check for error lines would count).
 */
export function dcaSwapsConfig(o: { venueUrl: string; prefix: string; instances: DcaInstance[]; extra?: string; logLevel?: string; jobLock?: string; concurrency?: number }): string {
  const strategies = o.instances
    .map(
      (s) => `  - id: ${s.id}
    strategy: dca-swap
    schedule:
      every: ${s.everySeconds ?? 2}s
    params:
      inputMint: ${s.inputMint}
      outputMint: ${s.outputMint}
      amount: "${s.amount.toString()}"
      via: ${s.via ?? 'ultra'}
      maxRuns: ${s.maxRuns ?? 3}`,
    )
    .join('\n');
  return `venue:
  kind: simulator
  url: ${o.venueUrl}
wallet: {}
redis:
  prefix: ${o.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: ${o.concurrency ?? 2}
  jobLock: ${o.jobLock ?? '15s'}
  reconcileEvery: 2s
  deadline: 10m
feeds:
  prices: 1s
  wallet: 1s
logging:
  level: ${o.logLevel ?? 'debug'}
strategies:
${strategies}
${o.extra ?? ''}`;
}

/** A running `jup-keeper` child process with its captured output. */
export interface KeeperProcess {
  proc: ChildProcess;
  stdout: string[];
  stderr: string[];
  /** Resolves with the exit code (or the signal name) when the process ends. */
  exited: Promise<number | string>;
  /** Parsed JSON log lines seen so far. */
  logs(): Array<Record<string, unknown>>;
  /** Resolves when a log line matches, rejects after `timeoutMs`. */
  waitForLog(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  kill(signal?: NodeJS.Signals): void;
}

/** Spawns `jup-keeper <args>` with a clean environment (no developer .env), plus `env`. */
export function spawnKeeper(args: string[], env: Record<string, string> = {}, cwd = ROOT): KeeperProcess {
  return spawnNode([BIN, ...args], env, cwd);
}

/** Spawns `node <args>` (a bin script and its arguments) like `spawnKeeper`, capturing its JSON log lines. */
export function spawnNode(args: string[], env: Record<string, string> = {}, cwd = ROOT): KeeperProcess {
  const proc = spawn(process.execPath, args, {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'debug', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stdout: string[] = [];
  const stderr: string[] = [];
  let pending = '';
  const waiters: Array<{ match: (l: Record<string, unknown>) => boolean; resolve: (l: Record<string, unknown>) => void }> = [];
  const parsed: Array<Record<string, unknown>> = [];
  proc.stdout.on('data', (c: Buffer) => stdout.push(c.toString('utf8')));
  proc.stderr.on('data', (c: Buffer) => {
    const text = c.toString('utf8');
    stderr.push(text);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      try {
        const obj = JSON.parse(line) as Record<string, unknown>;
        parsed.push(obj);
        for (const w of [...waiters]) {
          if (w.match(obj)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(obj);
          }
        }
      } catch {
        // not a JSON log line
      }
    }
  });
  const exited = new Promise<number | string>((res) => proc.once('exit', (code, signal) => res(code ?? signal ?? -1)));
  return {
    proc,
    stdout,
    stderr,
    exited,
    logs: () => parsed,
    waitForLog: (match, timeoutMs = 30_000) =>
      new Promise((res, rej) => {
        const seen = parsed.find(match);
        if (seen) return res(seen);
        const timer = setTimeout(() => rej(new Error(`no matching log line within ${timeoutMs} ms; stderr tail:\n${stderr.join('').slice(-3000)}`)), timeoutMs);
        waiters.push({ match, resolve: (l) => (clearTimeout(timer), res(l)) });
      }),
    kill: (signal = 'SIGTERM') => {
      proc.kill(signal);
    },
  };
}

/** Runs `jup-keeper <args>` to completion and returns its output and exit code. */
export async function runKeeperCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const k = spawnKeeper(args, env);
  const code = await k.exited;
  return { code, stdout: k.stdout.join(''), stderr: k.stderr.join('') };
}

/** A redis-server owned by one test (optionally with AOF), which the test may kill and restart. */
export interface TestRedis {
  url: string;
  port: number;
  client(): Redis;
  /** Process id of the running redis-server (undefined while it is down). */
  pid(): number | undefined;
  /** Whether anything answers PING on the port now. */
  answers(): Promise<boolean>;
  /** SIGKILL, like a crash; returns once the process is gone and nothing answers on the port. */
  kill(): Promise<void>;
  /** Starts it again on the same port and data directory (throws if another process took the port meanwhile). */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/** The port was taken between picking it and redis-server binding it (another test's server, say). */
class PortTaken extends Error {}

/**
 * Starts a private redis-server for a test. The port is picked free and then bound by redis-server a moment later;
 * another process can take it in between, in which case redis-server exits at once and a PING would reach the
 * other process's server. So a start counts only when the server that answers is our own process (its INFO
 * process_id), and a lost race is retried on a new port. `pickPort` replaces the free-port picker (tests of this
 * helper use it to lose the race on purpose).
 */
export async function startTestRedis(o: { aof?: boolean; pickPort?: () => Promise<number> } = {}): Promise<TestRedis> {
  const dir = mkdtempSync(join(tmpdir(), 'jk-redis-'));
  for (let attempt = 1; ; attempt += 1) {
    const port = await (o.pickPort ?? freePort)();
    try {
      return await testRedisOn(port, dir, o);
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt >= 5) {
        rmSync(dir, { recursive: true, force: true });
        throw err;
      }
    }
  }
}

async function testRedisOn(port: number, dir: string, o: { aof?: boolean }): Promise<TestRedis> {
  const url = `redis://127.0.0.1:${port}`;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', o.aof ? 'yes' : 'no', '--appendfsync', 'always', '--maxmemory-policy', 'noeviction'];
  let child: ChildProcess | undefined;
  const clients: Redis[] = [];
  const probe = async <T>(fn: (r: Redis) => Promise<T>): Promise<T | undefined> => {
    const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    r.on('error', () => undefined);
    try {
      await r.connect();
      return await fn(r);
    } catch {
      return undefined;
    } finally {
      r.disconnect();
    }
  };
  const serverPid = (r: Redis) => r.info('server').then((text) => Number(/process_id:(\d+)/.exec(text)?.[1]));
  const start = async (): Promise<void> => {
    const c = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    child = c;
    const output: string[] = [];
    c.stdout?.on('data', (d: Buffer) => output.push(d.toString('utf8')));
    c.stderr?.on('data', (d: Buffer) => output.push(d.toString('utf8')));
    const exited = new Promise<void>((res) => c.once('exit', () => res()));
    for (let i = 0; i < 200; i += 1) {
      if (c.exitCode !== null || c.signalCode !== null) break;
      const pid = await probe(serverPid);
      if (pid === c.pid) return;
      if (pid !== undefined) {
        // Someone else's server answers on our port: ours cannot bind it.
        c.kill('SIGKILL');
        await exited;
        throw new PortTaken(`port ${port} is taken by another redis-server (pid ${pid})`);
      }
      await Promise.race([exited, new Promise((res) => setTimeout(res, 25))]);
    }
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await exited;
      throw new Error(`redis-server on ${port} did not answer in time:\n${output.join('').slice(-2000)}`);
    }
    const text = output.join('');
    if (/Address already in use/i.test(text)) throw new PortTaken(`port ${port} was taken before redis-server bound it`);
    throw new Error(`redis-server on ${port} exited at start (${String(c.exitCode ?? c.signalCode)}):\n${text.slice(-2000)}`);
  };
  const answers = async (): Promise<boolean> => (await probe((r) => r.ping())) === 'PONG';
  const kill = async (): Promise<void> => {
    const c = child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise((res) => c.once('exit', res));
    c.kill('SIGKILL');
    await gone;
    if (await answers()) throw new Error(`something still answers on port ${port} after redis-server (pid ${c.pid}) was killed`);
  };
  await start();
  return {
    url,
    port,
    client: () => {
      const r = new Redis(url, { maxRetriesPerRequest: 3 });
      r.on('error', () => undefined);
      clients.push(r);
      return r;
    },
    pid: () => (child && child.exitCode === null && child.signalCode === null ? child.pid : undefined),
    answers,
    kill,
    restart: async () => {
      try {
        await start();
      } catch (err) {
        // The keepers under test are configured with this port: a restart cannot move to another one.
        if (err instanceof PortTaken) throw new Error(`cannot restart redis-server: ${err.message}`);
        throw err;
      }
    },
    stop: async () => {
      for (const c of clients) c.disconnect();
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A free loopback port. */
export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const s = createServer();
    s.once('error', rej);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      s.close(() => res(port));
    });
  });
}

/** What an end-to-end test file runs keepers against: its own simulator, its own Redis and a scratch directory. */
export interface KeeperEnv {
  sim: RunningSimulator;
  redis: TestRedis;
  dir: string;
  close(): Promise<void>;
}

/** Starts a simulator (real-time clock unless told otherwise), a test Redis and a scratch directory. */
export async function startKeeperEnv(label: string, o: { sim?: SimulatorOptions; aof?: boolean } = {}): Promise<KeeperEnv> {
  const scratch = scratchDir(label);
  const sim = await startTestSim({ clockSpeed: 1, ...o.sim });
  const redis = await startTestRedis({ aof: o.aof ?? false });
  return {
    sim,
    redis,
    dir: scratch.dir,
    close: async () => {
      await sim.close();
      await redis.stop();
      scratch.cleanup();
    },
  };
}

/** Starts a KeeperEnv before the file's tests and stops it after; read its parts inside tests and hooks. */
export function useKeeperEnv(label: string, o: { sim?: SimulatorOptions; aof?: boolean } = {}): Omit<KeeperEnv, 'close'> {
  let env: KeeperEnv | undefined;
  beforeAll(async () => {
    env = await startKeeperEnv(label, o);
  });
  afterAll(async () => {
    await env?.close();
  });
  const ready = (): KeeperEnv => {
    if (!env) throw new Error('the keeper environment is not started yet (read it inside a test or hook)');
    return env;
  };
  return {
    get sim() {
      return ready().sim;
    },
    get redis() {
      return ready().redis;
    },
    get dir() {
      return ready().dir;
    },
  };
}
