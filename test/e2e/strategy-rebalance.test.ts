import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { waitUntil } from '../helpers/e2e.js';
import { startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, balances, control, JUP, ledger, SOL, USDC } from '../helpers/sim.js';

const TARGETS: Record<string, number> = { [SOL]: 0.4, [JUP]: 0.2, [USDC]: 0.4 };

// A three-token rebalance in a running keeper: a wallet of 2 SOL ($200) and 50 USDC, no JUP, against targets of
// 40 % SOL, 20 % JUP and 40 % USDC. Settled swaps through USDC bring every weight within the 5-point threshold,
// after which the rebalancer, deciding every second on a wallet feed that has caught up, asks for nothing more.
describe('rebalance in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('strategy-rebalance');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('brings a wallet off its weights within the threshold by settled swaps, then stays quiet', async ({ onTestFailed }) => {
    const c = await h.newCase('rebalance');
    c.dumpOnFailure(onTestFailed);
    await control(h.sim, '/price', { mint: SOL, usd: 100 });
    await control(h.sim, '/price', { mint: JUP, usd: 1 });
    await airdrop(h.sim, c.keypair, USDC, 50_000_000n);
    const config = writeConfig(
      h.dir,
      `venue:
  kind: simulator
  url: ${h.sim.url}
wallet: {}
redis:
  prefix: ${c.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 2s
strategies:
  - id: rebal
    strategy: rebalance
    schedule:
      every: 1s
    params:
      weights:
        SOL: 0.4
        JUP: 0.2
        USDC: 0.4
      quote: USDC
      driftPct: 5
      minTradeUsd: 2
`,
      `${c.prefix}.yaml`,
    );
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    const snapshots = new SnapshotStore(h.redis.client(), c.prefix);
    const k = c.spawn({ config });

    // The first trades, and every intent terminal, with a wallet snapshot taken after the last landing.
    const settledAt = await waitUntil(
      'the trades settled and seen by the wallet feed',
      async () => {
        const intents = await c.intents();
        if (intents.length < 2 || intents.some((r) => r.state !== 'landed')) return false;
        const last = Math.max(...intents.map((r) => r.updatedAt));
        const wallet = await snapshots.read('wallet');
        return wallet !== undefined && wallet.at > last ? wallet.at : false;
      },
      45_000,
    );
    // Three windows decided on that snapshot or a later one ask for nothing.
    await waitUntil('three windows decided after the wallet caught up', async () => ((await states.shardWindow('e1000.0of1')) ?? 0) >= settledAt + 3_000, 20_000);
    const intents = await c.intents();
    expect(await c.stop(k)).toBe(0);
    expect((await states.lastDecision('rebal'))?.outcome).toBe('nothing');
    expect((await c.intents()).length, 'no trade after the wallet caught up').toBe(intents.length);

    // Sold SOL for USDC and bought JUP with USDC; each intent settled once, under its own signature.
    expect(intents.map((r) => `${r.intent.kind === 'swap' ? `${r.intent.inputMint}>${r.intent.outputMint}` : r.intent.kind} ${r.state}`).sort()).toEqual([`${SOL}>${USDC} landed`, `${USDC}>${JUP} landed`].sort());
    const settled = (await ledger(h.sim)).filter((t) => t.wallet === c.address && t.kind === 'ultra');
    expect(settled.map((t) => t.signature).sort()).toEqual(intents.map((r) => r.signature).sort());

    // The wallet's USD weights at the venue's prices are each within 5 points of their targets.
    const held = await balances(h.sim, c.address);
    const tokens = (await control<{ tokens: Array<{ mint: string; decimals: number; usdPrice: number }> }>(h.sim, '/tokens', undefined, 'GET')).tokens;
    const usd = (mint: string, amount: bigint) => {
      const t = tokens.find((x) => x.mint === mint)!;
      return (Number(amount) / 10 ** t.decimals) * t.usdPrice;
    };
    const values: Record<string, number> = { [SOL]: usd(SOL, held.lamports), [JUP]: usd(JUP, held.tokens[JUP] ?? 0n), [USDC]: usd(USDC, held.tokens[USDC] ?? 0n) };
    const total = Object.values(values).reduce((a, b) => a + b, 0);
    for (const [mint, target] of Object.entries(TARGETS)) expect(Math.abs(values[mint]! / total - target) * 100, `weight of ${mint}`).toBeLessThanOrEqual(5);
  }, 120_000);
});
