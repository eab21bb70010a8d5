import { describe, expect, it } from 'vitest';
import { LEVEL } from '../helpers/e2e.js';
import { alive, describeProcess, descendants, spawnNpmStart } from '../helpers/npmStart.js';

const RUN_MS = 60_000;
const STOP_WITHIN_MS = 25_000;

describe('npm start', () => {
  it('paper-trades for a minute against the machine Redis and stops cleanly on SIGTERM', async () => {
    const run = spawnNpmStart();
    const { proc: npm, stderr, logs, exited, closed } = run;
    const tail = () => `stderr tail:\n${stderr.join('').slice(-3000)}`;
    let keeperPids: number[] = [];
    try {
      await new Promise((r) => setTimeout(r, RUN_MS));
      expect(run.exitedAt(), `npm start exited early; ${tail()}`).toBeUndefined();
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
      expect(run.exitedAt()! - signalledAt).toBeLessThanOrEqual(STOP_WITHIN_MS);
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
