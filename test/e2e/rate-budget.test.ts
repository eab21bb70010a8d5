import { describe, expect, it } from 'vitest';
import type { GatewayCounters } from '../../src/sim/http/gateway.js';
import { airdrop, control, SOL } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { dcaSwapsConfig, readIntents, stopKeeper } from '../helpers/e2e.js';

// Acceptance (issue 10, item 6): two `jup-keeper run` instances with different prefixes and one API key stay
// within one rate budget: the venue, set to a tier, answers no 429 over a 60-second run in which demand is ten
// times the budget.

const API_KEY = 'jup_e2e_budget_key';
const RUN_MS = 60_000;
/** dca-swap instances per keeper, each asking for an Ultra swap (an order and an execute) every second. */
const INSTANCES = 13;
/** The ultra tier's swap interface: 50 requests per 10 s. */
const SWAP_BUDGET_PER_S = 5;
/** The ultra tier's other paths: 60 a minute. */
const OTHER_BUDGET_PER_S = 1;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('two keepers of one API key under the ultra tier', { timeout: 240_000 }, () => {
  const world = useKeeperEnv('rate-budget', { sim: { apiKeys: [`${API_KEY}:ultra`] } });

  function keeperConfig(prefix: string): string {
    const instances = Array.from({ length: INSTANCES }, (_, i) => ({ id: `dca${i + 1}`, inputMint: 'SOL', outputMint: 'USDC', amount: 10_000_000n, via: 'ultra' as const, everySeconds: 1, maxRuns: 1_000 }));
    return dcaSwapsConfig({
      venueUrl: world.sim.url,
      prefix,
      instances,
      logLevel: 'info',
      // The key goes to the simulator (its keyed origin here), and the client keeps the ultra tier's budget.
      extra: `api:\n  tier: ultra\n  keyedBaseUrl: ${world.sim.url}\n`,
    });
  }

  async function startKeeper(prefix: string): Promise<KeeperProcess> {
    const { path: walletPath, keypair } = writeKeypair(world.dir, `${prefix}.json`);
    await airdrop(world.sim, keypair, SOL, 10_000_000_000n);
    const config = writeConfig(world.dir, keeperConfig(prefix), `${prefix}.yaml`);
    return spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url], { JUPITER_API_KEY: API_KEY });
  }

  const landed = async (prefix: string) => (await readIntents(world.redis.url, prefix)).filter((r) => r.state === 'landed').length;

  it('draws no 429 from the venue in 60 s of ten times the demand, and both keep landing swaps', async () => {
    // Demand the configuration makes: per keeper, a swap a second from each instance (2 swap-interface requests),
    // a price read a second and a wallet read a second (4 requests on the other paths).
    const swapDemand = 2 * INSTANCES * 2;
    const otherDemand = 2 * (1 + 4);
    expect(swapDemand).toBeGreaterThanOrEqual(10 * SWAP_BUDGET_PER_S);
    expect(otherDemand).toBeGreaterThanOrEqual(10 * OTHER_BUDGET_PER_S);

    const keepers = [await startKeeper('e2e-budget-a'), await startKeeper('e2e-budget-b')];
    try {
      // Both running and trading before the measured minute starts.
      await Promise.all(keepers.map((k) => k.waitForLog((l) => l.msg === 'landed', 90_000)));
      await control(world.sim, '/gateway', undefined, 'DELETE');
      const before = [await landed('e2e-budget-a'), await landed('e2e-budget-b')];
      await sleep(RUN_MS);
      const counts = await control<ReturnType<GatewayCounters['snapshot']>>(world.sim, '/gateway', undefined, 'GET');
      const after = [await landed('e2e-budget-a'), await landed('e2e-budget-b')];

      expect(counts.tooMany, JSON.stringify(counts.lanes)).toBe(0);
      // The budget was used, not merely left alone: the swap interface ran near its 50 per 10 s.
      expect(counts.lanes['ultra/swap']!.allowed).toBeGreaterThanOrEqual(0.6 * SWAP_BUDGET_PER_S * (RUN_MS / 1000));
      expect(counts.lanes['ultra/swap']!.allowed).toBeLessThanOrEqual(50 * (RUN_MS / 10_000 + 1));
      expect(counts.lanes['ultra/all']!.allowed).toBeLessThanOrEqual(60 * (RUN_MS / 60_000 + 1));
      // Both keepers made progress within the minute.
      expect(after[0]! - before[0]!, 'swaps landed by keeper a').toBeGreaterThanOrEqual(5);
      expect(after[1]! - before[1]!, 'swaps landed by keeper b').toBeGreaterThanOrEqual(5);
      // Neither keeper was refused for its rate: no request of theirs met a 429 (the client would log its retry).
      for (const k of keepers) expect(k.logs().filter((l) => l.code === 'JUP_HTTP_429')).toEqual([]);
    } finally {
      for (const k of keepers) await stopKeeper(k);
    }
  });
});
