import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { evaluate, type EvaluateDeps, type EvaluatedInstance } from '../../src/engine/evaluate.js';
import type { DecisionWindow } from '../../src/engine/ids.js';
import { silentLogger } from '../../src/lib/logger.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { createRegistry, dcaSwap } from '../../strategies/index.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

// Two keepers (two Redis connections, as two processes have) evaluate windows of one dca-swap instance at the same
// moment: a backlog after an outage, or a slow evaluation overlapping the next window. Each reads runs = n; only one
// may turn that into run n + 1.
describe('evaluations of one instance running at once', () => {
  const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const prefix = `test-eval-conc-${process.pid}`;
  const keepers = [new Redis(url), new Redis(url)];
  const enqueued: string[] = [];
  const now = Date.UTC(2026, 10, 23, 12);
  const depsOf = (redis: Redis): EvaluateDeps => ({
    snapshots: snapshotSource(new SnapshotStore(redis, prefix)),
    ledger: intentLedger(new IntentStore(redis, prefix)),
    states: new StrategyStateStore(redis, prefix),
    counters: new RiskStore(redis, prefix),
    enqueue: (id) => {
      enqueued.push(id);
      return Promise.resolve();
    },
    limits: { maxNotionalUsdPerIntent: 100, maxDailyNotionalUsd: 100_000, maxSlippageBps: 100, minSolReserveLamports: 10_000_000n, refuseShieldSeverities: ['critical'] },
    maxIntentsPerEvaluation: 5,
    deadlineMs: 60_000,
    maxPriceAgeMs: 60_000,
    maxWalletAgeMs: 30_000,
    logger: silentLogger,
  });
  const maxRuns = 3;
  const dca: EvaluatedInstance = { id: 'dca', definition: createRegistry([dcaSwap]).get('dca-swap')!, params: dcaSwap.params.parse({ inputMint: 'SOL', outputMint: 'USDC', amount: '10000000', maxRuns }) };
  const w = (n: number): DecisionWindow => ({ id: n, start: n * 2_000 });
  const intents = new IntentStore(keepers[0]!, prefix);
  const states = new StrategyStateStore(keepers[0]!, prefix);

  beforeEach(async () => {
    await clearNamespace(keepers[0]!, prefix);
    enqueued.length = 0;
    const snapshots = new SnapshotStore(keepers[0]!, prefix);
    await snapshots.write('market', { at: now, prices: { [SOL]: { usd: 200, decimals: 9, change24h: 0 }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} });
    await snapshots.write('wallet', { at: now, address: 'W', lamports: 5_000_000_000n, holdings: [], trigger: [], recurring: [], lend: [], prediction: [], errors: {} });
  });
  afterAll(async () => {
    await clearNamespace(keepers[0]!, prefix);
    await Promise.all(keepers.map((k) => k.quit()));
  });

  it('never lets two of them spend the same run: exactly maxRuns intents, each window at most once', async () => {
    // Eight windows at once, alternating between the keepers; then later windows one by one until dca is done.
    const burst = await Promise.all([1, 2, 3, 4, 5, 6, 7, 8].map((n) => evaluate(dca, w(n), now, depsOf(keepers[n % 2]!))));
    const reasons = burst.flatMap((s) => s.intents.filter((i) => i.state === 'planned').map((i) => i.reason));
    expect(reasons.length).toBeGreaterThanOrEqual(1);
    expect(new Set(reasons).size, `several evaluations spent the same run: ${reasons.join(', ')}`).toBe(reasons.length);
    expect(await states.getState('dca')).toEqual({ runs: reasons.length });
    for (let n = 9; n <= 14; n += 1) await evaluate(dca, w(n), now, depsOf(keepers[n % 2]!));

    const all = await intents.all();
    expect(all).toHaveLength(maxRuns);
    expect(all.map((r) => r.intent.reason).sort()).toEqual(['dca run 1 of 3', 'dca run 2 of 3', 'dca run 3 of 3']);
    expect(await states.getState('dca')).toEqual({ runs: maxRuns });
    expect(new Set(enqueued)).toEqual(new Set(all.map((r) => r.id)));
  });

  it('decides again on the state the other one wrote when its window is newer', async () => {
    // Window 2 reads runs = 0 while window 1 is being committed; its commit is refused and it decides on runs = 1.
    const [first, second] = await Promise.all([evaluate(dca, w(1), now, depsOf(keepers[0]!)), evaluate(dca, w(2), now, depsOf(keepers[1]!))]);
    const outcomes = [first, second].map((s) => s.intents.map((i) => i.reason));
    // Either order of the two commits is valid; what matters is that the runs they spent are distinct.
    const reasons = outcomes.flat().sort();
    expect(reasons.length).toBeGreaterThanOrEqual(1);
    expect(new Set(reasons).size, `two windows spent the same run: ${JSON.stringify(outcomes)}`).toBe(reasons.length);
    expect(await states.getState('dca')).toEqual({ runs: (await intents.all()).length });
  });
});
