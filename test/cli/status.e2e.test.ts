import { describe, expect, it } from 'vitest';
import { airdrop, ledger, SOL } from '../helpers/sim.js';
import { dcaConfig, runKeeperCli, spawnKeeper, writeConfig, writeKeypair, useKeeperEnv } from '../helpers/keeper.js';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';

describe('status and intents after a keeper ran against the simulator', () => {
  const world = useKeeperEnv('status-e2e');

  it('reports both settled swaps as landed, with the signatures and request ids the simulator settled', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 2_000_000_000n);
    const config = writeConfig(world.dir, dcaConfig({ venueUrl: world.sim.url, prefix: 'status-e2e', maxRuns: 2, everySeconds: 1 }));
    const keeper = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    try {
      // Both runs landing is the event to wait for, however slow the machine; then a clean stop.
      await waitUntil('two landings', () => keeper.logs().filter((l) => l.msg === 'landed').length >= 2, 75_000);
      // And the wallet feed's read after them (every 1 s here): stopped before it, the snapshot would show the airdrop only.
      await waitUntil(
        'a wallet snapshot after the swaps',
        async () => {
          const run = await runKeeperCli(['status', '--json', '--redis-url', world.redis.url, '--prefix', 'status-e2e']);
          const doc = JSON.parse(run.stdout) as { balances: { sol: { lamports: string } } | null };
          return doc.balances !== null && BigInt(doc.balances.sol.lamports) < 2_000_000_000n;
        },
        60_000,
        1_000,
      );
    } finally {
      expect(await stopKeeper(keeper)).toBe(0);
    }

    const swaps = (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind === 'ultra');
    expect(swaps).toHaveLength(2);

    const [intentsRun, statusRun] = await Promise.all([
      runKeeperCli(['intents', '--json', '--redis-url', world.redis.url, '--config', config]),
      runKeeperCli(['status', '--json', '--redis-url', world.redis.url, '--prefix', 'status-e2e']),
    ]);
    expect(intentsRun.code).toBe(0);
    expect(statusRun.code).toBe(0);

    const intents = JSON.parse(intentsRun.stdout) as Array<{ id: string; strategy: string; kind: string; state: string; signatures: string[]; requestId: string | null }>;
    expect(intents).toHaveLength(2);
    for (const i of intents) expect(i).toMatchObject({ strategy: 'dca', kind: 'swap', state: 'landed' });
    const settled = new Map(swaps.map((s) => [s.signature, s.requestId]));
    for (const i of intents) {
      const last = i.signatures.at(-1)!;
      expect(settled.has(last)).toBe(true);
      expect(i.requestId).toBe(settled.get(last));
    }
    expect(new Set(intents.map((i) => i.signatures.at(-1)))).toEqual(new Set(settled.keys()));

    const status = JSON.parse(statusRun.stdout);
    expect(status.venue).toMatchObject({ kind: 'simulator', url: world.sim.url });
    expect(status.wallet).toEqual({ address: wallet });
    expect(status.intents.total).toBe(2);
    expect(status.intents.byState.landed).toBe(2);
    expect(status.killSwitch.engaged).toBe(false);
    expect(status.strategies).toHaveLength(1);
    expect(status.strategies[0]).toMatchObject({ id: 'dca', strategy: 'dca-swap', schedule: { every: 1000 } });
    expect(status.strategies[0].lastDecision).not.toBeNull();
    expect(status.pnl.total.fills).toBe(2);
    expect(BigInt(status.balances.sol.lamports)).toBeLessThan(2_000_000_000n);
    expect(status.balances.tokens.find((t: { symbol: string }) => t.symbol === 'USDC')).toBeDefined();
    expect(status.guardRefusals).toEqual([]);
  }, 150_000);
});
