// Child processes of the benchmark (keepers, the simulator) and what the kernel says they cost: resident memory and
// CPU time of each process tree, read from /proc. Every process started here is killed when the benchmark ends,
// however it ends (normal exit, an exception, SIGINT/SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The project root. */
export const ROOT = resolve(import.meta.dirname, '../..');
const BIN = resolve(ROOT, 'bin/jup-keeper.js');
const RUN_TS = resolve(ROOT, 'bin/run-ts.js');
/** Kernel clock ticks per second (utime/stime units); 100 on Linux. */
const CLK_TCK = 100;
const PAGE_BYTES = 4096;

/** A process started by the benchmark. */
export interface BenchProcess {
  name: string;
  proc: ChildProcess;
  pid: number;
  /** Unix ms just before it was spawned. */
  spawnedAt: number;
  /** Resolves with the exit code or signal when it ends. */
  exited: Promise<number | string>;
  /** The last lines it wrote to stderr (its log lines), for a failure message. */
  tail(): string;
  /** Log lines at error level or above seen so far. */
  errors(): string[];
  /** The time (unix ms, the line's own) of the first log line with this message, if one was seen. */
  firstLog(msg: string): number | undefined;
  /** Resolves with the first stdout text matching `re`. */
  stdoutMatch(re: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
}

const live = new Set<BenchProcess>();

/** `jup-keeper <args>` as a child process. */
export function spawnKeeperProcess(name: string, args: string[], env: Record<string, string> = {}): BenchProcess {
  return spawnTracked(name, [BIN, ...args], env);
}

/** A TypeScript entry file (through bin/run-ts.js) as a child process. */
export function spawnTsProcess(name: string, file: string, args: string[], env: Record<string, string> = {}): BenchProcess {
  return spawnTracked(name, [RUN_TS, file, ...args], env);
}

/**
 * With BENCH_CPU_PROF=<dir>, every process is started with `node --cpu-prof`, its profile written under
 * <dir>/<name> when it exits (the keepers exit cleanly on SIGTERM, so their profiles are complete).
 */
function profileArgs(name: string): string[] {
  const dir = process.env.BENCH_CPU_PROF;
  if (!dir) return [];
  return ['--cpu-prof', `--cpu-prof-dir=${resolve(dir, name.replace(/[^a-zA-Z0-9_-]+/g, '_'))}`];
}

function spawnTracked(name: string, args: string[], env: Record<string, string>): BenchProcess {
  const spawnedAt = Date.now();
  const proc = spawn(process.execPath, [...profileArgs(name), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (proc.pid === undefined) throw new Error(`could not spawn ${name}`);
  const stderr: string[] = [];
  const errors: string[] = [];
  const firstSeen = new Map<string, number>();
  let stdout = '';
  let partial = '';
  const stdoutWaiters: Array<() => void> = [];
  proc.stdout.on('data', (c: Buffer) => {
    stdout = (stdout + c.toString('utf8')).slice(-20_000);
    for (const w of [...stdoutWaiters]) w();
  });
  proc.stderr.on('data', (c: Buffer) => {
    const lines = (partial + c.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      stderr.push(line);
      if (stderr.length > 200) stderr.shift();
      if (/"level":(50|60)/.test(line) && errors.length < 50) errors.push(line.slice(0, 500));
      const m = /"time":(\d+).*"msg":"([^"]*)"/.exec(line);
      if (m && !firstSeen.has(m[2]!)) firstSeen.set(m[2]!, Number(m[1]));
    }
  });
  const exited = new Promise<number | string>((res) => proc.once('exit', (code, signal) => res(code ?? signal ?? -1)));
  const p: BenchProcess = {
    name,
    proc,
    pid: proc.pid,
    spawnedAt,
    exited,
    tail: () => stderr.slice(-30).join('\n'),
    errors: () => [...errors],
    firstLog: (msg) => firstSeen.get(msg),
    stdoutMatch: (re, timeoutMs) =>
      new Promise((res, rej) => {
        const check = () => {
          const m = re.exec(stdout);
          if (m) {
            clearTimeout(timer);
            stdoutWaiters.splice(stdoutWaiters.indexOf(check), 1);
            res(m);
          }
        };
        const timer = setTimeout(() => rej(new Error(`${name}: no output matching ${String(re)} within ${timeoutMs} ms\n${p.tail()}`)), timeoutMs);
        stdoutWaiters.push(check);
        check();
        void exited.then((code) => rej(new Error(`${name} exited (${String(code)}) before printing ${String(re)}\n${p.tail()}`)));
      }),
  };
  live.add(p);
  void exited.then(() => live.delete(p));
  return p;
}

/** Stops processes with SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcesses(list: readonly BenchProcess[], graceMs = 10_000): Promise<void> {
  await Promise.all(
    list.map(async (p) => {
      if (p.proc.exitCode !== null || p.proc.signalCode !== null) return;
      p.proc.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => (timer = setTimeout(() => r('late'), graceMs)));
      if ((await Promise.race([p.exited, late])) === 'late') {
        p.proc.kill('SIGKILL');
        await p.exited;
      }
      clearTimeout(timer);
    }),
  );
}

/** Kills every process the benchmark started that is still running (synchronously: safe in an 'exit' handler). */
export function killAllNow(): void {
  for (const p of live) if (p.proc.exitCode === null && p.proc.signalCode === null) p.proc.kill('SIGKILL');
}

/** Stops every process still running, gently first. */
export async function stopAll(): Promise<void> {
  await stopProcesses([...live], 5_000);
}

/** The pids of `roots` and of all their descendants, from /proc. */
export function processTree(roots: readonly number[]): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readProc(`/proc/${entry}/stat`);
    if (!stat) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (out.includes(pid)) continue;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

function readProc(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined; // the process ended
  }
}

/** Resident bytes of one process now (0 once it has ended). */
export function rssBytes(pid: number): number {
  const statm = readProc(`/proc/${pid}/statm`);
  return statm ? Number(statm.split(' ')[1]) * PAGE_BYTES : 0;
}

/** CPU time (user + system) one process has used so far, ms (0 once it has ended). */
export function cpuMs(pid: number): number {
  const stat = readProc(`/proc/${pid}/stat`);
  if (!stat) return 0;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // After the command: state(0) ppid(1) ... utime(11) stime(12).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLK_TCK;
}

/**
 * Samples the resident memory of process trees every `everyMs` and keeps the peak of their sum (the whole tree at
 * one instant). The trees' members are re-read from /proc every second (a child started later is counted).
 */
export class TreeSampler {
  private timer: NodeJS.Timeout | undefined;
  private pids: number[] = [];
  private lastTree = 0;
  peakRss = 0;
  samples = 0;

  constructor(
    private readonly roots: () => readonly number[],
    private readonly everyMs = 100,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.everyMs);
    this.timer.unref();
    return this;
  }

  /** The trees' CPU time so far (live members only), ms. */
  cpuMs(): number {
    this.refreshTree(true);
    return this.pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
  }

  /** The trees' resident memory now, bytes. */
  rssNow(): number {
    return this.pids.reduce((sum, pid) => sum + rssBytes(pid), 0);
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.sample();
  }

  private refreshTree(force = false): void {
    if (!force && Date.now() - this.lastTree < 1_000) return;
    this.pids = processTree(this.roots());
    this.lastTree = Date.now();
  }

  private sample(): void {
    this.refreshTree();
    const rss = this.rssNow();
    this.samples += 1;
    if (rss > this.peakRss) this.peakRss = rss;
  }
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it returns something other than undefined/false; throws after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, everyMs = 50): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
