// Issue 12's acceptance line: `config/paper.yaml` runs every built-in strategy at once in `npm start`, and within two
// minutes the venue's ledger shows swaps, trigger fills, recurring fills, a lend deposit, prediction fills and a
// claim. The bot is started exactly as a person starts it (`npm start`, a fresh shell's environment); the only
// difference is REDIS_URL, naming a Redis database of its own, so that test/e2e/npm-start.test.ts (the same config,
// the same prefix, on database 0) can run beside it without either clearing the other's records at start.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinStrategies } from '../../strategies/index.js';
import { LEVEL } from '../helpers/e2e.js';
import { ROOT } from '../helpers/keeper.js';
import { alive, describeProcess, descendants, spawnNpmStart, type NpmStart } from '../helpers/npmStart.js';

/** The acceptance line's bound, from `npm start` to the last product in the ledger. */
const WITHIN_MS = 120_000;
const STOP_WITHIN_MS = 25_000;
const POLL_MS = 1_000;
/** A database no other test uses (the others use 0, or a redis-server of their own). */
const REDIS_DB = 13;

/** What the acceptance line asks to see, and the ledger kinds (GET /__sim/ledger) that show it. */
const PRODUCTS = {
  swap: ['ultra', 'swap'],
  'trigger fill': ['trigger-fill'],
  'recurring fill': ['recurring-fill'],
  'lend deposit': ['lend-deposit'],
  'prediction fill': ['prediction-fill'],
  claim: ['prediction-claim'],
} as const satisfies Record<string, readonly string[]>;
type Product = keyof typeof PRODUCTS;

interface LedgerEntry {
  kind: string;
  wallet: string;
}

function redisUrl(): string {
  const url = new URL(process.env.REDIS_URL || 'redis://127.0.0.1:6379');
  url.pathname = `/${REDIS_DB}`;
  return url.toString();
}

/** Removes the paper keeper's keys (config/paper.yaml's prefix) from the test's own database. */
async function clearPaperKeys(): Promise<void> {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 3 });
  try {
    const keys = await redis.keys('jk-paper*');
    for (let i = 0; i < keys.length; i += 500) await redis.unlink(...keys.slice(i, i + 500));
  } finally {
    redis.disconnect();
  }
}

/** A log line as a person would skim it: level, component, instance, message and its reason or error. */
function brief(l: Record<string, unknown>): string {
  const level = Object.entries(LEVEL).find(([, v]) => v === l.level)?.[0] ?? String(l.level);
  const extra = l.reason ?? l.err ?? l.error ?? l.why ?? '';
  return [level, l.component ?? '', l.instance ?? '', l.msg, typeof extra === 'string' ? extra : JSON.stringify(extra)].filter((s) => s !== '').join(' | ');
}

describe('config/paper.yaml under npm start', () => {
  let npm: NpmStart | undefined;
  // Earlier runs' paper sessions would be kept (and rolled over at start): this run starts from none, and leaves none.
  beforeAll(clearPaperKeys);
  afterAll(async () => {
    // Never leave a keeper behind, whatever failed.
    if (npm?.proc.pid) for (const pid of [npm.proc.pid, ...descendants(npm.proc.pid)]) if (alive(pid)) process.kill(pid, 'SIGKILL');
    await clearPaperKeys();
  });

  it('names an instance of every built-in strategy', () => {
    const config = load(readFileSync(join(ROOT, 'config/paper.yaml'), 'utf8')) as { strategies: Array<{ strategy: string }> };
    expect(new Set(config.strategies.map((s) => s.strategy))).toEqual(new Set(builtinStrategies.names()));
  });

  it(
    'runs every built-in strategy and, within two minutes, the ledger shows swaps, trigger fills, recurring fills, a lend deposit, prediction fills and a claim',
    async () => {
      const run = (npm = spawnNpmStart({ REDIS_URL: redisUrl() }));
      const seen = new Map<Product, number>();
      let venueUrl: string | undefined;
      let wallet: string | undefined;
      let mine: LedgerEntry[] = [];
      let lastError = '';
      const logTail = (n = 40) => run.logs.slice(-n).map(brief).join('\n');
      const why = () => {
        const kinds: Record<string, number> = {};
        for (const e of mine) kinds[e.kind] = (kinds[e.kind] ?? 0) + 1;
        const missing = (Object.keys(PRODUCTS) as Product[]).filter((p) => !seen.has(p));
        return [
          `missing after ${Math.round((Date.now() - run.startedAt) / 1000)} s: ${missing.join(', ') || 'nothing'}`,
          `venue ${venueUrl ?? '(no "simulator started in-process" line yet)'}, wallet ${wallet ?? '(not funded yet)'}`,
          `the wallet's ledger by kind: ${JSON.stringify(kinds)}${lastError ? ` (last ledger read failed: ${lastError})` : ''}`,
          `the bot's prediction lines:\n${run.logs.filter((l) => (typeof l.instance === 'string' && l.instance.startsWith('edge')) || l.job === 'claims').slice(-30).map(brief).join('\n')}`,
          `npm start ${run.exitedAt() === undefined ? 'still runs' : 'EXITED'}; the bot's last log lines:\n${logTail()}`,
          `stderr tail:\n${run.stderr.join('').slice(-1500)}`,
        ].join('\n');
      };

      // Poll the venue's ledger until each product shows for the bot's wallet, or the two minutes are up.
      while (seen.size < Object.keys(PRODUCTS).length && Date.now() - run.startedAt < WITHIN_MS && run.exitedAt() === undefined) {
        venueUrl ??= run.logs.find((l) => l.msg === 'simulator started in-process')?.url as string | undefined;
        wallet ??= run.logs.find((l) => l.msg === 'fresh paper wallet funded by the simulator')?.wallet as string | undefined;
        if (venueUrl && wallet) {
          try {
            const res = await fetch(`${venueUrl}/__sim/ledger`, { signal: AbortSignal.timeout(5_000) });
            const body = (await res.json()) as { transactions: LedgerEntry[] };
            mine = body.transactions.filter((t) => t.wallet === wallet);
            const at = Date.now() - run.startedAt;
            for (const [product, kinds] of Object.entries(PRODUCTS) as Array<[Product, readonly string[]]>) {
              if (!seen.has(product) && mine.some((t) => kinds.includes(t.kind))) seen.set(product, at);
            }
            lastError = '';
          } catch (err) {
            lastError = err instanceof Error ? err.message : String(err); // the venue busy on a loaded machine: read again
          }
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
      }
      // The measurement, for the record: seconds from `npm start` to each product's first ledger entry.
      const logged = (msg: string) => {
        const t = run.logs.find((l) => l.msg === msg)?.time;
        return typeof t === 'number' ? `${((t - run.startedAt) / 1000).toFixed(1)} s` : 'never';
      };
      console.log(
        `paper-all: after npm start: simulator started ${logged('simulator started in-process')}, keeper started ${logged('keeper started')}; first ledger entry: ` +
          [...seen].map(([p, ms]) => `${p} ${(ms / 1000).toFixed(1)} s`).join(', '),
      );
      expect([...seen.keys()].sort(), why()).toEqual((Object.keys(PRODUCTS) as Product[]).sort());
      // The claim is the keeper's claim job's (keeper.claimEvery), not the venue's own claim of winnings left a day.
      expect(run.logs.some((l) => l.msg === 'claiming a settled winning position'), why()).toBe(true);

      // Every instance of the config was started.
      const config = load(readFileSync(join(ROOT, 'config/paper.yaml'), 'utf8')) as { strategies: Array<{ id: string }> };
      expect(run.logs.find((l) => l.msg === 'keeper started')?.strategies, why()).toEqual(config.strategies.map((s) => s.id));

      // SIGTERM to npm, as a process manager sends it: the keeper stops cleanly and nothing of it is left.
      const tree = descendants(run.proc.pid!);
      const signalledAt = Date.now();
      run.proc.kill('SIGTERM');
      const code = await Promise.race([run.exited, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), STOP_WITHIN_MS + 5_000).unref())]);
      expect(code, why()).toBe(0);
      expect(run.exitedAt()! - signalledAt).toBeLessThanOrEqual(STOP_WITHIN_MS);
      await Promise.race([run.closed, new Promise((r) => setTimeout(r, 5_000))]);
      const left = tree.filter(alive);
      expect(left, `still running: ${left.map(describeProcess).join('; ')}`).toEqual([]);
      expect(run.logs.at(-1)?.msg, why()).toBe('keeper stopped');

      // No error in the bot's log (strategies' included). Warnings are printed for whoever reads the run.
      const warnings = run.logs.filter((l) => (l.level as number) === LEVEL.warn);
      if (warnings.length > 0) console.log(`paper-all: ${warnings.length} warning(s):\n${warnings.map(brief).join('\n')}`);
      expect(run.logs.filter((l) => (l.level as number) >= LEVEL.error).map(brief)).toEqual([]);
    },
    WITHIN_MS + STOP_WITHIN_MS + 60_000,
  );
});
