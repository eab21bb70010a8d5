// Acceptance (issue 20, item 6): keeper intents the pre-sign guard refused are tried again at the next run with a
// fresh build, however many times the venue lied, and a venue that keeps lying is reported. "A claim refused once is
// claimed on a later run when the venue answers honestly; the position is paid once." The claims job runs as the
// keeper wires it, its venue and RPC a hostile proxy in front of the simulator (test/helpers/hostileVenue.ts), the
// intents it records carried out by the keeper's real executor (builder, guard, signature, confirmation), the
// ledger in Redis. Endings other than a guard refusal (here the kill switch's) still give a subject up after
// MAX_GENERATIONS.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeeperLedgerPort } from '../../src/engine/keeperPorts.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { claimWinnings, GUARD_REFUSED, keeperIntentId, LYING_VENUE_REFUSALS, MAX_GENERATIONS, type KeeperDeps } from '../../src/keeper/index.js';
import { onLoggedError, type LoggedError } from '../../src/lib/logger.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { keeperKeys } from '../../src/store/keeperStore.js';
import type { ExecutorWorld } from '../helpers/executorKit.js';
import { PRODUCT_PRIMARY_RULE, startHostileVenue, type HostileVenue } from '../helpers/hostileVenue.js';
import { capturingLogger } from '../helpers/intentExecutor.js';
import { boughtPosition, freshMarkets, keeperKit, resolveMarket, type KeeperKit } from '../helpers/keeperKit.js';
import { balances, control, ledger, startTestSim } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
/** The guard rule a claim paid to a stranger is refused by. */
const PAYOUT_RULE = PRODUCT_PRIMARY_RULE['payout-stranger'];

describe('keeper intents the guard refused', { timeout: 300_000 }, () => {
  let sim: RunningSimulator;
  let hostile: HostileVenue;
  let redis: Redis;
  let world: ExecutorWorld;
  const taken = new Set<string>();

  beforeAll(async () => {
    sim = await startTestSim();
    hostile = await startHostileVenue(sim);
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    // The keeper's venue and RPC (its jobs' reads and its executor's builds) are the hostile proxy; funding and the
    // control API go to the simulator itself.
    world = {
      sim,
      redis,
      jup: createJupiterClient({ baseUrl: hostile.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }),
      rpc: new SolanaRpc(`${hostile.url}/rpc`),
      coSigners: (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners,
      prefix: `keeper-lying-${randomUUID().slice(0, 8)}`,
    };
  });
  afterAll(async () => {
    if (redis) {
      const keys = await redis.keys(`${world.prefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await hostile?.close();
    await sim?.close();
  });

  /** A settled winning position bought by the kit's keeper. */
  async function settledWinner(kit: KeeperKit) {
    const [m] = await freshMarkets(world, 1, taken);
    const won = await boughtPosition(world, kit, m!);
    await resolveMarket(world, m!.marketId, 'yes');
    return won;
  }
  /** The wallet's claim transactions on the venue's settlement ledger. */
  const claimsOnChain = async (wallet: string) => (await ledger(sim)).filter((t) => t.wallet === wallet && t.kind === 'prediction-claim');
  /** What the stranger the venue steals for holds (its empty token accounts, which the venue opens to steal into, aside). */
  const strangerHoldings = async () => {
    const b = await balances(sim, hostile.stranger.publicKey.toBase58());
    return { lamports: b.lamports, tokens: Object.fromEntries(Object.entries(b.tokens).filter(([, amount]) => amount !== 0n)) };
  };
  /** The venue serves the next `count` claim builds of the kit's wallet paying its winnings to the stranger. */
  const lieAboutClaims = (kit: KeeperKit, count: number) => hostile.planProduct({ product: 'prediction.claim', wallet: kit.address, attack: { kind: 'payout-stranger' }, count });
  /** The claim intent of `position`'s generation `n`. */
  const claimId = (position: string, n = 1) => keeperIntentId('prediction.claim', position, n);

  /** The kit's ledger as the claims job sees it, counting the intents it records (the real store does the work). */
  function countingLedger(kit: KeeperKit): { ledger: KeeperLedgerPort; records: () => number } {
    let records = 0;
    const s = kit.keeperStore;
    return {
      ledger: {
        record: (rec) => {
          records += 1;
          return s.record(rec);
        },
        read: (ids) => s.read(ids),
        landedSince: (since, kinds) => s.landedSince(since, kinds),
        setVenueOrder: (id, v) => s.setVenueOrder(id, v),
      },
      records: () => {
        const n = records;
        records = 0;
        return n;
      },
    };
  }

  describe('when the venue lies about a claim once', () => {
    it('claims the position at the next run, once the venue answers honestly, and it is paid once', async () => {
      const kit = await keeperKit(world, { usdc: 50_000_000n });
      const won = await settledWinner(kit);
      const start = await kit.usdc();
      const stranger = await strangerHoldings();
      const signedBefore = hostile.signatures({ signer: kit.address }).length;
      const lie = lieAboutClaims(kit, 1);

      // Run 1: the venue serves a claim paying the stranger; the guard refuses it and nothing is signed.
      expect((await claimWinnings(kit.deps)).counts).toMatchObject({ claimable: 1, recorded: 1, exhausted: 0, venueLying: 0 });
      expect(kit.queued).toEqual([claimId(won.position)]);
      await kit.drain();
      const refused = (await kit.store.get(claimId(won.position)))!;
      expect(refused).toMatchObject({ state: 'rejected', signature: null, signatures: [], error: { code: GUARD_REFUSED } });
      expect(refused.error?.rule?.split(',')).toContain(PAYOUT_RULE);
      expect(hostile.productAttacks().filter((a) => a.rule === lie)).toEqual([expect.objectContaining({ served: true, landed: [] })]);
      expect(hostile.signatures({ signer: kit.address })).toHaveLength(signedBefore);
      expect(await kit.usdc()).toBe(start);
      expect(await strangerHoldings()).toEqual(stranger);
      expect(await claimsOnChain(kit.address)).toEqual([]);

      // Run 2: the venue is honest (its one lie is spent); a fresh claim, the position's second, is built and lands.
      expect((await claimWinnings(kit.deps)).counts).toMatchObject({ claimable: 1, recorded: 1, exhausted: 0, venueLying: 0 });
      expect(kit.queued).toEqual([claimId(won.position, 2)]);
      await kit.drain();
      const claimed = (await kit.store.get(claimId(won.position, 2)))!;
      expect(claimed).toMatchObject({ state: 'landed', error: null, intent: { kind: 'prediction.claim', positionPubkey: won.position } });
      // $1 a contract: micro-contracts are USDC base units. It arrived once, and the stranger got nothing.
      expect((await kit.usdc()) - start).toBe(won.contractsMicro);
      expect(await strangerHoldings()).toEqual(stranger);
      expect(await claimsOnChain(kit.address)).toEqual([expect.objectContaining({ signature: claimed.signature, outputAmount: won.contractsMicro.toString() })]);

      // Later runs, by two keepers at once: nothing new is recorded, nothing more is paid.
      for (let i = 0; i < 2; i += 1) {
        const runs = await Promise.all([claimWinnings(kit.deps), claimWinnings({ ...kit.deps })]);
        expect(runs.map((r) => r.counts.recorded)).toEqual([0, 0]);
        expect(kit.queued).toEqual([]);
      }
      expect(await kit.drain()).toEqual([]);
      expect((await kit.usdc()) - start).toBe(won.contractsMicro);
      expect(await claimsOnChain(kit.address)).toHaveLength(1);
      expect((await kit.intents()).filter((r) => r.kind === 'prediction.claim').map((r) => [r.id, r.state])).toEqual([
        [claimId(won.position), 'rejected'],
        [claimId(won.position, 2), 'landed'],
      ]);
      await kit.close();
    });
  });

  describe('when the venue keeps lying about a claim', () => {
    it(`asks again past ${MAX_GENERATIONS} refusals at one record a run, reports the venue from the ${LYING_VENUE_REFUSALS}rd lie on, and claims once it is honest`, async () => {
      const kit = await keeperKit(world, { usdc: 50_000_000n });
      const won = await settledWinner(kit);
      const start = await kit.usdc();
      const stranger = await strangerHoldings();
      const { logger, lines } = capturingLogger();
      const counting = countingLedger(kit);
      // Bound as main.ts binds the keeper's logger: its error lines reach the notifier as `error` events.
      const deps: KeeperDeps = { ...kit.deps, ledger: counting.ledger, logger: logger.child({ component: 'keeper' }) };
      const notified: LoggedError[] = [];
      const stop = onLoggedError((e) => {
        if (e.message.includes(won.position)) notified.push(e);
      });
      const lies = MAX_GENERATIONS + 2;
      lieAboutClaims(kit, lies);
      try {
        for (let n = 1; n <= lies + 1; n += 1) {
          // Run n records generation n: the n - 1 before it were refused by the guard, in a row.
          const run = await claimWinnings(deps);
          const lying = n - 1 >= LYING_VENUE_REFUSALS;
          expect(run.counts, `run ${n}`).toMatchObject({ claimable: 1, recorded: 1, exhausted: 0, venueLying: lying ? 1 : 0 });
          if (lying) expect(run.summary).toMatch(/^the venue keeps lying about 1 claim/);
          // However many came before: the current generation's record is found ended, and the next one recorded.
          expect(counting.records(), `run ${n}`).toBeLessThanOrEqual(2);
          expect(kit.queued).toEqual([claimId(won.position, n)]);
          const errors = lines.filter((l) => l.level === 50);
          expect(errors, `run ${n}`).toHaveLength(Math.max(0, n - LYING_VENUE_REFUSALS));
          if (lying) {
            expect(errors.at(-1)).toMatchObject({ component: 'keeper', job: 'claims', position: won.position, kind: 'prediction.claim', intent: claimId(won.position, n), refusedInRow: n - 1, rules: expect.arrayContaining([PAYOUT_RULE]) });
            expect(notified.at(-1)).toEqual({ component: 'keeper', message: expect.stringMatching(new RegExp(`last ${n - 1} prediction\\.claim .*${won.position}.*${PAYOUT_RULE}`)) });
          }
          // Between two runs (the intent in flight), a run records nothing, logs no new error, and still counts the lie.
          if (lying) {
            expect((await claimWinnings(deps)).counts).toMatchObject({ recorded: 0, inFlight: 1, venueLying: 1 });
            expect(lines.filter((l) => l.level === 50)).toHaveLength(errors.length);
            counting.records();
          }
          await kit.drain();
          const rec = (await kit.store.get(claimId(won.position, n)))!;
          if (n <= lies) {
            expect(rec, `generation ${n}`).toMatchObject({ state: 'rejected', signatures: [], error: { code: GUARD_REFUSED } });
            expect(await kit.usdc()).toBe(start);
          } else expect(rec).toMatchObject({ state: 'landed', error: null });
        }
      } finally {
        stop();
      }
      expect(notified).toHaveLength(lies + 1 - LYING_VENUE_REFUSALS);
      expect((await kit.usdc()) - start).toBe(won.contractsMicro);
      expect(await strangerHoldings()).toEqual(stranger);
      expect(await claimsOnChain(kit.address)).toHaveLength(1);
      expect((await claimWinnings(deps)).counts).toMatchObject({ claimable: 0, recorded: 0 });
      expect(kit.queued).toEqual([]);
      await kit.close();
    });

    it('rebuilds where a subject stands from the ledger when that record is lost, naming the same next claim', async () => {
      const kit = await keeperKit(world, { usdc: 50_000_000n });
      const won = await settledWinner(kit);
      const counting = countingLedger(kit);
      const deps: KeeperDeps = { ...kit.deps, ledger: counting.ledger };
      const lies = LYING_VENUE_REFUSALS + 1;
      lieAboutClaims(kit, lies);
      for (let n = 1; n <= lies; n += 1) {
        await claimWinnings(deps);
        await kit.drain();
      }
      counting.records();
      // Lost as an expiry or the end of a paper session loses it: the generations are read again from the first.
      await redis.del(keeperKeys(kit.prefix).generations(claimId(won.position)));
      const run = await claimWinnings(deps);
      expect(run.counts).toMatchObject({ recorded: 1, venueLying: 1 });
      expect(kit.queued).toEqual([claimId(won.position, lies + 1)]);
      expect(counting.records()).toBe(lies + 1);
      // Rebuilt: the next run is one record again.
      expect((await claimWinnings(deps)).counts).toMatchObject({ recorded: 0, inFlight: 1, venueLying: 1 });
      expect(counting.records()).toBe(1);
      const start = await kit.usdc();
      await kit.drain();
      expect((await kit.usdc()) - start).toBe(won.contractsMicro);
      await kit.close();
    });
  });

  describe('when claims end without effect for other reasons', () => {
    it(`gives the position up after ${MAX_GENERATIONS} of them, guard refusals in between not counted`, async () => {
      const kit = await keeperKit(world, { usdc: 50_000_000n });
      const won = await settledWinner(kit);
      const start = await kit.usdc();
      // How each generation ends: the kill switch thrown between the job recording it and the executor taking it
      // up (refused before anything is built), or the venue lying (refused by the guard).
      const endings = ['switch', 'guard', 'switch', 'guard', 'switch', 'switch', 'switch'] as const;
      expect(endings.filter((e) => e === 'switch')).toHaveLength(MAX_GENERATIONS);
      for (const [i, ending] of endings.entries()) {
        const n = i + 1;
        expect((await claimWinnings(kit.deps)).counts, `run ${n}`).toMatchObject({ claimable: 1, recorded: 1, exhausted: 0, venueLying: 0 });
        expect(kit.queued).toEqual([claimId(won.position, n)]);
        if (ending === 'switch') await kit.switchStore.engage('halt', 'maintenance', 'cli');
        else lieAboutClaims(kit, 1);
        await kit.drain();
        if (ending === 'switch') await kit.switchStore.release();
        const rec = (await kit.store.get(claimId(won.position, n)))!;
        expect(rec.state, `generation ${n}`).toBe('rejected');
        if (ending === 'guard') expect(rec.error?.code).toBe(GUARD_REFUSED);
        else expect(rec.error?.code).not.toBe(GUARD_REFUSED);
      }
      // The fifth ending of its own: nothing more is recorded or tried, by this run or a later one.
      for (let i = 0; i < 2; i += 1) {
        const run = await claimWinnings(kit.deps);
        expect(run.counts).toMatchObject({ claimable: 1, recorded: 0, inFlight: 0, exhausted: 1 });
        expect(run.summary).toContain('1 given up');
        expect(kit.queued).toEqual([]);
      }
      expect(await kit.store.get(claimId(won.position, endings.length + 1))).toBeUndefined();
      expect(await kit.usdc()).toBe(start);
      expect(await claimsOnChain(kit.address)).toEqual([]);
      await kit.close();
    });
  });
});
