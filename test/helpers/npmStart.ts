// `npm start` as a person runs it: the real npm, the real start script, a fresh shell's environment. Shared by the
// end-to-end tests that spawn it (test/e2e/npm-start.test.ts, test/e2e/paper-all.test.ts).
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ROOT } from './keeper.js';

/** The environment of a fresh login shell: no REDIS_URL, no LOG_LEVEL, no npm_* variables of an outer npm. */
export function freshShellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'SHELL', 'LANG', 'TERM', 'USER', 'LOGNAME', 'TMPDIR']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/** Pids of every live descendant of a process. */
export function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((s) => Number(s.trim()))
      .filter((n) => n > 0);
  } catch {
    // ps exits 1 when there are none
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** A process's state and command line, as ps shows them. */
export function describeProcess(pid: number): string {
  try {
    return `${pid} ${execFileSync('ps', ['-o', 'stat=,args=', '-p', String(pid)], { encoding: 'utf8' }).trim()}`;
  } catch {
    return `${pid} (gone)`;
  }
}

/**
 * Whether a process still runs. A zombie does not: it has exited and only waits to be reaped. (tsx's esbuild
 * service exits with the keeper and is handed to pid 1, which in a container may never reap it.)
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false; // gone between the two looks
  }
}

/** A running `npm start`: its process, the keeper's log lines as they come (JSON on stderr), and its exit. */
export interface NpmStart {
  proc: ChildProcess;
  /** When it was spawned (Date.now()). */
  startedAt: number;
  /** The keeper's log lines parsed so far (npm's own notices and partial lines left out). */
  logs: Array<Record<string, unknown>>;
  /** Everything written to stderr, as it came. */
  stderr: string[];
  /** Resolves with the exit code (or signal) once the process exits. */
  exited: Promise<number | string>;
  /** Resolves once stdout and stderr are drained: the last log lines can arrive after 'exit'. */
  closed: Promise<void>;
  /** When it exited (Date.now()), once it has. */
  exitedAt(): number | undefined;
}

/** Spawns `npm start` in the project root with a fresh shell's environment plus `env`, and `npm start -- <args>`. */
export function spawnNpmStart(env: Record<string, string> = {}, args: string[] = []): NpmStart {
  const proc = spawn('npm', ['start', ...(args.length > 0 ? ['--', ...args] : [])], { cwd: ROOT, env: { ...freshShellEnv(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  let pending = '';
  proc.stdout.resume();
  proc.stderr.on('data', (c: Buffer) => {
    const text = c.toString('utf8');
    stderr.push(text);
    pending += text;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.startsWith('{')) continue; // npm's own notices
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        // a partial or foreign line
      }
    }
  });
  let exitedAt: number | undefined;
  const exited = new Promise<number | string>((res) =>
    proc.once('exit', (code, signal) => {
      exitedAt = Date.now();
      res(code ?? signal ?? -1);
    }),
  );
  const closed = new Promise<void>((res) => proc.once('close', () => res()));
  return { proc, startedAt: Date.now(), logs, stderr, exited, closed, exitedAt: () => exitedAt };
}
