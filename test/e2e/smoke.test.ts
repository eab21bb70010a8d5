import { describe, expect, it } from 'vitest';
import { airdrop, ledger, SOL } from '../helpers/sim.js';
import { dcaConfig, spawnKeeper, writeConfig, writeKeypair, useKeeperEnv } from '../helpers/keeper.js';
import { waitUntil } from '../helpers/e2e.js';

describe('a keeper process against a running simulator', () => {
  const world = useKeeperEnv('smoke');

  it('settles each planned swap once and exits cleanly when --duration elapses', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    await airdrop(world.sim, keypair, SOL, 2_000_000_000n);
    const config = writeConfig(world.dir, dcaConfig({ venueUrl: world.sim.url, prefix: 'smoke', maxRuns: 3, everySeconds: 1 }));
    // The duration is far longer than the work takes on an idle machine, so a loaded one still finishes it first; the
    // test waits on the landings, then on the exit the duration brings.
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url, '--duration', '30']);
    await waitUntil('three landings', () => k.logs().filter((l) => l.msg === 'landed').length >= 3 || k.proc.exitCode !== null, 60_000);
    const code = await k.exited;
    expect(code).toBe(0);
    const swaps = (await ledger(world.sim)).filter((t) => t.wallet === keypair.publicKey.toBase58() && t.kind === 'ultra');
    expect(swaps).toHaveLength(3);
    expect(new Set(swaps.map((s) => s.requestId)).size).toBe(3);
    expect(k.logs().filter((l) => l.msg === 'landed')).toHaveLength(3);
  }, 120_000);
});
