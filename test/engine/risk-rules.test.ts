// Acceptance (issue 10, risk gate): each rule of the gate, met by a strategy's intent because of what the venue's
// prices, balances or markets are, refuses that intent with the rule's name while the strategy's other intents
// pass. The engine's own parts: the simulator over HTTP, the keeper's feeds writing real snapshots to Redis, the
// evaluation with its Redis ledger and risk counters.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import type { Keypair } from '@solana/web3.js';
import { evaluate } from '../../src/engine/evaluate.js';
import { intentId } from '../../src/engine/ids.js';
import { recordLanding } from '../../src/engine/landings.js';
import type { RiskLimits } from '../../src/engine/risk.js';
import { watchLossesOnSnapshots } from '../../src/engine/risk.js';
import { Feeds } from '../../src/execution/feeds.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent, IntentInput } from '../../src/sdk/intents.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { intentLedger, RiskStore, snapshotSource, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { clearNamespace } from '../../src/store/redis.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { scripted } from '../fixtures/strategies/scripted.js';
import { BONK, control, fundedWallet, JUP, SOL, startTestSim, USDC } from '../helpers/sim.js';
import { executorFor, marketOf, useExecutorWorld } from '../helpers/executorKit.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Limits loose enough that only the rule under test can refuse. */
const BASE: RiskLimits = {
  maxNotionalUsdPerIntent: 100_000,
  maxDailyNotionalUsd: 1_000_000,
  maxSlippageBps: 300,
  minSolReserveLamports: 10_000_000n,
  refuseShieldSeverities: ['critical'],
  predictionEntryCutoff: 0,
};

interface Decided {
  byKey: Map<string, IntentRecord>;
  /** The rule that refused the intent of key `i<n>`, or 'planned'. */
  outcome(n: number): string;
}

describe('the risk gate, rule by rule, on what the venue says', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
  let seq = 0;
  let riskMint = '';

  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    const tokens = await control<{ tokens: Array<{ symbol: string; mint: string }> }>(sim, '/tokens', undefined, 'GET');
    riskMint = tokens.tokens.find((t) => t.symbol === 'RISK')!.mint;
  });
  afterAll(async () => {
    await sim?.close();
    redis.disconnect();
  });

  /** The simulator's clock, which its markets open and close by. */
  const simNow = async () => (await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET')).nowMs;

  /** A keeper's stores under a fresh prefix, for one wallet. */
  async function keeperFor(wallet: Keypair) {
    const prefix = `risk-rules-${process.pid}-${++seq}`;
    await clearNamespace(redis, prefix);
    const snapshots = new SnapshotStore(redis, prefix);
    const risk = new RiskStore(redis, prefix);
    const intents = new IntentStore(redis, prefix);
    const states = new StrategyStateStore(redis, prefix);
    let clock = await simNow();
    const feeds = new Feeds({ jup, rpc, snapshots, logger: silentLogger, now: () => clock });
    let window = 0;
    return {
      prefix,
      risk,
      intents,
      snapshots,
      /** Refreshes the feeds from the venue (prices, the wallet, the prediction markets of `categories`). */
      async refresh(o: { mints?: string[]; categories?: string[] } = {}) {
        clock = await simNow();
        await feeds.refreshMarket([SOL, USDC, JUP, BONK, riskMint, ...(o.mints ?? [])]);
        await feeds.refreshWallet(wallet.publicKey.toBase58());
        if (o.categories) await feeds.refreshPrediction(o.categories, []);
      },
      /** One evaluation of a strategy asking for `intents`, on the snapshots as they are. */
      /** The id of the next evaluation's window. */
      nextWindow: () => window + 1,
      async decide(asked: IntentInput[], limits: RiskLimits, o: { dailyBudgetUsd?: number } = {}): Promise<Decided> {
        window += 1;
        const summary = await evaluate({ id: 'scripted', definition: scripted, params: { intents: asked }, dailyBudgetUsd: o.dailyBudgetUsd }, { id: window, start: window * 60_000 }, clock, {
          snapshots: snapshotSource(snapshots),
          ledger: intentLedger(intents),
          states,
          counters: risk,
          enqueue: () => Promise.resolve(),
          limits,
          maxIntentsPerEvaluation: 20,
          deadlineMs: 600_000,
          maxPriceAgeMs: 60_000,
          maxWalletAgeMs: 60_000,
          logger: silentLogger,
        });
        expect(summary.outcome, summary.message).toBe('intents');
        const records = (await intents.read(summary.intents.map((i) => i.id))).records;
        const byKey = new Map(records.map((r) => [r.intent.key!, r]));
        return {
          byKey,
          outcome: (n) => {
            const r = byKey.get(`i${n}`)!;
            return r.state === 'rejected' ? (r.error?.rule ?? `no rule (${r.error?.code})`) : r.state;
          },
        };
      },
    };
  }

  const swap = (inputMint: string, outputMint: string, amount: bigint, extra: Partial<IntentInput> = {}): IntentInput => ({ kind: 'swap', inputMint, outputMint, amount, ...extra }) as IntentInput;

  it('max-notional-per-order: a SOL sale the venue now prices above the limit is refused; a smaller one passes', async () => {
    const w = await fundedWallet(sim, 5_000_000_000n);
    const k = await keeperFor(w);
    await control(sim, '/price', { mint: SOL, usd: 250 });
    await k.refresh();
    // 0.5 SOL at $250 is $125, above the $100 limit; 0.3 SOL is $75.
    const d = await k.decide([swap(SOL, USDC, 500_000_000n), swap(SOL, USDC, 300_000_000n)], { ...BASE, maxNotionalUsdPerIntent: 100 });
    expect([d.outcome(0), d.outcome(1)]).toEqual(['max-notional-per-order', 'planned']);
    expect(d.byKey.get('i0')!.error).toMatchObject({ code: 'RISK_NOTIONAL', message: expect.stringMatching(/\$125\.00 is above the per-order limit of \$100/) });
  });

  it('max-daily-notional: the intent that would pass the day\'s total is refused; the ones before it pass', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 500_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(USDC, SOL, 120_000_000n), swap(USDC, SOL, 100_000_000n), swap(USDC, JUP, 70_000_000n)], { ...BASE, maxDailyNotionalUsd: 200 });
    expect([d.outcome(0), d.outcome(1), d.outcome(2)]).toEqual(['planned', 'max-daily-notional', 'planned']);
    expect(await k.risk.dailyNotional(await simNow())).toBeCloseTo(190, 0);
  });

  it('strategy-budget: the instance\'s own daily budget refuses what the global limit would allow', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 500_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(USDC, SOL, 60_000_000n), swap(USDC, JUP, 60_000_000n), swap(USDC, BONK, 30_000_000n)], BASE, { dailyBudgetUsd: 100 });
    expect([d.outcome(0), d.outcome(1), d.outcome(2)]).toEqual(['planned', 'strategy-budget', 'planned']);
  });

  it('a replayed evaluation after a crash between reserving and recording does not count the day\'s notional twice', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 500_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const limits = { ...BASE, maxDailyNotionalUsd: 100 };
    const now = await simNow();
    const first = swap(USDC, SOL, 60_000_000n);
    // The crashed run: the gate reserved the window's first intent, then the process died before the commit.
    const crashedId = intentId('scripted', { ...first, key: 'i0' } as Intent, k.nextWindow());
    expect(await k.risk.reserveNotional({ intentId: crashedId, usd: 60, dailyLimit: 100, instance: 'scripted', instanceLimit: undefined }, now)).toBe('ok');
    // The replay decides the same window again: its $60 intent is found reserved, so a $35 one still fits the $100.
    const d = await k.decide([first, swap(USDC, JUP, 35_000_000n)], limits);
    expect(d.byKey.get('i0')!.id).toBe(crashedId);
    expect([d.outcome(0), d.outcome(1)]).toEqual(['planned', 'planned']);
    expect(await k.risk.dailyNotional(now)).toBeCloseTo(95, 0);
  });

  it('max-position-per-token: buying more of what the wallet already holds past the cap is refused; another token passes', async () => {
    // 2 SOL at $200 is $400 of SOL; the cap per token is $500.
    const w = await fundedWallet(sim, 2_000_000_000n, [[USDC, 500_000_000n]]);
    const k = await keeperFor(w);
    await control(sim, '/price', { mint: SOL, usd: 200 });
    await k.refresh();
    const d = await k.decide([swap(USDC, SOL, 150_000_000n), swap(USDC, JUP, 150_000_000n), swap(SOL, USDC, 100_000_000n)], { ...BASE, maxPositionUsdPerToken: 500 });
    expect([d.outcome(0), d.outcome(1), d.outcome(2)]).toEqual(['max-position-per-token', 'planned', 'planned']);
    expect(d.byKey.get('i0')!.error!.message).toMatch(/SOL .* would be worth \$550\.00/);
  });

  it('max-slippage: a swap asking for more slippage than the limit is refused; one within it passes', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(USDC, SOL, 10_000_000n, { slippageBps: 500 }), swap(USDC, SOL, 10_000_000n, { slippageBps: 50, key: 'low' })], BASE);
    expect(d.outcome(0)).toBe('max-slippage');
    expect(d.byKey.get('low')!.state).toBe('planned');
  });

  it('mint-allowlist and mint-denylist judge what is bought or deposited; selling a denied token out passes', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n], [BONK, 1_000_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const allow = await k.decide([swap(USDC, JUP, 10_000_000n), swap(USDC, SOL, 10_000_000n)], { ...BASE, allowMints: [SOL, USDC] });
    expect([allow.outcome(0), allow.outcome(1)]).toEqual(['mint-allowlist', 'planned']);
    const deny = await k.decide([swap(USDC, BONK, 10_000_000n), swap(BONK, USDC, 500_000_000n), swap(USDC, JUP, 10_000_000n), { kind: 'lend.deposit', asset: BONK, amount: 1_000n }], { ...BASE, denyMints: [BONK] });
    expect([deny.outcome(0), deny.outcome(1), deny.outcome(2), deny.outcome(3)]).toEqual(['mint-denylist', 'planned', 'planned', 'mint-denylist']);
  });

  it('shield: a token the venue\'s shield flags critical is not bought; a clean one is', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(USDC, riskMint, 10_000_000n), swap(USDC, JUP, 10_000_000n)], BASE);
    expect([d.outcome(0), d.outcome(1)]).toEqual(['shield', 'planned']);
    expect(d.byKey.get('i0')!.error!.message).toMatch(/critical SUSPICIOUS_DEV_ACTIVITY/);
  });

  it('min-sol-reserve: spending SOL the wallet needs for fees is refused; spending USDC passes', async () => {
    const w = await fundedWallet(sim, 600_000_000n, [[USDC, 100_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(SOL, USDC, 200_000_000n), swap(USDC, SOL, 10_000_000n)], { ...BASE, minSolReserveLamports: 500_000_000n });
    expect([d.outcome(0), d.outcome(1)]).toEqual(['min-sol-reserve', 'planned']);
  });

  it('balance: an intent for more than the wallet holds is refused; one it can pay passes', async () => {
    const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
    const k = await keeperFor(w);
    await k.refresh();
    const d = await k.decide([swap(USDC, SOL, 30_000_000n), swap(USDC, SOL, 15_000_000n)], BASE);
    expect([d.outcome(0), d.outcome(1)]).toEqual(['balance', 'planned']);
  });

  describe('prediction markets', () => {
    /** Open, tradable markets of the venue with their close times, soonest first. */
    async function openMarkets(k: Awaited<ReturnType<typeof keeperFor>>) {
      await k.refresh({ categories: ['all'] });
      const snap = (await k.snapshots.read('prediction'))!;
      return snap.events.flatMap((e) => e.markets.filter((m) => m.status === 'open' && m.isTradable && m.closeTime !== null && m.buyYesMicroUsd !== null).map((m) => ({ ...m, eventId: m.eventId ?? e.eventId }))).sort((a, b) => a.closeTime! - b.closeTime!);
    }
    const buy = (marketId: string, usd: number, key?: string): IntentInput => ({ kind: 'prediction.buy', marketId, side: 'yes', depositAmount: BigInt(usd * 1_000_000), maxPriceMicroUsd: 990_000n, ...(key ? { key } : {}) });

    it('prediction-close-cutoff: no new entry in a market closing within the cut-off; one closing later passes', async () => {
      const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
      const k = await keeperFor(w);
      const cutoff = 30 * 60_000;
      const first = (await openMarkets(k))[0]!;
      // The venue's clock runs on to 20 minutes before the soonest market's close.
      await control(sim, '/clock', { advanceMs: first.closeTime! * 1000 - (await simNow()) - 20 * 60_000 });
      const markets = await openMarkets(k);
      const now = await simNow();
      const soon = markets.find((m) => m.marketId === first.marketId && m.closeTime! * 1000 - now < cutoff);
      const later = markets.find((m) => m.closeTime! * 1000 - now > 2 * cutoff);
      expect(soon, 'the market closes within 30 minutes now').toBeDefined();
      expect(later, 'the venue has a market closing in more than an hour').toBeDefined();
      const d = await k.decide([buy(soon!.marketId, 5), buy(later!.marketId, 5)], { ...BASE, predictionEntryCutoff: cutoff });
      expect([d.outcome(0), d.outcome(1)]).toEqual(['prediction-close-cutoff', 'planned']);
    });

    it('max-event-exposure: stakes in one event add up to the cap, across its markets and the intents of one decision', async () => {
      const w = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
      const k = await keeperFor(w);
      const markets = await openMarkets(k);
      const [a, b] = [markets[0]!, markets.find((m) => m.eventId !== markets[0]!.eventId)!];
      const d = await k.decide([buy(a.marketId, 6, 'a1'), buy(a.marketId, 6, 'a2'), buy(b.marketId, 6, 'b1')], { ...BASE, maxEventExposureUsd: 10 });
      expect(['a1', 'a2', 'b1'].map((key) => d.byKey.get(key)!.error?.rule ?? d.byKey.get(key)!.state)).toEqual(['planned', 'max-event-exposure', 'planned']);
      expect(d.byKey.get('a2')!.error!.message).toMatch(/would have \$12\.00 at stake, above the cap of \$10/);
    });
  });

  describe('limits that read the chain', () => {
    const world = useExecutorWorld('risk-fees');

    it('daily-fee-budget: once the day\'s landed transactions paid the budget, new intents are refused', async () => {
      const market = await marketOf(world, [SOL, USDC]);
      const ex = await executorFor(world, { lamports: 2_000_000_000n, tokens: [[USDC, 100_000_000n]], market });
      const prefix = `risk-fees-${process.pid}`;
      await clearNamespace(world.redis, prefix);
      const risk = new RiskStore(world.redis, prefix);
      const snapshots = new SnapshotStore(world.redis, prefix);
      const feeds = new Feeds({ jup: world.jup, rpc: world.rpc, snapshots, logger: silentLogger });
      const states = new StrategyStateStore(world.redis, prefix);
      const ledger = new IntentStore(world.redis, prefix);
      const limits = { ...BASE, maxDailyFeeLamports: 5_000n };
      let window = 0;
      const decide = async () => {
        await feeds.refreshMarket([SOL, USDC]);
        await feeds.refreshWallet(ex.keypair.publicKey.toBase58());
        window += 1;
        const s = await evaluate({ id: 'scripted', definition: scripted, params: { intents: [swap(USDC, SOL, 10_000_000n)] } }, { id: window, start: window * 60_000 }, Date.now(), {
          snapshots: snapshotSource(snapshots), ledger: intentLedger(ledger), states, counters: risk, enqueue: () => Promise.resolve(), limits,
          maxIntentsPerEvaluation: 5, deadlineMs: 60_000, maxPriceAgeMs: 60_000, maxWalletAgeMs: 60_000, logger: silentLogger,
        });
        return (await ledger.get(s.intents[0]!.id))!;
      };
      expect((await decide()).state).toBe('planned');
      // A real swap lands; its fee, as the chain recorded it, is booked against the day.
      const landed = await ex.run({ kind: 'swap', via: 'metis', inputMint: USDC, outputMint: SOL, amount: 5_000_000n });
      expect(landed.result.state).toBe('landed');
      await recordLanding(landed.id, { intent: (i) => ex.store.get(i), market: () => Promise.resolve(market), feeOf: (sig) => world.rpc.transactionFee(sig), recordFee: (i, f, at) => risk.recordFee(i, f, at), recordFill: () => Promise.resolve(), logger: silentLogger }, Date.now());
      const fees = await risk.dailyFeeLamports(Date.now());
      expect(fees).toBeGreaterThanOrEqual(5_000n);
      const refused = await decide();
      expect(refused.state).toBe('rejected');
      expect(refused.error).toMatchObject({ rule: 'daily-fee-budget', message: expect.stringContaining(`${fees} lamports were spent on fees today`) });
    });
  });

  describe('loss limits and the kill switch', () => {
    it('drawdown: a fall of the venue\'s price trips the switch in halt mode with a reason; reduce-only then lets exits through and refuses entries', async () => {
      const w = await fundedWallet(sim, 4_000_000_000n, [[USDC, 200_000_000n]]);
      const k = await keeperFor(w);
      const switchStore = new KillSwitchStore(redis, k.prefix);
      const limits = { ...BASE, maxDrawdownPct: 20 };
      await control(sim, '/price', { mint: SOL, usd: 200 });
      await k.refresh();
      // At $200 the wallet is worth $1,000 (4 SOL and $200): its peak. Trading runs.
      const before = await k.decide([swap(USDC, SOL, 10_000_000n)], limits);
      expect(before.outcome(0)).toBe('planned');
      expect(await switchStore.read()).toBeNull();

      // SOL falls to $140: the wallet is worth $760, 24% below its peak. The next wallet refresh trips the switch.
      await control(sim, '/price', { mint: SOL, usd: 140 });
      await k.refresh();
      await watchLossesOnSnapshots(snapshotSource(k.snapshots), limits, k.risk, silentLogger, await simNow());
      const tripped = await switchStore.read();
      expect(tripped).toMatchObject({ mode: 'halt', by: 'risk:drawdown', reason: expect.stringMatching(/^drawdown: the wallet is worth \$\d+\.\d\d, 2\d\.\d% below its peak of \$10\d\d\.\d\d \(limit 20%\)/) });
      // Halted: entries and exits alike are refused, named by the rule that tripped the switch.
      const halted = await k.decide([swap(USDC, SOL, 10_000_000n), swap(SOL, USDC, 100_000_000n)], limits);
      expect([halted.outcome(0), halted.outcome(1)]).toEqual(['drawdown', 'drawdown']);

      // The operator moves to reduce-only: exits (SOL to a stable) pass, entries are refused.
      await switchStore.engage('reduce-only', 'wind down after the drawdown', 'cli');
      const reducing = await k.decide([swap(USDC, SOL, 10_000_000n), swap(SOL, USDC, 100_000_000n)], limits);
      expect([reducing.outcome(0), reducing.outcome(1)]).toEqual(['kill-switch-reduce-only', 'planned']);

      // Released, the limit measures from the wallet's value now: trading resumes.
      await switchStore.release();
      const resumed = await k.decide([swap(USDC, SOL, 10_000_000n)], limits);
      expect(resumed.outcome(0)).toBe('planned');
      expect(await switchStore.read()).toBeNull();
    });

    it('daily-loss: a fall in the day\'s value past the limit halts the decision that sees it', async () => {
      const w = await fundedWallet(sim, 2_000_000_000n, [[USDC, 100_000_000n]]);
      const k = await keeperFor(w);
      const limits = { ...BASE, maxDailyLossUsd: 50 };
      await control(sim, '/price', { mint: SOL, usd: 200 });
      await k.refresh();
      expect((await k.decide([swap(USDC, SOL, 10_000_000n)], limits)).outcome(0)).toBe('planned');
      // 2 SOL lose $30 each: $60 down on the day.
      await control(sim, '/price', { mint: SOL, usd: 170 });
      await k.refresh();
      const d = await k.decide([swap(USDC, SOL, 10_000_000n), swap(SOL, USDC, 100_000_000n)], limits);
      expect([d.outcome(0), d.outcome(1)]).toEqual(['daily-loss', 'daily-loss']);
      const tripped = await new KillSwitchStore(redis, k.prefix).read();
      expect(tripped).toMatchObject({ mode: 'halt', by: 'risk:daily-loss' });
      // About $60 below about $500 (the stable coin's price drifts a hair with the venue's clock).
      const [, loss, start] = /\$(\d+\.\d\d) below its \$(\d+\.\d\d) at the start of the day \(limit \$50\)/.exec(tripped!.reason) ?? [];
      expect(Number(loss)).toBeCloseTo(60, 0);
      expect(Number(start)).toBeCloseTo(500, 0);
    });
  });
});

