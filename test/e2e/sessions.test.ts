// Issue 23's acceptance lines: "after `npm start`, Ctrl-C and `npm start` again, `trades` shows this session only and
// `trades --all` both", and "the summary's trade count equals `trades` for the same window". Each run is what
// `npm start` runs (`jup-keeper run --config config/paper.yaml`: every built-in strategy on the in-process simulator,
// real signed transactions) on a Redis and prefix of this test's own, stopped with SIGINT (Ctrl-C); the second start
// is a new paper session on the first one's kept history.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runKeeperCli, spawnKeeper, startTestRedis, type KeeperProcess, type TestRedis } from '../helpers/keeper.js';
import { outputDrained, waitUntil } from '../helpers/e2e.js';

const PREFIX = 'sessions-e2e';
const STOP_WITHIN_MS = 25_000;

interface TradeJson {
  intent: string;
  kind: string;
  session: number | null;
}

describe('sessions: a keeper run twice', () => {
  let redis: TestRedis | undefined;
  const keepers: KeeperProcess[] = [];
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    for (const k of keepers) if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
    await redis?.stop();
  });
  const url = () => redis!.url;

  const trades = (...args: string[]) => runKeeperCli(['trades', '--redis-url', url(), '--prefix', PREFIX, ...args]);
  const tradesJson = async (...args: string[]): Promise<TradeJson[]> => {
    const run = await trades('--json', ...args);
    expect(run.code, run.stderr).toBe(0);
    return JSON.parse(run.stdout) as TradeJson[];
  };

  /** Runs the keeper until `landings` swaps of this run filled, checks `trades` while it runs, then Ctrl-C. */
  const runOnce = async (landings: number, whileRunning: () => Promise<void>): Promise<Record<string, unknown>> => {
    const k = spawnKeeper(['run', '--config', 'config/paper.yaml', '--prefix', PREFIX, '--redis-url', url(), '--dashboard-port', String(await freePort()), '--log-format', 'json']);
    keepers.push(k);
    // A swap is a trade the moment it lands (placing an order is none).
    await waitUntil(`${landings} swaps filled`, () => k.logs().filter((l) => l.msg === 'filled' && l.kind === 'swap').length >= landings || undefined, 90_000).catch((err: unknown) => {
      throw new Error(`${err instanceof Error ? err.message : String(err)}; stderr tail:\n${k.stderr.join('').slice(-3000)}`);
    });
    await whileRunning();
    k.kill('SIGINT');
    const code = await Promise.race([k.exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), STOP_WITHIN_MS).unref())]);
    expect(code, k.stderr.join('').slice(-3000)).toBe(0);
    await outputDrained(k);
    // The summary at stop: the last line before 'keeper stopped'.
    const summary = k.logs().filter((l) => l.msg === 'summary').at(-1);
    expect(summary, k.stderr.join('').slice(-3000)).toBeDefined();
    return summary!;
  };

  it('lists only the current session by default and every session with --all, each trade naming its session; the summary counts what trades lists', { timeout: 300_000 }, async () => {
    // First run: two swaps land, then Ctrl-C.
    const first = await runOnce(2, async () => {
      const rows = await tradesJson();
      expect(rows.length).toBeGreaterThan(0);
      expect(new Set(rows.map((r) => r.session))).toEqual(new Set([1]));
    });
    expect(first).toMatchObject({ period: 'session 1', session: 1 });
    const firstRows = await tradesJson();
    expect(firstRows.every((r) => r.session === 1)).toBe(true);
    // The summary's count is exactly what `trades` lists for the same session.
    expect(first.trades).toBe(firstRows.length);

    // Second run on the same prefix: a new session; while it runs, `trades` shows its trades only.
    const second = await runOnce(2, async () => {
      const run = await trades();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^trades of prefix sessions-e2e, session 2 \(started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, the keeper running now; --all for every session\): \d+ trade\(s\)$/m);
      const rows = await tradesJson();
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.session === 2)).toBe(true);
      expect(rows.some((r) => firstRows.some((f) => f.intent === r.intent))).toBe(false);
    });
    expect(second).toMatchObject({ period: 'session 2', session: 2 });
    const secondRows = await tradesJson();
    expect(secondRows.every((r) => r.session === 2)).toBe(true);
    expect(second.trades).toBe(secondRows.length);

    // --all: both sessions, each trade naming its own; the table has a SESSION column.
    const all = await tradesJson('--all');
    expect(all.map((r) => r.intent).sort()).toEqual([...firstRows, ...secondRows].map((r) => r.intent).sort());
    expect(all.filter((r) => r.session === 1).map((r) => r.intent).sort()).toEqual(firstRows.map((r) => r.intent).sort());
    expect(all.filter((r) => r.session === 2).map((r) => r.intent).sort()).toEqual(secondRows.map((r) => r.intent).sort());
    const table = await trades('--all');
    expect(table.stdout).toMatch(new RegExp(`^trades of prefix sessions-e2e, every session \\(2\\): ${all.length} trade\\(s\\)$`, 'm'));
    expect(table.stdout).toMatch(/^SESSION\s+TIME \(UTC\)\s+STRATEGY/m);
    expect(table.stdout.split('\n').filter((l) => /^\s*1\s+\d{4}-\d\d-\d\d /.test(l))).toHaveLength(firstRows.length);
    expect(table.stdout.split('\n').filter((l) => /^\s*2\s+\d{4}-\d\d-\d\d /.test(l))).toHaveLength(secondRows.length);
    // After the stop, the default is the last session, and it says so.
    const last = await trades();
    expect(last.stdout).toMatch(new RegExp(`^trades of prefix sessions-e2e, session 2 \\(started \\S+ \\S+ UTC, the last one; --all for every session\\): ${secondRows.length} trade\\(s\\)$`, 'm'));
  });
});
