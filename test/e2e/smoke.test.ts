import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, ledger, SOL, startTestSim } from '../helpers/sim.js';
import { dcaConfig, scratchDir, spawnKeeper, startTestRedis, writeConfig, writeKeypair, type TestRedis } from '../helpers/keeper.js';

describe('a keeper process against a running simulator', () => {
  let sim: RunningSimulator;
  let redis: TestRedis;
  const scratch = scratchDir('smoke');
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 1 });
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await sim.close();
    await redis.stop();
    scratch.cleanup();
  });

  it('settles each planned swap once and exits cleanly when --duration elapses', async () => {
    const { path: walletPath, keypair } = writeKeypair(scratch.dir);
    await airdrop(sim, keypair, SOL, 2_000_000_000n);
    const config = writeConfig(scratch.dir, dcaConfig({ venueUrl: sim.url, prefix: 'smoke', maxRuns: 3, everySeconds: 1 }));
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', redis.url, '--duration', '15']);
    const code = await k.exited;
    expect(code).toBe(0);
    const swaps = (await ledger(sim)).filter((t) => t.wallet === keypair.publicKey.toBase58() && t.kind === 'ultra');
    expect(swaps).toHaveLength(3);
    expect(new Set(swaps.map((s) => s.requestId)).size).toBe(3);
    expect(k.logs().filter((l) => l.msg === 'landed')).toHaveLength(3);
  }, 60_000);
});
