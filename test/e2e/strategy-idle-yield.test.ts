// idle-yield through a real `jup-keeper run` against the simulator over HTTP, with a real Redis and real signed
// transactions, beside a dca that spends the same USDC: the excess over the reserve is deposited into Lend Earn and
// earns there; when the dca takes the wallet below the reserve, a withdrawal refills it.
import { describe, expect, it } from 'vitest';
import { airdrop, balances, control, ledger, SOL, USDC, type LedgerTx } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

const RESERVE = 100_000_000n;
const SPEND = 60_000_000n;

/** A keeper config on the simulator at `venueUrl` with fast feeds: idle-yield and a dca spending USDC. */
function keeperYaml(venueUrl: string, prefix: string): string {
  return `venue:
  kind: simulator
  url: ${venueUrl}
wallet: {}
redis:
  prefix: ${prefix}
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
  - id: idle
    strategy: idle-yield
    schedule: { every: 1s }
    params: { asset: USDC, reserve: "${RESERVE}", minMove: "1000000" }
  - id: spender
    strategy: dca
    schedule: { every: 2s }
    params: { mode: swaps, inputMint: USDC, outputMint: SOL, amount: "${SPEND}", slippageBps: 100, maxRuns: 2 }
`;
}

const TERMINAL = ['landed', 'failed', 'expired', 'rejected'];

describe('idle-yield against the simulator', () => {
  const world = useKeeperEnv('strategy-idle-yield');

  it('lends what is above the reserve, earns on it, and withdraws to refill the reserve another strategy spent', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 300_000_000n);
    // 1,000 % a year, so that interest shows within seconds at real-time speed.
    await control(world.sim, '/lend/rate', { asset: 'USDC', supplyRate: 100_000, rewardsRate: 0 });
    const config = writeConfig(world.dir, keeperYaml(world.sim.url, 'idle-yield'));
    const mine = (txs: LedgerTx[], kind: string) => txs.filter((t) => t.wallet === wallet && t.kind === kind);
    const position = async () => {
      const list = (await (await fetch(`${world.sim.url}/lend/v1/earn/positions?users=${wallet}`)).json()) as Array<{ token: { assetAddress: string }; underlyingAssets: string }>;
      return BigInt(list.find((p) => p.token.assetAddress === USDC)?.underlyingAssets ?? '0');
    };
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    try {
      await waitUntil('a deposit into Lend Earn', async () => mine(await ledger(world.sim), 'lend-deposit').length > 0 || k.proc.exitCode !== null, 40_000);
      expect(k.proc.exitCode).toBeNull();

      // The dca spends 60 USDC twice; each time the wallet falls below the reserve, a withdrawal brings it back.
      await waitUntil('both swaps, the withdrawals, and nothing left in flight', async () => {
        const txs = await ledger(world.sim);
        const intents = await readIntents(world.redis.url, 'idle-yield');
        const usdc = (await balances(world.sim, wallet)).tokens[USDC];
        return mine(txs, 'ultra').length === 2 && mine(txs, 'lend-withdraw').length > 0 && usdc === RESERVE && intents.every((r) => TERMINAL.includes(r.state));
      }, 45_000);
      const txs = await ledger(world.sim);
      const deposits = mine(txs, 'lend-deposit');
      const withdrawals = mine(txs, 'lend-withdraw');
      expect(deposits).toHaveLength(1);
      expect(deposits[0]).toMatchObject({ inputMint: USDC });
      // Each withdrawal is one swap's worth: the wallet was 60 USDC short of its reserve, and got exactly that back.
      expect(withdrawals.length).toBeGreaterThanOrEqual(1);
      expect(withdrawals.length).toBeLessThanOrEqual(2);
      for (const w of withdrawals) expect([w.outputMint, w.outputAmount]).toEqual([USDC, SPEND.toString()]);

      // It never asked twice: each of its intents was decided after the previous one had landed.
      const own = (await readIntents(world.redis.url, 'idle-yield')).filter((r) => r.instance === 'idle');
      expect(own.map((r) => [r.kind, r.state])).toEqual([['lend.deposit', 'landed'], ...withdrawals.map(() => ['lend.withdraw', 'landed'])]);
      for (let i = 1; i < own.length; i += 1) expect(own[i]!.createdAt).toBeGreaterThanOrEqual(own[i - 1]!.updatedAt);

      // What is lent grows: the position is worth more than the principal still in it, and keeps growing.
      const principal = BigInt(deposits[0]!.inputAmount!) - withdrawals.reduce((sum, w) => sum + BigInt(w.outputAmount!), 0n);
      const first = await waitUntil('interest on the position', async () => {
        const now = await position();
        return now > principal ? now : undefined;
      }, 20_000);
      await waitUntil('the position growing further', async () => (await position()) > first, 20_000);
      expect((await balances(world.sim, wallet)).tokens[USDC]).toBe(RESERVE);
    } finally {
      await stopKeeper(k);
    }
  }, 120_000);
});
