// prediction-exit in a real `jup-keeper run` against the simulator over HTTP (frozen clock: prices hold still, and
// the venue fills orders when the test says so). The wallet holds YES in three markets, bought outside the keeper:
// one closes inside the cut-off, one is bid at the take-profit, one is neither. The keeper sells the first two
// whole and keeps the third: read from the venue's positions and ledger.
import { describe, expect, it, onTestFailed } from 'vitest';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { allEvents, buyOutside, fillOrders, positionsBySide, predictionKeeperYaml, venueClient, type VenueMarket } from '../helpers/predictionE2e.js';
import { airdrop, ledger, SOL, USDC } from '../helpers/sim.js';

const PREFIX = 'e2e-pred-exit';
const HOUR = 3_600_000;

describe('prediction-exit in a running keeper', () => {
  const env = useKeeperEnv('strategy-prediction-exit', { sim: { clockSpeed: 0 } });

  it('leaves no position open in a market past the cut-off, takes the profit at the target, and keeps the rest', async () => {
    const jup = venueClient(env.sim);
    const now = Date.now();
    const open = (await allEvents(jup)).flatMap((e) => e.markets.filter((m) => m.isTradable && m.closeTime !== null && m.pricing.buyYesPriceUsd !== null && m.pricing.sellYesPriceUsd !== null && m.pricing.sellYesPriceUsd >= 50_000n && m.pricing.buyYesPriceUsd <= 900_000n));
    open.sort((a, b) => a.closeTime - b.closeTime);
    // The market closing first (and at least 10 minutes away, so it still trades): the cut-off falls before it.
    const closing = open.find((m) => m.closeTime * 1000 > now + 10 * 60_000)!;
    expect(closing).toBeDefined();
    const later = open.filter((m) => m.closeTime * 1000 > closing.closeTime * 1000 + 2 * HOUR && m.eventId !== closing.eventId);
    // Two later markets bid apart by at least 3 cents: the take-profit sits at the higher bid.
    let pair: [VenueMarket, VenueMarket] | undefined;
    for (const a of later) {
      const b = later.find((x) => x.eventId !== a.eventId && x.pricing.sellYesPriceUsd! >= a.pricing.sellYesPriceUsd! + 30_000n);
      if (b) {
        pair = [a, b];
        break;
      }
    }
    expect(pair).toBeDefined();
    const [kept, target] = pair!;
    const closeBeforeMinutes = Math.ceil((closing.closeTime * 1000 - now) / 60_000) + 30;
    expect(kept.closeTime * 1000 - now).toBeGreaterThan((closeBeforeMinutes + 60) * 60_000);

    const { path: walletPath, keypair } = writeKeypair(env.dir);
    const owner = keypair.publicKey.toBase58();
    await airdrop(env.sim, keypair, SOL, 2_000_000_000n);
    await airdrop(env.sim, keypair, USDC, 100_000_000n);
    for (const m of [closing, kept, target]) await buyOutside(env.sim, jup, keypair, m.marketId, true, 6_000_000n);
    const before = await positionsBySide(jup, owner);
    expect([...before.keys()].sort()).toEqual([closing, kept, target].map((m) => `${m.marketId}:yes`).sort());

    const params = [
      `      markets: [${[closing, kept, target].map((m) => m.marketId).join(', ')}]`,
      `      takeProfitPrice: ${(Number(target.pricing.sellYesPriceUsd!) / 1e6).toFixed(2)}`,
      `      closeBeforeMinutes: ${closeBeforeMinutes}`,
      '      retrySeconds: 30',
    ].join('\n');
    const config = writeConfig(env.dir, predictionKeeperYaml({ venueUrl: env.sim.url, prefix: PREFIX, id: 'exits', strategy: 'prediction-exit', params }), 'exit.yaml');
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', env.redis.url]);
    onTestFailed(() => console.error(k.stderr.join('').slice(-4000)));
    try {
      await waitUntil('the positions past the cut-off and at the target sold', async () => {
        await fillOrders(env.sim);
        const held = await positionsBySide(jup, owner);
        return !held.has(`${closing.marketId}:yes`) && !held.has(`${target.marketId}:yes`);
      }, 45_000, 300);
    } finally {
      await stopKeeper(k);
    }

    const held = await positionsBySide(jup, owner);
    expect([...held.keys()]).toEqual([`${kept.marketId}:yes`]);
    expect(held.get(`${kept.marketId}:yes`)!.contractsMicro).toBe(before.get(`${kept.marketId}:yes`)!.contractsMicro);
    const closes = (await readIntents(env.redis.url, PREFIX)).filter((r) => r.intent.kind === 'prediction.closePosition');
    const positionOf = (m: VenueMarket) => before.get(`${m.marketId}:yes`)!.positionPubkey;
    expect(new Set(closes.filter((r) => r.state === 'landed').map((r) => (r.intent.kind === 'prediction.closePosition' ? r.intent.positionPubkey : '')))).toEqual(new Set([positionOf(closing), positionOf(target)]));
    expect(closes.map((r) => r.intent.reason)).toEqual(expect.arrayContaining([expect.stringMatching(/^cut-off: /), expect.stringMatching(/^take-profit: /)]));
    // The two sales settled on the venue: USDC came back to the wallet from fills of its sell orders.
    const proceeds = (await ledger(env.sim)).filter((t) => t.wallet === owner && t.kind === 'prediction-fill' && t.inputMint === null && t.outputMint === USDC);
    expect(proceeds.length).toBeGreaterThanOrEqual(2);
  }, 90_000);
});
