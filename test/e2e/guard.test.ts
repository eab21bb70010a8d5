import { describe, expect, it } from 'vitest';
import { ATTACKER } from '../../src/sim/products/swapTx.js';
import { airdrop, balances, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, writeConfig, writeKeypair, useKeeperEnv } from '../helpers/keeper.js';
import { cliJson, dcaSwapsConfig, isTerminalState, LEVEL, readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

const PREFIX = 'e2e-guard';
const AMOUNT = 5_000_000n; // 5 USDC per run

describe('the pre-sign guard in a running keeper', () => {
  const world = useKeeperEnv('guard');

  it('refuses a hostile order (nothing signed, nothing stolen), reports it everywhere, and later runs settle', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 100_000_000n);
    // The next Ultra order's transaction also drains 0.05 SOL and the input tokens to an attacker.
    await control(world.sim, '/faults', { kind: 'hostile-order', count: 1, pathPrefix: '/ultra/v1/order' });
    const config = writeConfig(
      world.dir,
      dcaSwapsConfig({ venueUrl: world.sim.url, prefix: PREFIX, instances: [{ id: 'dca-usdc', inputMint: USDC, outputMint: SOL, amount: AMOUNT, via: 'ultra', everySeconds: 2, maxRuns: 3 }] }),
    );
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    try {
      // Run 1 meets the hostile order; runs 2 and 3 (the fault consumed) must settle.
      const intents = await waitUntil(
        'three terminal intents',
        async () => {
          const all = await readIntents(world.redis.url, PREFIX);
          return all.length >= 3 && all.every((i) => isTerminalState(i.state)) ? all : undefined;
        },
        60_000,
      );
      expect((await control<{ faults: unknown[] }>(world.sim, '/faults', undefined, 'GET')).faults).toEqual([]);

      const rejected = intents.filter((i) => i.state === 'rejected');
      expect(rejected).toHaveLength(1);
      const bad = rejected[0]!;
      expect(bad.error?.code).toBe('GUARD_REFUSED');
      expect(bad.error?.message).toMatch(/sol-outflow/);
      expect(bad.error?.message).toMatch(/token-outflow/);
      // Nothing was signed: no signature in the ledger record, and the venue never saw it settle.
      expect(bad.signature).toBeNull();
      expect(bad.signedTx).toBeNull();
      expect(bad.signatures).toEqual([]);
      expect(bad.requestId).toBeTruthy();
      const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet);
      expect(settled.filter((t) => t.requestId === bad.requestId)).toEqual([]);
      const attacker = await balances(world.sim, ATTACKER.toBase58());
      expect(attacker.lamports).toBe(0n);
      expect(Object.values(attacker.tokens).filter((a) => a > 0n)).toEqual([]);
      expect(k.logs().some((l) => l.intent === bad.id && l.msg === 'signed; signature persisted before submit')).toBe(false);

      // The later runs landed, once each.
      const landed = intents.filter((i) => i.state === 'landed');
      expect(landed).toHaveLength(2);
      const swaps = settled.filter((t) => t.kind === 'ultra');
      expect(swaps).toHaveLength(2);
      expect(new Set(swaps.map((s) => s.requestId))).toEqual(new Set(landed.map((i) => i.requestId)));
      for (const s of swaps) {
        expect(s.inputMint).toBe(USDC);
        expect(s.inputAmount).toBe(AMOUNT.toString());
        expect(s.outputMint).toBe(SOL);
      }
      // 2 runs of USDC spent, not 3 (and not the attacker's extra drain).
      expect((await balances(world.sim, keypair)).tokens[USDC]).toBe(100_000_000n - 2n * AMOUNT);

      // The logs: one error-level line for the refusal, with its violations; it is the only error.
      const refusal = k.logs().filter((l) => l.msg === 'pre-sign guard refused the transaction; nothing was signed');
      expect(refusal).toHaveLength(1);
      expect(refusal[0]!.level).toBe(LEVEL.error);
      expect(refusal[0]!.intent).toBe(bad.id);
      const rules = (refusal[0]!.violations as Array<{ rule: string; message: string }>).map((v) => v.rule);
      expect(rules).toEqual(expect.arrayContaining(['sol-outflow', 'token-outflow']));
      expect(k.logs().filter((l) => (l.level as number) >= LEVEL.error && l !== refusal[0])).toEqual([]);

      // The CLI: `intents --json` lists it as rejected; `status --json` counts it among the refusals.
      const cliArgs = ['--redis-url', world.redis.url, '--prefix', PREFIX];
      const listed = await cliJson<Array<{ id: string; state: string; signatures: string[]; error?: { code: string } | null }>>(['intents', ...cliArgs, '--json']);
      const row = listed.find((r) => r.id === bad.id);
      expect(row).toBeDefined();
      expect(row!.state).toBe('rejected');
      expect(row!.signatures).toEqual([]);
      expect(row!.error?.code).toBe('GUARD_REFUSED');
      const status = await cliJson<{ guardRefusals: Array<{ id: string; strategy: string; reason: string }>; intents: { byState: Record<string, number> } }>(['status', ...cliArgs, '--json']);
      expect(status.guardRefusals).toHaveLength(1);
      expect(status.guardRefusals[0]!.id).toBe(bad.id);
      expect(status.guardRefusals[0]!.strategy).toBe('dca-usdc');
      expect(status.guardRefusals[0]!.reason).toMatch(/sol-outflow.*token-outflow|token-outflow.*sol-outflow/);
      expect(status.intents.byState.rejected).toBe(1);
      expect(status.intents.byState.landed).toBe(2);
    } finally {
      expect(await stopKeeper(k)).toBe(0);
    }
  }, 120_000);
});
