// dca through a real `jup-keeper run` against the simulator over HTTP, with a real Redis and real signed transactions.
// Mode recurring: the strategy places a Recurring API order, the simulator's keeper fills it on a fast clock, the
// strategy sees it end and places the next round. Mode swaps: swaps settle only while the price is in the band.
import { describe, expect, it } from 'vitest';
import { airdrop, control, ledger, SOL, USDC, type LedgerTx } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

/** A keeper config on the simulator at `venueUrl` with fast feeds and the given strategy entries. */
function keeperYaml(o: { venueUrl: string; prefix: string; strategies: string }): string {
  return `venue:
  kind: simulator
  url: ${o.venueUrl}
wallet: {}
redis:
  prefix: ${o.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 2
  jobLock: 15s
  reconcileEvery: 2s
  deadline: 10m
feeds:
  prices: 1s
  wallet: 1s
logging:
  level: debug
strategies:
${o.strategies}`;
}

/** The strategy's own log lines with this message. */
const said = (k: KeeperProcess, instance: string, msg: string) => k.logs().filter((l) => l.instance === instance && l.msg === msg);
const ofWallet = (txs: LedgerTx[], wallet: string, kind: string) => txs.filter((t) => t.wallet === wallet && t.kind === kind);

describe('dca against the simulator', () => {
  const world = useKeeperEnv('strategy-dca');

  it('in mode recurring: places an order, the venue fills it over a fast clock, then the next round, and no more', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir, 'recurring.json');
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 300_000_000n);
    // Two rounds of an order of 120 USDC in two buys of 60 (the service's minimums: $100 an order, $50 a buy), one
    // buy a minute. The simulator runs ten times real time: a minute passes in six seconds.
    const config = writeConfig(
      world.dir,
      keeperYaml({
        venueUrl: world.sim.url,
        prefix: 'dca-recurring',
        strategies: `  - id: dca-rec
    strategy: dca
    schedule: { every: 1s }
    params: { mode: recurring, inputMint: USDC, outputMint: SOL, total: "120000000", numberOfOrders: 2, interval: 1m, rounds: 2 }`,
      }),
      'recurring.yaml',
    );
    await control(world.sim, '/clock', { speed: 10 });
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    try {
      await waitUntil('both orders filled and the second seen to end', () => said(k, 'dca-rec', 'recurring order ended: filled or cancelled').length >= 2 || k.proc.exitCode !== null, 50_000);
      expect(k.proc.exitCode).toBeNull();
      const txs = await ledger(world.sim);
      const creates = ofWallet(txs, wallet, 'recurring-create');
      const fills = ofWallet(txs, wallet, 'recurring-fill');
      expect(creates).toHaveLength(2);
      // Every buy spent half an order, paid in USDC and bought SOL.
      expect(fills).toHaveLength(4);
      for (const f of fills) expect([f.inputMint, f.inputAmount, f.outputMint, BigInt(f.outputAmount ?? '0') > 0n]).toEqual([USDC, '60000000', SOL, true]);
      // The second order was placed only after the first had filled: its create comes after the first two fills.
      const order = txs.filter((t) => t.wallet === wallet && t.kind.startsWith('recurring-')).map((t) => t.kind);
      expect(order).toEqual(['recurring-create', 'recurring-fill', 'recurring-fill', 'recurring-create', 'recurring-fill', 'recurring-fill']);
      expect(said(k, 'dca-rec', 'recurring order open')).toHaveLength(2);

      // Its rounds are used up: decisions on three more wallet reads of the open orders place nothing more.
      const reads = () => k.logs().filter((l) => l.msg === 'jupiter request' && l.path === '/recurring/v1/getRecurringOrders').length;
      const readsAtEnd = reads();
      await waitUntil('three more wallet reads of the open orders', () => reads() >= readsAtEnd + 3, 20_000);
      expect(ofWallet(await ledger(world.sim), wallet, 'recurring-create')).toHaveLength(2);
      const intents = (await readIntents(world.redis.url, 'dca-recurring')).filter((r) => r.instance === 'dca-rec');
      expect(intents.map((r) => [r.kind, r.state])).toEqual([
        ['recurring.create', 'landed'],
        ['recurring.create', 'landed'],
      ]);
      // The venue's history shows both orders closed with their whole deposit spent.
      const history = (await (await fetch(`${world.sim.url}/recurring/v1/getRecurringOrders?user=${wallet}&orderStatus=history&recurringType=time&includeFailedTx=false&page=1`)).json()) as { time: Array<{ rawInDeposited: string; rawInUsed: string }> };
      expect(history.time.map((o) => [o.rawInDeposited, o.rawInUsed])).toEqual([
        ['120000000', '120000000'],
        ['120000000', '120000000'],
      ]);
    } finally {
      await stopKeeper(k);
      await control(world.sim, '/clock', { speed: 1 });
    }
  }, 90_000);

  it('in mode swaps: swaps settle only while the output price is inside the band', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir, 'swaps.json');
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 200_000_000n);
    await control(world.sim, '/price', { mint: SOL, usd: 300 });
    const config = writeConfig(
      world.dir,
      keeperYaml({
        venueUrl: world.sim.url,
        prefix: 'dca-swaps',
        strategies: `  - id: dca-band
    strategy: dca
    schedule: { every: 1s }
    params: { mode: swaps, inputMint: USDC, outputMint: SOL, amount: "5000000", slippageBps: 100, minPriceUsd: 100, maxPriceUsd: 200 }`,
      }),
      'swaps.yaml',
    );
    const outside = (k: KeeperProcess, above: number) => said(k, 'dca-band', 'skipping: price outside the band').filter((l) => (l.usd as number) > above);
    const swaps = async () => ofWallet(await ledger(world.sim), wallet, 'ultra');
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    try {
      // SOL at $300, above the band: runs are skipped, nothing is swapped.
      await waitUntil('three runs skipped above the band', () => outside(k, 250).length >= 3 || k.proc.exitCode !== null, 30_000);
      expect(k.proc.exitCode).toBeNull();
      expect(await swaps()).toEqual([]);

      // SOL at $150, inside: swaps settle.
      await control(world.sim, '/price', { mint: SOL, usd: 150 });
      await waitUntil('two swaps settled inside the band', async () => (await swaps()).length >= 2, 30_000);

      // SOL at $300 again: once the swaps decided before the move have settled, no more come.
      const skippedBefore = outside(k, 250).length;
      await control(world.sim, '/price', { mint: SOL, usd: 300 });
      await waitUntil('a run skipped after the move', () => outside(k, 250).length > skippedBefore, 20_000);
      await waitUntil('every swap decided inside the band settled', async () => {
        const mine = (await readIntents(world.redis.url, 'dca-swaps')).filter((r) => r.instance === 'dca-band');
        return mine.every((r) => ['landed', 'failed', 'expired', 'rejected'].includes(r.state));
      }, 30_000);
      const settled = (await swaps()).length;
      const skippedAfter = outside(k, 250).length;
      await waitUntil('three more runs skipped', () => outside(k, 250).length >= skippedAfter + 3, 20_000);
      expect(await swaps()).toHaveLength(settled);
      const intents = (await readIntents(world.redis.url, 'dca-swaps')).filter((r) => r.instance === 'dca-band');
      expect(intents.map((r) => r.state)).toEqual(Array(settled).fill('landed'));
      for (const s of await swaps()) expect([s.inputMint, s.inputAmount, s.outputMint]).toEqual([USDC, '5000000', SOL]);
    } finally {
      await stopKeeper(k);
    }
  }, 90_000);
});
