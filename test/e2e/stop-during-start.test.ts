import { describe, expect, it } from 'vitest';
import { dcaConfig, spawnKeeper, writeConfig, writeKeypair, useKeeperEnv } from '../helpers/keeper.js';
import { stopKeeper } from '../helpers/e2e.js';
import { airdrop, SOL } from '../helpers/sim.js';

// An orchestrator may stop a keeper that is still starting (a slow start on a loaded machine, a deploy rolled back).
// The stop must not kill it half-way with nothing closed: it finishes starting, then shuts down cleanly.
describe('a stop requested while the keeper starts', () => {
  const world = useKeeperEnv('stop-during-start');

  it('is kept, and the keeper shuts down cleanly once started', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    const config = writeConfig(world.dir, dcaConfig({ venueUrl: world.sim.url, prefix: 'stop-start', maxRuns: 1 }));
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    // The Redis check's warning (this test Redis keeps no AOF) comes early in the start, long before "keeper started".
    const early = await k.waitForLog((l) => /cannot make writes durable/.test(String(l.msg)), 60_000);
    expect(k.logs().some((l) => l.msg === 'keeper started')).toBe(false);
    expect(await stopKeeper(k, 60_000)).toBe(0);
    const after = k.logs().slice(k.logs().indexOf(early));
    expect(after.some((l) => l.msg === 'stopping: finishing in-flight executions' && l.why === 'SIGTERM')).toBe(true);
    expect(after.at(-1)?.msg).toBe('keeper stopped');
  }, 120_000);
});
