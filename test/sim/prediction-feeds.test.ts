import { describe, expect, it } from 'vitest';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { capturingLogger } from '../helpers/intentExecutor.js';
import { useFeedWorld } from '../helpers/feedWorld.js';

// The prediction feed reads the markets strategies watch by id. A config naming a market the venue does not have (a
// typo, a delisted market) must not stop the feed of the others: every prediction strategy would stall.
describe('the prediction feed and a watched market the venue does not have', { timeout: 60_000 }, () => {
  const world = useFeedWorld('feeds-prediction');

  it('feeds the markets that exist, and says once which one does not', async () => {
    const { sim, redis, prefix } = world;
    const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const listed = await jup.prediction.getEvents({ includeMarkets: true });
    const real = listed.data.flatMap((e) => e.markets ?? []).map((m) => m.marketId)[0]!;
    expect(real).toBeDefined();
    const { logger, lines } = capturingLogger();
    const snapshots = new SnapshotStore(redis, prefix);
    const feeds = new Feeds({ jup, rpc: new SolanaRpc(`${sim.url}/rpc`), snapshots, logger });

    for (let tick = 0; tick < 3; tick += 1) {
      const snapshot = await feeds.refreshPrediction([], [real, 'POLY-NO-SUCH-MARKET']);
      expect(snapshot.events.flatMap((e) => e.markets.map((m) => m.marketId))).toEqual([real]);
    }
    expect((await snapshots.read('prediction'))?.events[0]?.markets.map((m) => m.marketId)).toEqual([real]);
    const warned = lines.filter((l) => typeof l.msg === 'string' && l.msg.includes('POLY-NO-SUCH-MARKET'));
    expect(warned.map((l) => l.msg)).toEqual(['the venue has no prediction market POLY-NO-SUCH-MARKET: a strategy watches it; left out of the prediction feed until it exists']);
  });
});
