import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { waitUntil } from '../helpers/e2e.js';
import { startHarness, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, control, ledger, SOL, USDC, type LedgerTx } from '../helpers/sim.js';

interface VenueOrder {
  orderKey: string;
  inputMint: string;
  rawMakingAmount: string;
  rawTakingAmount: string;
}

// A limit ladder in a running keeper, against the simulator's Trigger API: two levels a side 1 % apart around $100.
// The price walks down through the first buy and back up through the sell that re-armed it; the ledger shows each
// fill followed by the order that re-arms the level, and at the end the venue holds the ladder it started with.
describe('limit-ladder in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('strategy-ladder');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('fills and re-arms its levels as the price walks through them', async ({ onTestFailed }) => {
    const c = await h.newCase('ladder');
    c.dumpOnFailure(onTestFailed);
    await control(h.sim, '/price', { mint: SOL, usd: 100 });
    // 2 SOL from the case, 100 USDC here: enough for two buys of 10 USDC and two sells of 0.1 SOL.
    await airdrop(h.sim, c.keypair, USDC, 100_000_000n);
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
  wallet: 1s
strategies:
  - id: ladder
    strategy: limit-ladder
    schedule:
      every: 1s
    params:
      base: SOL
      quote: USDC
      levelsPerSide: 2
      spacingPct: 1
      buyAmount: "10000000"
      sellAmount: "100000000"
`,
      `${c.prefix}.yaml`,
    );
    const mine = async (kind: string): Promise<LedgerTx[]> => (await ledger(h.sim)).filter((t) => t.wallet === c.address && t.kind === kind);
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    /** Resolves once the ladder's state shows every level's order resting (its order account seen by the feed). */
    const allResting = (count: number) =>
      waitUntil(`${count} ladder orders resting`, async () => {
        const levels = (await states.getState('ladder')).levels as Array<{ order?: string }> | undefined;
        return levels !== undefined && levels.length === count && levels.every((l) => l.order !== undefined);
      }, 30_000);
    const activeOrders = async (): Promise<VenueOrder[]> => {
      const res = await fetch(`${h.sim.url}/trigger/v1/getTriggerOrders?user=${c.address}&orderStatus=active`);
      return ((await res.json()) as { orders: VenueOrder[] }).orders;
    };
    const shape = (orders: VenueOrder[]) => orders.map((o) => `${o.inputMint === USDC ? 'buy' : 'sell'} ${o.rawMakingAmount}>${o.rawTakingAmount}`).sort();

    const k = c.spawn({ config });
    await waitUntil('the four first orders on the ledger', async () => (await mine('trigger-create')).length === 4, 30_000);
    await allResting(4);
    const initial = shape(await activeOrders());
    // The centre is the price the ladder first saw ($100 and the few seconds of random walk since). Buys of 10 USDC
    // at 99 % and 98 % of it, sells of 0.1 SOL at 101 % and 102 %, each taking what its level's price says.
    const centre = (await states.getState('ladder')).centre as number;
    expect(Math.abs(centre - 100)).toBeLessThan(0.5);
    const near = (text: string, expected: number) => Math.abs(Number(text.split('>')[1]) - expected) <= 2;
    const [buy99, buy98, sell101, sell102] = initial;
    expect(initial.map((o) => o.split('>')[0])).toEqual(['buy 10000000', 'buy 10000000', 'sell 100000000', 'sell 100000000']);
    expect([near(buy99!, 10e15 / (centre * 0.99) / 1e6), near(buy98!, 10e15 / (centre * 0.98) / 1e6), near(sell101!, centre * 1.01 * 1e5), near(sell102!, centre * 1.02 * 1e5)]).toEqual([true, true, true, true]);

    // Down to 98.5: the buy at 99 fills (not the one at 98), and its level is re-armed as a sell at the centre.
    await control(h.sim, '/price', { mint: SOL, usd: 98.5 });
    await waitUntil('the buy at 99 filled', async () => (await mine('trigger-fill')).length === 1, 20_000);
    const buyFill = (await mine('trigger-fill'))[0]!;
    expect(buyFill).toMatchObject({ inputMint: USDC, inputAmount: '10000000', outputMint: SOL });
    await waitUntil('the sell at the centre placed', async () => (await mine('trigger-create')).length === 5, 20_000);
    expect((await mine('trigger-create'))[4]).toMatchObject({ inputMint: SOL, inputAmount: '100000000' });
    await allResting(4);
    const afterBuy = shape(await activeOrders());
    const sellAtCentre = afterBuy.find((o) => !initial.includes(o))!;
    expect(afterBuy).toEqual([buy98, sellAtCentre, sell101, sell102].sort());
    expect(sellAtCentre.startsWith('sell 100000000>') && near(sellAtCentre, centre * 1e5)).toBe(true);

    // Back up to 100.6: the sell at 100 fills (not the one at 101), and the buy at 99 is placed again.
    await control(h.sim, '/price', { mint: SOL, usd: 100.6 });
    await waitUntil('the sell at 100 filled', async () => (await mine('trigger-fill')).length === 2, 20_000);
    expect((await mine('trigger-fill'))[1]).toMatchObject({ inputMint: SOL, inputAmount: '100000000', outputMint: USDC });
    await waitUntil('the buy at 99 placed again', async () => (await mine('trigger-create')).length === 6, 20_000);
    await allResting(4);
    expect(await c.stop(k)).toBe(0);

    // The venue rests the ladder it started with; nothing was cancelled; each intent landed once.
    expect(shape(await activeOrders())).toEqual(initial);
    expect(await mine('trigger-cancel')).toEqual([]);
    const intents = await c.intents();
    expect(intents.map((r) => [r.intent.kind, r.state])).toEqual(Array.from({ length: 6 }, () => ['trigger.create', 'landed']));
    expect(await states.getState('ladder')).toMatchObject({ centre, gap: 0, fills: 2 });
  }, 120_000);
});
