// Acceptance (issue 7): a simulation that fails with BlockhashNotFound (our RPC lags the venue) is a check that could
// not run, not a refusal. The intent is retried, signs nothing while the RPC lags, and lands once it catches up.
import { afterAll, beforeAll, describe, expect, it, onTestFailed } from 'vitest';
import type { IntentRecord } from '../../src/store/intents.js';
import { startHostileVenue, type HostileVenue } from '../helpers/hostileVenue.js';
import { airdrop, ledger, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { isTerminalState, LEVEL, readIntents, stopKeeper } from '../helpers/e2e.js';
import { hostileConfig, waitWhileRunning } from '../helpers/hostileKeeper.js';

/** Simulations the lagging RPC answers with BlockhashNotFound before the test lets it catch up. */
const LAGGING_CALLS = 3;

describe('when the RPC lags the venue', () => {
  const world = useKeeperEnv('guard-retry');
  let venue: HostileVenue;
  beforeAll(async () => {
    venue = await startHostileVenue(world.sim);
  });
  afterAll(async () => {
    await venue?.close();
  });

  // Ultra: the fault stops by itself after a number of calls. Metis: it lasts until the test clears it.
  it.each([
    { via: 'ultra' as const, ends: 'after a number of calls' as const },
    { via: 'metis' as const, ends: 'when cleared' as const },
  ])('a simulation that fails with BlockhashNotFound is retried, and the intent lands once the RPC catches up ($via, fault ends $ends)', async ({ via, ends }) => {
    const prefix = `e2e-guard-retry-${via}`;
    const { path: walletPath, keypair } = writeKeypair(world.dir, `${via}.wallet.json`);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 100_000_000n);
    const faultedBefore = venue.counts().faulted;
    const faultId = venue.rpcFault({ method: 'simulateTransaction', err: 'BlockhashNotFound', ...(ends === 'after a number of calls' ? { count: LAGGING_CALLS } : {}) });
    const yaml = hostileConfig({ venueUrl: venue.url, prefix, instances: [{ id: `lagging-${via}`, via, inputMint: USDC, outputMint: SOL, amount: 5_000_000n }] });
    const k = spawnKeeper(['run', '--config', writeConfig(world.dir, yaml, `${via}.yaml`), '--wallet', walletPath, '--redis-url', world.redis.url]);
    let intents: IntentRecord[] = [];
    onTestFailed(() => {
      console.error(dump(k, intents));
    });
    try {
      // The node lags: the guard's simulations come back BlockhashNotFound, again and again.
      // An intent that ends meanwhile (refused as if the check had failed) ends the wait at once.
      const lagging = await waitWhileRunning(
        k,
        `${LAGGING_CALLS} simulations answered BlockhashNotFound`,
        async () => {
          if (venue.counts().faulted - faultedBefore >= LAGGING_CALLS) return { ended: [] };
          const ended = (await readIntents(world.redis.url, prefix)).filter((i) => isTerminalState(i.state));
          return ended.length > 0 ? { ended } : undefined;
        },
        90_000,
      );
      expect(lagging.ended.map((i) => `${i.id} ${i.state} ${i.error?.code ?? ''}: ${i.error?.message ?? ''}`), 'no intent ended while the RPC lagged').toEqual([]);
      if (ends === 'when cleared') {
        // Still lagging: the intent waits (terminal states are final, so `landed` at the end also proves it was never refused).
        intents = await readIntents(world.redis.url, prefix);
        expect(intents.map((i) => i.state).filter((s) => isTerminalState(s)), 'no intent ended while the RPC lagged').toEqual([]);
        venue.clearRpcFaults(faultId);
      }

      intents = await waitWhileRunning(
        k,
        'the intent to end',
        async () => {
          const all = await readIntents(world.redis.url, prefix);
          return all.length > 0 && all.every((i) => isTerminalState(i.state)) ? all : undefined;
        },
        90_000,
      );
    } finally {
      venue.clearRpcFaults(faultId);
      expect(await stopKeeper(k)).toBe(0);
    }

    expect(intents).toHaveLength(1);
    const intent = intents[0]!;
    expect(`${intent.state} ${intent.error?.code ?? ''}`.trim(), 'the intent lands once the RPC catches up').toBe('landed');
    // It settled once, with the only signature the wallet gave, and that signature came after the RPC caught up.
    const settled = (await ledger(world.sim)).filter((t) => t.wallet === wallet && (t.kind === 'ultra' || t.kind === 'swap'));
    expect(settled.map((t) => t.signature)).toEqual([intent.signature]);
    const faults = venue.requests().filter((r) => r.faulted);
    const lastFault = Math.max(...faults.map((r) => r.at));
    const signed = venue.signatures({ signer: wallet, validOnly: true });
    expect([...new Set(signed.map((s) => s.signature))]).toEqual([intent.signature]);
    expect(signed.filter((s) => s.at < lastFault).map((s) => s.source), 'nothing signed while the RPC lagged').toEqual([]);
    expect(intent.signatures).toEqual([intent.signature]);

    // The logs say the check could not run yet and was retried; nothing was refused.
    const lines = k.logs().filter((l) => l.intent === intent.id);
    const retries = lines.filter((l) => Number(l.level) < LEVEL.error && /could not/i.test(String(l.msg)) && /BlockhashNotFound|blockhash-not-found/i.test(JSON.stringify(l)));
    expect(retries.length, 'log lines saying the guard could not check yet (BlockhashNotFound) and retried').toBeGreaterThanOrEqual(1);
    expect(lines.filter((l) => Number(l.level) >= LEVEL.error)).toEqual([]);
    expect(lines.some((l) => l.msg === 'pre-sign guard refused the transaction; nothing was signed')).toBe(false);
  }, 240_000);
});

function dump(k: KeeperProcess, intents: IntentRecord[]): string {
  const lines = ['==== guard retry ====', ...intents.map((i) => `${i.id} ${i.state} ${i.error?.code ?? ''} ${i.error?.message ?? ''} sig=${i.signature ?? '-'}`)];
  lines.push(...k.logs().filter((l) => Number(l.level) >= LEVEL.warn || /guard|signed|landed/.test(String(l.msg))).slice(-40).map((l) => `  ${JSON.stringify(l).slice(0, 400)}`));
  const raw = k.stderr.join('').split('\n').filter((l) => l && !l.startsWith('{'));
  if (raw.length > 0) lines.push('non-JSON stderr:', ...raw.slice(-20));
  return lines.join('\n');
}
