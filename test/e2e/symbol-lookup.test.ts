// A keeper started with `jup-keeper run` on a config whose params name POPCAT, a symbol outside the SDK's table of
// twelve: it is looked up in the simulator's token list at start-up (the verified real mint, not the unverified
// copycat the list also has), logged once, and the built-in strategy and a strategy of the user's own (whose params
// parse in its thread) both trade the real mint.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/strategyState.js';
import { airdrop, control, ledger, SOL, USDC } from '../helpers/sim.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';

const POPCAT = '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr';
const BUY_THE_DIP = fileURLToPath(new URL('../../config/strategies/buy-the-dip.ts', import.meta.url));

describe('a keeper whose params name a symbol outside the known table', () => {
  const world = useKeeperEnv('symbol-lookup');

  it('resolves it through the venue token list once, logs the mint, and swaps into that mint', async () => {
    const { path: walletPath, keypair } = writeKeypair(world.dir);
    const wallet = keypair.publicKey.toBase58();
    await airdrop(world.sim, keypair, SOL, 1_000_000_000n);
    await airdrop(world.sim, keypair, USDC, 50_000_000n);
    const prefix = 'symbol-lookup';
    const config = writeConfig(
      world.dir,
      `venue:
  kind: simulator
  url: ${world.sim.url}
wallet: {}
redis:
  prefix: ${prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 1s
logging:
  level: debug
strategies:
  - id: buy
    strategy: dca-swap
    schedule: { every: 2s }
    params: { inputMint: SOL, outputMint: POPCAT, amount: "10000000", maxRuns: 1 }
  - id: dip
    strategy: ${BUY_THE_DIP}
    schedule: { every: 2s }
    params: { buy: popcat, amount: "5000000", dropPct: 10 }
`,
    );
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', world.redis.url]);
    const redis = world.redis.client();
    try {
      const lookedUp = await k.waitForLog((l) => l.msg === `symbol POPCAT is ${POPCAT} (Popcat, 9 decimals, verified) in the venue's token list`, 60_000);
      expect(lookedUp).toMatchObject({ symbol: 'POPCAT', mint: POPCAT, decimals: 9, verified: true });
      await k.waitForLog((l) => l.symbol === 'popcat' && l.mint === POPCAT);

      // The dca-swap buys POPCAT; the example has seen POPCAT's price (its high) by then, which then halves: the dip.
      const states = new StrategyStateStore(redis, prefix);
      const landed = async (instance: string) => (await readIntents(world.redis.url, prefix)).filter((r) => r.instance === instance && r.state === 'landed');
      await waitUntil('the dca-swap landed and the example saw a high', async () => (await landed('buy')).length >= 1 && (await states.getState('dip')).highUsd !== undefined, 60_000);
      const prices = (await (await fetch(`${world.sim.url}/price/v3?ids=${POPCAT}`)).json()) as Record<string, { usdPrice: number }>;
      await control(world.sim, '/price', { mint: POPCAT, usd: prices[POPCAT]!.usdPrice / 2 });
      const [dip] = await waitUntil('the example bought the dip', async () => {
        const l = await landed('dip');
        return l.length >= 1 ? l : undefined;
      }, 60_000);

      const [buy] = await landed('buy');
      expect(buy!.intent).toMatchObject({ kind: 'swap', inputMint: SOL, outputMint: POPCAT, amount: 10_000_000n });
      expect(dip!.intent).toMatchObject({ kind: 'swap', inputMint: USDC, outputMint: POPCAT, amount: 5_000_000n });
      const swaps = (await ledger(world.sim)).filter((t) => t.wallet === wallet && t.kind === 'ultra');
      expect(swaps.map((t) => [t.inputMint, t.outputMint])).toEqual([
        [SOL, POPCAT],
        [USDC, POPCAT],
      ]);
      // Looked up once each, at start-up.
      expect(k.logs().filter((l) => typeof l.msg === 'string' && l.msg.startsWith('symbol ') && l.mint === POPCAT)).toHaveLength(2);
    } finally {
      redis.disconnect();
      expect(await stopKeeper(k)).toBe(0);
    }
  }, 150_000);
});
