// prediction-arb in a real `jup-keeper run` against the simulator over HTTP (frozen clock: prices hold still, and
// the venue fills orders when the test says so). The simulator lists every story on both providers, each quoting
// its own walk around the question's probability: the test moves the clock until one question's YES on one
// provider and NO on the other cost under $1 with the venue's fees, and gives the keeper that pair and a pair that
// costs more than $1. The keeper buys both
// legs of the first, nothing of the second, and the contracts it holds pay more at settlement than they cost.
import { describe, expect, it, onTestFailed } from 'vitest';
import { planEntry } from '../../strategies/prediction-arb/plan.js';
import { readIntents, stopKeeper, waitUntil } from '../helpers/e2e.js';
import { spawnKeeper, useKeeperEnv, writeConfig, writeKeypair } from '../helpers/keeper.js';
import { allEvents, asView, fillOrders, positionsBySide, predictionKeeperYaml, venueClient, type VenueMarket } from '../helpers/predictionE2e.js';
import { airdrop, control, ledger, SOL, USDC } from '../helpers/sim.js';
import type { JupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';

const PREFIX = 'e2e-pred-arb';
const MAX_CONTRACTS = 20_000_000n;
/** The simulator's market orders may fill up to 2 % over the ask (the limit it reports): a leg's limit must allow it. */
const LEG_SLIPPAGE_BPS = 200;

interface Pair {
  poly: VenueMarket;
  kalshi: VenueMarket;
}

/** The same questions on both providers, matched by their story and their place in it. */
async function pairs(jup: JupiterClient): Promise<Pair[]> {
  const kalshi = new Map((await allEvents(jup, 'kalshi')).map((e) => [e.metadata?.slug ?? e.eventId, e]));
  const out: Pair[] = [];
  for (const e of await allEvents(jup, 'polymarket')) {
    const twin = kalshi.get(e.metadata?.slug ?? e.eventId);
    if (!twin) continue;
    e.markets.forEach((m, i) => {
      const k = twin.markets[i];
      if (k && m.isTradable && k.isTradable && k.title === m.title) out.push({ poly: m, kalshi: k });
    });
  }
  return out;
}

/** Whether a pair costs under $1 a contract pair after fees (what the strategy plans, as the test's keeper is set). */
function isArbitrage(p: Pair): boolean {
  return planEntry(asView(p.poly), asView(p.kalshi), 0n, MAX_CONTRACTS, 1_000_000_000n, LEG_SLIPPAGE_BPS) !== undefined;
}

/**
 * Moves the frozen clock half an hour at a time (the providers' own deviations revert within ten minutes, so each
 * look is a fresh draw) until some pair is an arbitrage: a few in ten thousand pairs are, and a look sees about four
 * hundred. Returns it and a pair of another story that is not.
 */
async function findArbitrage(sim: RunningSimulator, jup: JupiterClient): Promise<{ arb: Pair; none: Pair }> {
  for (let step = 0; step < 100; step += 1) {
    const all = await pairs(jup);
    const arb = all.find(isArbitrage);
    const none = all.find((p) => p.poly.eventId !== arb?.poly.eventId && !isArbitrage(p));
    if (arb && none) return { arb, none };
    await control(sim, '/clock', { advanceMs: 30 * 60_000 });
  }
  throw new Error('no arbitrage between the providers in 50 simulated hours');
}

describe('prediction-arb in a running keeper', () => {
  // Started a day ahead of the real clock, so that markets' close times stay ahead of the keeper's while the test
  // moves the simulator's clock forward looking for a gap between the providers.
  const env = useKeeperEnv('strategy-prediction-arb', { sim: { clockSpeed: 0, startMs: Date.now() + 86_400_000 } });

  it('buys YES on one provider and NO on the other only where together they cost under $1 after fees', async () => {
    const jup = venueClient(env.sim);
    const { arb, none } = await findArbitrage(env.sim, jup);

    const { path: walletPath, keypair } = writeKeypair(env.dir);
    const owner = keypair.publicKey.toBase58();
    await airdrop(env.sim, keypair, SOL, 2_000_000_000n);
    await airdrop(env.sim, keypair, USDC, 200_000_000n);
    const params = [
      '      pairs:',
      ...[arb, none].map((p) => `        - { polymarket: ${p.poly.marketId}, kalshi: ${p.kalshi.marketId} }`),
      '      minEdge: 0',
      `      maxContracts: ${Number(MAX_CONTRACTS / 1_000_000n)}`,
      '      maxPairUsd: 100',
      '      legGraceSeconds: 600',
      `      legSlippageBps: ${LEG_SLIPPAGE_BPS}`,
    ].join('\n');
    const config = writeConfig(env.dir, predictionKeeperYaml({ venueUrl: env.sim.url, prefix: PREFIX, id: 'arb', strategy: 'prediction-arb', params }), 'arb.yaml');
    const k = spawnKeeper(['run', '--config', config, '--wallet', walletPath, '--redis-url', env.redis.url]);
    onTestFailed(() => console.error(k.stderr.join('').slice(-4000)));
    let held: Awaited<ReturnType<typeof positionsBySide>>;
    try {
      held = await waitUntil('both legs of the arbitrage held', async () => {
        await fillOrders(env.sim);
        const now = await positionsBySide(jup, owner);
        const legs = [...now.entries()].filter(([key, p]) => p.contractsMicro > 0n && (key.startsWith(`${arb.poly.marketId}:`) || key.startsWith(`${arb.kalshi.marketId}:`)));
        return legs.length === 2 ? now : undefined;
      }, 45_000, 300);
    } finally {
      await stopKeeper(k);
    }

    // One leg on each provider, opposite sides: whichever way the question resolves, one of them pays $1 a contract.
    const keys = [...held.keys()].sort();
    expect(keys).toHaveLength(2);
    const [polyKey, kalshiKey] = [keys.find((x) => x.startsWith(`${arb.poly.marketId}:`))!, keys.find((x) => x.startsWith(`${arb.kalshi.marketId}:`))!];
    expect([polyKey.split(':')[1], kalshiKey.split(':')[1]].sort()).toEqual(['no', 'yes']);
    // Nothing of the pair that costs more than $1.
    expect(keys.some((x) => x.startsWith(`${none.poly.marketId}:`) || x.startsWith(`${none.kalshi.marketId}:`))).toBe(false);

    const buys = (await readIntents(env.redis.url, PREFIX)).filter((r) => r.intent.kind === 'prediction.buy');
    expect(buys.map((r) => r.state)).toEqual(['landed', 'landed']);
    // What the fills took from the wallet (contracts and the venue's fees) is less than the matched contracts pay.
    const paid = (await ledger(env.sim)).filter((t) => t.wallet === owner && t.kind === 'prediction-fill' && t.inputMint === USDC).reduce((s, t) => s + BigInt(t.inputAmount!), 0n);
    const payout = [held.get(polyKey)!.contractsMicro, held.get(kalshiKey)!.contractsMicro].reduce((a, b) => (a < b ? a : b));
    expect(paid).toBeGreaterThan(0n);
    expect(paid).toBeLessThan(payout);
  }, 90_000);
});
