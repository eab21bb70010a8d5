// prediction-edge in a real `jup-keeper run` against the simulator over HTTP (frozen clock: prices hold still, and
// the venue fills orders when the test says so). Three markets of three events: one whose YES costs well under the
// fair probability given, one whose NO does, one priced at its fair value. The keeper buys YES in the first and NO
// in the second, up to the per-event cap, and nothing in the third: read from the venue's positions and ledger.
import { describe, expect, it, onTestFailed } from 'vitest';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { allEvents, fillOrders, positionsBySide, predictionKeeperYaml, venueClient, type VenueMarket } from '../helpers/predictionE2e.js';
import { airdrop, ledger, SOL, USDC } from '../helpers/sim.js';

const PREFIX = 'e2e-pred-edge';

describe('prediction-edge in a running keeper', () => {
  const env = useKeeperEnv('strategy-prediction-edge', { sim: { clockSpeed: 0 } });

  it('buys the side priced under its fair probability, the other side where NO is cheap, nothing at fair value, and stops at the event cap', async () => {
    const jup = venueClient(env.sim);
    // Three open markets of three events, priced away from the edges, closing hours from now.
    const picked: VenueMarket[] = [];
    for (const e of await allEvents(jup)) {
      const m = e.markets.find((x) => x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.sellYesPriceUsd !== null && x.pricing.buyYesPriceUsd >= 200_000n && x.pricing.buyYesPriceUsd <= 700_000n && (x.closeTime ?? 0) * 1000 > Date.now() + 3 * 3_600_000);
      if (m) picked.push(m);
      if (picked.length === 3) break;
    }
    expect(picked).toHaveLength(3);
    const [yesCheap, noCheap, atFair] = picked as [VenueMarket, VenueMarket, VenueMarket];
    const dollars = (micro: bigint) => Number(micro) / 1e6;
    const fair = {
      // YES is worth 25 cents more than it is asked for.
      [yesCheap.marketId]: Math.min(0.97, dollars(yesCheap.pricing.buyYesPriceUsd!) + 0.25),
      // YES is worth 25 cents less than it is bid: NO is worth 25 cents more than it is asked for.
      [noCheap.marketId]: Math.max(0.03, dollars(noCheap.pricing.sellYesPriceUsd!) - 0.25),
      // The mid: neither side is under its fair value once the spread and the fee are paid.
      [atFair.marketId]: (dollars(atFair.pricing.buyYesPriceUsd!) + dollars(atFair.pricing.sellYesPriceUsd!)) / 2,
    };

    const { path: walletPath, keypair } = writeKeypair(env.dir);
    const owner = keypair.publicKey.toBase58();
    await airdrop(env.sim, keypair, SOL, 2_000_000_000n);
    await airdrop(env.sim, keypair, USDC, 200_000_000n);
    const params = [
      '      fair:',
      ...Object.entries(fair).map(([id, p]) => `        ${id}: ${p.toFixed(4)}`),
      '      minEdge: 0.05',
      '      orderUsd: 10',
      '      maxEventUsd: 16',
      '      cooldownSeconds: 1',
    ].join('\n');
    const config = writeConfig(env.dir, predictionKeeperYaml({ venueUrl: env.sim.url, prefix: PREFIX, id: 'edge', strategy: 'prediction-edge', params }), 'edge.yaml');
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', env.redis.url]);
    onTestFailed(() => console.error(k.stderr.join('').slice(-4000)));
    try {
      // The venue fills what the keeper ordered; the strategy buys each cheap side until its event's cap says stop.
      const capped = (marketId: string) => k.logs().some((l) => l.msg === 'skipping: the event cap is reached' && l.marketId === marketId);
      await waitUntil('both cheap markets bought up to their event cap', async () => {
        await fillOrders(env.sim);
        return capped(yesCheap.marketId) && capped(noCheap.marketId);
      }, 45_000, 300);
    } finally {
      await stopKeeper(k);
    }

    const held = await positionsBySide(jup, owner);
    expect([...held.keys()].sort()).toEqual([`${yesCheap.marketId}:yes`, `${noCheap.marketId}:no`].sort());
    for (const side of [`${yesCheap.marketId}:yes`, `${noCheap.marketId}:no`]) {
      const p = held.get(side)!;
      // More than one $10 order (it bought again under the cap), never more than the $16 cap at cost.
      expect(p.totalCostUsd, side).toBeGreaterThan(10_000_000n);
      expect(p.totalCostUsd, side).toBeLessThanOrEqual(16_000_000n);
    }
    const buys = (await readIntents(env.redis.url, PREFIX)).filter((r) => r.intent.kind === 'prediction.buy');
    expect(buys.every((r) => r.state === 'landed')).toBe(true);
    expect(new Set(buys.map((r) => (r.intent.kind === 'prediction.buy' ? `${r.intent.marketId}:${r.intent.side}` : '')))).toEqual(new Set([`${yesCheap.marketId}:yes`, `${noCheap.marketId}:no`]));
    // Each buy settled on the venue: its deposit went into an order, and a fill took it.
    const mine = (await ledger(env.sim)).filter((t) => t.wallet === owner);
    expect(mine.filter((t) => t.kind === 'prediction-order')).toHaveLength(buys.length);
    expect(mine.filter((t) => t.kind === 'prediction-fill').length).toBeGreaterThanOrEqual(buys.length);
  }, 90_000);
});
