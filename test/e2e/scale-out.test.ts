import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isTerminal } from '../../src/engine/states.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { assertExactlyOnce, startHarness, type Case, type Harness } from '../helpers/exactlyOnce.js';
import type { KeeperProcess } from '../helpers/keeper.js';
import { writeConfig } from '../helpers/keeper.js';
import { waitUntil } from '../helpers/e2e.js';

// Scale-out (issue 11, item 4): one `jup-keeper run --role scheduler` and three `--role worker` processes on one
// Redis and prefix, with one config and wallet. The scheduler only upserts the job schedulers; the three workers
// share the evaluate queue (the shards' ticks) and the execute queue (the intents). Judged by the workers' own log
// lines (which process decided which shard window, which process landed which intent), the strategy state in Redis
// and the simulator's ledger.

/** dca-swap instances that trade: each asks for MAX_RUNS swaps of 0.01 SOL, one per window. */
const TRADERS = 9;
const MAX_RUNS = 2;
/** dca-swap instances that never trade (their input is JUP, which the wallet lacks): they log every decision. */
const IDLE = 15;
/** Small shards, so that 24 instances make several of them. */
const SHARD_SIZE = 4;

function scaleOutConfig(c: Case): string {
  const instance = (id: string, input: string, amount: string, maxRuns: number) => `  - id: ${id}
    strategy: dca-swap
    schedule: { every: 2s }
    params: { inputMint: ${input}, outputMint: USDC, amount: "${amount}", via: ultra, maxRuns: ${maxRuns} }`;
  return `venue:
  kind: simulator
  url: ${c.sim.url}
wallet: {}
redis:
  prefix: ${c.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 1
  jobLock: 15s
  reconcileEvery: 2s
  deadline: 10m
  shardSize: ${SHARD_SIZE}
feeds:
  prices: 1s
  wallet: 1s
logging:
  level: info
strategies:
${[...Array.from({ length: TRADERS }, (_, i) => instance(`trader-${i}`, 'SOL', '10000000', MAX_RUNS)), ...Array.from({ length: IDLE }, (_, i) => instance(`idle-${i}`, 'JUP', '1000000', 1_000))].join('\n')}
`;
}

/** The shard windows a process decided: from the lines its evaluations log with their shard and window bound. */
function decidedWindows(k: KeeperProcess): Set<string> {
  const out = new Set<string>();
  for (const l of k.logs()) {
    if ((l.msg === 'skipping: balance below the amount' || l.msg === 'intent planned') && typeof l.shard === 'string' && typeof l.window === 'string') out.add(`${l.shard}@${l.window}`);
  }
  return out;
}

/** The intents a process carried to `landed`. */
function landedBy(k: KeeperProcess): string[] {
  return k.logs().filter((l) => l.msg === 'landed' && typeof l.intent === 'string').map((l) => String(l.intent));
}

describe('one scheduler and three workers on one Redis and prefix', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('scale-out');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('spreads the shards and the intents over the three workers, and decides and settles nothing twice', async ({ onTestFailed }) => {
    const c = await h.newCase('three-workers');
    c.dumpOnFailure(onTestFailed);
    const config = writeConfig(h.dir, scaleOutConfig(c), `${c.prefix}.yaml`);
    const env = { LOG_LEVEL: 'info' };
    const workers = [c.spawn({ config, role: 'worker', env }), c.spawn({ config, role: 'worker', env }), c.spawn({ config, role: 'worker', env })];
    // The workers consume before the first tick is scheduled: none is left out by starting late on a busy machine.
    await Promise.all(workers.map((w) => w.waitForLog((l) => l.msg === 'keeper started', 60_000)));
    const scheduler = c.spawn({ config, role: 'scheduler', env });
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    const runsOf = async (id: string) => Number((await states.getState(id)).runs ?? 0);

    // Every trader used its runs and every intent is terminal.
    await waitUntil(
      'every trader to use its runs and every intent to end',
      async () => {
        const runs = await Promise.all(Array.from({ length: TRADERS }, (_, i) => runsOf(`trader-${i}`)));
        const intents = await c.intents();
        return runs.every((r) => r === MAX_RUNS) && intents.length === TRADERS * MAX_RUNS && intents.every((r) => isTerminal(r.state));
      },
      45_000,
    );
    // A few more ticks of evaluation (the idle instances keep deciding), so every worker has had its share.
    await waitUntil('each worker to decide some shard window', () => workers.every((w) => decidedWindows(w).size > 0), 20_000);

    const exits = await Promise.all([scheduler, ...workers].map((k) => c.stop(k)));
    expect(exits, 'every keeper shut down cleanly').toEqual([0, 0, 0, 0]);

    // Evaluate jobs ran on all three workers, none on the scheduler, and no shard window was decided by two of them.
    const decided = workers.map(decidedWindows);
    expect(decided.map((d) => d.size > 0), `shard windows decided per worker: ${decided.map((d) => d.size).join(', ')}`).toEqual([true, true, true]);
    expect(decidedWindows(scheduler).size, 'the scheduler decides nothing').toBe(0);
    const byWindow = new Map<string, number>();
    for (const d of decided) for (const w of d) byWindow.set(w, (byWindow.get(w) ?? 0) + 1);
    expect([...byWindow].filter(([, n]) => n > 1).map(([w]) => w), 'shard windows decided by more than one worker').toEqual([]);
    const shards = new Set([...byWindow.keys()].map((w) => w.split('@')[0]));
    expect(shards.size, 'several shards').toBeGreaterThanOrEqual(4);

    // Execute jobs ran on all three workers, and each landing was carried out by exactly one of them.
    const landed = workers.map(landedBy);
    expect(landed.map((l) => l.length > 0), `intents landed per worker: ${landed.map((l) => l.length).join(', ')}`).toEqual([true, true, true]);
    const all = landed.flat();
    expect(new Set(all).size, 'an intent landed by two workers').toBe(all.length);
    expect(landedBy(scheduler)).toEqual([]);

    if (process.env.EO_DUMP) console.log(`shard windows decided per worker: ${decided.map((d) => d.size).join(', ')}; shards: ${shards.size}; intents landed per worker: ${landed.map((l) => l.length).join(', ')}`);

    // Every intent settled exactly once, judged by the simulator's ledger.
    const report = await assertExactlyOnce(c);
    expect(report.landed).toHaveLength(TRADERS * MAX_RUNS);
    expect(all.sort()).toEqual(report.landed.map((r) => r.id).sort());
    // A window decided twice would spend a run twice: each trader's runs equal its intents, each in its own window.
    for (let i = 0; i < TRADERS; i += 1) {
      const mine = report.intents.filter((r) => r.instance === `trader-${i}`);
      expect(mine.map((r) => r.intent.reason).sort(), `trader-${i}`).toEqual(Array.from({ length: MAX_RUNS }, (_, n) => `dca run ${n + 1} of ${MAX_RUNS}`));
      expect(await runsOf(`trader-${i}`)).toBe(MAX_RUNS);
    }
  }, 120_000);
});
