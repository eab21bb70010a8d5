// Issue 13's acceptance line: "`npm start`, then `npx jup-keeper status` and `npx jup-keeper trades` in another shell,
// show the running bot and its trades with amounts". The bot is started exactly as a person starts it (`npm start`,
// a fresh shell's environment) and the two commands run exactly as typed, with no flag, in the project directory.
// The one difference from a person's shell is REDIS_URL, exported in both "shells": it names a Redis database of this
// test's own, so that test/e2e/npm-start.test.ts (database 0) and paper-all.test.ts (database 13), which run the same
// config with the same prefix, run beside it without sharing records.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { waitUntil } from '../helpers/e2e.js';
import { ROOT } from '../helpers/keeper.js';

/** A database no other test uses (npm-start uses 0, paper-all 13, the others a redis-server of their own). */
const REDIS_DB = 12;
const PREFIX = 'jk-paper';
const STOP_WITHIN_MS = 25_000;

/** The environment of a fresh login shell (no REDIS_URL, LOG_LEVEL or npm_* variables of an outer npm), plus REDIS_URL. */
function shellEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of ['PATH', 'HOME', 'SHELL', 'LANG', 'TERM', 'USER', 'LOGNAME', 'TMPDIR']) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return { ...env, REDIS_URL: redisUrl() };
}

/** Pids of every live descendant of a process. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((x) => Number(x.trim()))
      .filter((n) => n > 0);
  } catch {
    // ps exits 1 when there are none
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** A running `npm start`: its process, what it wrote on stderr, and its exit. */
interface NpmStart {
  proc: ChildProcess;
  stderr: string[];
  exited: Promise<number | string>;
  exitedAt(): number | undefined;
}

/** `npm start` in the project directory, as a person types it. */
function spawnNpmStart(): NpmStart {
  const proc = spawn('npm', ['start'], { cwd: ROOT, env: shellEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
  const stderr: string[] = [];
  proc.stdout.resume();
  proc.stderr.on('data', (c: Buffer) => stderr.push(c.toString('utf8')));
  let exitedAt: number | undefined;
  const exited = new Promise<number | string>((res) =>
    proc.once('exit', (code, signal) => {
      exitedAt = Date.now();
      res(code ?? signal ?? -1);
    }),
  );
  return { proc, stderr, exited, exitedAt: () => exitedAt };
}

function redisUrl(): string {
  const url = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  url.pathname = `/${REDIS_DB}`;
  return url.toString();
}

/** `npx jup-keeper <args>` as typed in another shell in the project directory (same environment as npm start's). */
function npx(...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('npx', ['jup-keeper', ...args], { cwd: ROOT, env: shellEnv(), timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout, stderr });
    });
  });
}

/** A line of the `trades` table for a swap of 0.01 SOL (dca-sol-usdc's) with its USDC amount, when there is one. */
const DCA_SWAP = /^\S+ \S+\s+dca-sol-usdc\s+swap\s+SOL → USDC\s+0\.01 SOL\s+(\d+\.\d+) USDC\s+\$\d+\.\d\d\s+0\.\d+ SOL\s+\S+$/m;

describe('npm start, then status and trades in another shell', () => {
  let npm: NpmStart | undefined;
  afterAll(() => {
    // Never leave a keeper behind, whatever failed.
    if (npm?.proc.pid && npm.exitedAt() === undefined) {
      for (const pid of [npm.proc.pid, ...descendants(npm.proc.pid)]) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  });

  it(
    'shows the running bot, its strategies and its trades with amounts, then that it stopped',
    async () => {
      // The database is this test's: start from nothing, so that what is shown is this run's (history is kept).
      const admin = new Redis(redisUrl(), { lazyConnect: true });
      await admin.connect();
      try {
        const keys = await admin.keys(`${PREFIX}:*`);
        if (keys.length > 0) await admin.del(...keys);
      } finally {
        admin.disconnect();
      }

      const run = (npm = spawnNpmStart());
      const tail = () => run.stderr.join('').slice(-3000);
      let trades = '';
      // Waits on the outcome (a settled swap listed with its amounts), however slow the machine.
      await waitUntil(
        'a settled swap listed by `npx jup-keeper trades`',
        async () => {
          if (run.exitedAt() !== undefined) throw new Error(`npm start exited early:\n${tail()}`);
          const t = await npx('trades');
          trades = t.stdout;
          return t.code === 0 && DCA_SWAP.test(t.stdout);
        },
        240_000,
        2_000,
      );
      const usdc = Number(DCA_SWAP.exec(trades)![1]);
      expect(usdc).toBeGreaterThan(0);
      expect(trades).toMatch(/^trades of prefix jk-paper, session \d+ \(started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, the keeper running now; --all for every session\): \d+ trade\(s\)$/m);
      expect(trades).toMatch(/^TIME \(UTC\)\s+STRATEGY\s+KIND\s+PAIR\s+IN\s+OUT\s+PRICE\s+FEE\s+SIGNATURE$/m);

      const status = await npx('status');
      expect(status.code, status.stderr).toBe(0);
      const out = status.stdout;
      expect(out).toMatch(/^keeper\s+RUNNING since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+[smh] ago\), heartbeat \d+s ago: pid \d+ on /m);
      expect(out).toMatch(/^where\s+prefix jk-paper on redis:\/\/\S+\/12 \(config\/paper\.yaml\), the keeper alive on this Redis$/m);
      expect(out).toMatch(/^venue\s+simulator http:\/\/127\.0\.0\.1:\d+$/m);
      expect(out).toMatch(/^wallet value\s+(\$[\d,]+\.\d\d at start|not recorded at start), \$[\d,]+\.\d\d now/m);
      expect(out).toMatch(/^P&L\s+realised [+-]?\$\d+\.\d\d this session \([+-]?\$\d+\.\d\d over every session\), unrealised [+-]?\$\d+\.\d\d/m);
      expect(out).toMatch(/^session\s+\d+, started \S+ ago: \d+ trade\(s\)/m);
      // Every strategy of config/paper.yaml, with its schedule and when it runs next.
      for (const id of ['dca-sol-usdc', 'rebalance-sol-usdc', 'ladder-sol-usdc', 'idle-jupusd', 'edge-sol-windows']) {
        expect(out).toMatch(new RegExp(`^\\s+${id}\\s+\\S+@\\S+\\s+every \\d+s\\s+(\\S+ ago|never)\\s+(in \\d+s|due now)\\s`, 'm'));
      }

      // The kill switch and the ledger typed with no flag are the running keeper's too: status shows the switch
      // engaged for it, and `intents` lists its strategies' intents.
      const on = await npx('kill-switch', 'on', '--reason', 'operator check');
      expect(on.code, on.stderr).toBe(0);
      expect(on.stdout).toMatch(/^kill switch ENGAGED \(halt\) for jk-paper \(the keeper running now\): operator check$/m);
      expect((await npx('status')).stdout).toMatch(/^kill switch\s+ENGAGED \(halt\) by cli \S+ ago: operator check$/m);
      const listed = await npx('intents', '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect((JSON.parse(listed.stdout) as Array<{ strategy: string }>).some((r) => r.strategy === 'dca-sol-usdc')).toBe(true);
      const off = await npx('kill-switch', 'off');
      expect(off.stdout).toBe('kill switch released for jk-paper (the keeper running now)\n');
      expect((await npx('status')).stdout).toMatch(/^kill switch\s+off$/m);

      // Stopped as a person stops it (Ctrl-C reaches npm and the keeper; SIGTERM to npm is what a process manager sends).
      run.proc.kill('SIGTERM');
      const code = await Promise.race([run.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_WITHIN_MS + 5_000).unref())]);
      expect(code, tail()).toBe(0);
      const after = await npx('status');
      expect(after.code, after.stderr).toBe(0);
      expect(after.stdout).toMatch(/^keeper\s+STOPPED since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(\d+[sm] ago, stopped cleanly\); it had run \d+[smh] from /m);
      expect(after.stdout).toMatch(/^\s+dca-sol-usdc\s+\S+\s+every 15s\s+\S+ ago\s+stopped\s/m);
      // The trades stay listed once the bot stopped.
      const later = await npx('trades');
      expect(later.stdout).toMatch(/^trades of prefix jk-paper, session \d+ \(started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, the last one; --all for every session\): \d+ trade\(s\)$/m);
      expect(later.stdout).toMatch(DCA_SWAP);
    },
    360_000,
  );
});
