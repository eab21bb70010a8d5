import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/keeper.js';
import { LEVEL } from '../helpers/e2e.js';

const RUN_MS = 60_000;
const STOP_WITHIN_MS = 25_000;

/** The environment of a fresh login shell: no REDIS_URL, no LOG_LEVEL, no npm_* variables of an outer npm. */
function freshShellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'SHELL', 'LANG', 'TERM', 'USER', 'LOGNAME', 'TMPDIR']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/** Pids of every live descendant of a process. */
function descendants(pid: number): number[] {
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
function describeProcess(pid: number): string {
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
function alive(pid: number): boolean {
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

describe('npm start', () => {
  it('paper-trades for a minute against the machine Redis and stops cleanly on SIGTERM', async () => {
    const npm = spawn('npm', ['start'], { cwd: ROOT, env: freshShellEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    const stderr: string[] = [];
    const logs: Array<Record<string, unknown>> = [];
    let pending = '';
    npm.stdout.resume();
    npm.stderr.on('data', (c: Buffer) => {
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
      npm.once('exit', (code, signal) => {
        exitedAt = Date.now();
        res(code ?? signal ?? -1);
      }),
    );
    // 'close' comes once stdout and stderr are drained (the last log lines can arrive after 'exit').
    const closed = new Promise<void>((res) => npm.once('close', () => res()));
    const tail = () => `stderr tail:\n${stderr.join('').slice(-3000)}`;
    let keeperPids: number[] = [];
    try {
      await new Promise((r) => setTimeout(r, RUN_MS));
      expect(exitedAt, `npm start exited early; ${tail()}`).toBeUndefined();
      // npm -> node (or npm -> sh -> node without exec): remember the whole tree, to check none of it outlives npm.
      keeperPids = descendants(npm.pid!);
      expect(keeperPids.length).toBeGreaterThan(0);
      // SIGTERM to npm itself, as a process manager, CI or `timeout` sends it. npm forwards it to its child only
      // and exits once the child has: the start script must exec the keeper (package.json), or the signal stops at
      // an intermediate `sh`, npm dies of it at once, and the keeper is orphaned, still trading.
      const signalledAt = Date.now();
      npm.kill('SIGTERM');
      const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_WITHIN_MS + 5_000).unref());
      const code = await Promise.race([exited, timeout]);
      expect(code, tail()).toBe(0);
      expect(exitedAt! - signalledAt).toBeLessThanOrEqual(STOP_WITHIN_MS);
      // Nothing of the keeper is left running (an orphaned keeper would keep trading).
      await Promise.race([closed, new Promise((r) => setTimeout(r, 5_000))]);
      const left = keeperPids.filter(alive);
      expect(left, `still running: ${left.map(describeProcess).join('; ')}`).toEqual([]);

      const started = logs.find((l) => l.msg === 'keeper started');
      expect(started, tail()).toBeDefined();
      expect(started!.venue).toBe('simulator');
      // The machine's Redis answered: no private redis-server was started for this run.
      expect(logs.some((l) => typeof l.msg === 'string' && l.msg.includes('private redis-server'))).toBe(false);
      const landed = logs.filter((l) => l.msg === 'landed');
      expect(landed.length, tail()).toBeGreaterThanOrEqual(3);
      expect(logs.some((l) => l.msg === 'stopping: finishing in-flight executions' && l.why === 'SIGTERM')).toBe(true);
      expect(logs.at(-1)?.msg).toBe('keeper stopped');
      expect(logs.filter((l) => (l.level as number) >= LEVEL.error)).toEqual([]);
    } finally {
      // Never leave a keeper behind, whatever failed above.
      for (const pid of [npm.pid!, ...keeperPids, ...descendants(npm.pid!)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  }, RUN_MS + STOP_WITHIN_MS + 30_000);
});
