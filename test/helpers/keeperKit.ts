// The keeper jobs wired as main.ts wires them (the venue read through the project's client over HTTP, a Redis
// ledger under the test's own prefix, the kill switch in Redis), with the keeper's real executor behind the enqueue:
// what the keeper-job tests share. Intents the jobs hand to the queue are collected and carried out by `drain()`.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import type { MarketData } from '../../src/engine/ports.js';
import { Executor } from '../../src/execution/executor.js';
import { VenueReader } from '../../src/execution/venueReader.js';
import { keeperSettings, type KeeperDeps } from '../../src/keeper/index.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import { silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore, type IntentRecord } from '../../src/store/intents.js';
import { KeeperStore } from '../../src/store/keeperStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { clearNamespace } from '../../src/store/redis.js';
import { balances, control, signBase64, USDC } from './sim.js';
import { executorFor, type ExecutorWorld, type WalletExecutor } from './executorKit.js';

/** One wallet's keeper jobs, ledger and executor under a prefix of its own. */
export interface KeeperKit {
  prefix: string;
  keypair: Keypair;
  address: string;
  wallet: WalletExecutor;
  deps: KeeperDeps;
  store: IntentStore;
  keeperStore: KeeperStore;
  switchStore: KillSwitchStore;
  executor: Executor;
  /** Ids the jobs handed to the queue and `drain()` has not run yet. */
  queued: string[];
  /** Executes every queued intent, in order; returns their ids. */
  drain(): Promise<string[]>;
  /** Records an intent as a strategy's (instance `t`) and executes it; returns its record. */
  run(intent: Intent): Promise<IntentRecord>;
  /** USDC the wallet holds, base units. */
  usdc(): Promise<bigint>;
  /** Every intent of the kit's ledger. */
  intents(): Promise<IntentRecord[]>;
  close(): Promise<void>;
}

/**
 * A fresh funded wallet (1 SOL, `usdc`) with the keeper jobs wired for it. `now` replaces the jobs' clock (default
 * Date.now); `market` is the price feed the builder and guard read (a recurring order needs one).
 */
export async function keeperKit(world: ExecutorWorld, o: { usdc?: bigint; staleOrderAgeMs?: number; now?: () => number; market?: MarketData } = {}): Promise<KeeperKit> {
  const wallet = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, o.usdc ?? 100_000_000n]], market: o.market });
  const prefix = `${world.prefix}-${randomUUID().slice(0, 6)}`;
  const store = new IntentStore(world.redis, prefix);
  const keeperStore = new KeeperStore(world.redis, prefix, store);
  const switchStore = new KillSwitchStore(world.redis, prefix);
  const executor = new Executor({ ...wallet.deps, store, killSwitch: () => switchStore.read() });
  const queued: string[] = [];
  const deps: KeeperDeps = {
    venue: new VenueReader(world.jup, world.rpc, wallet.wallet.address),
    ledger: keeperStore,
    state: keeperStore,
    killSwitch: { read: () => switchStore.read(), finishCancelResting: (r, at) => switchStore.finishCancelResting(r, at) },
    enqueue: (id) => {
      if (!queued.includes(id)) queued.push(id);
      return Promise.resolve();
    },
    settings: keeperSettings({ deadlineMs: 600_000, staleOrderAgeMs: o.staleOrderAgeMs ?? 900_000 }),
    logger: silentLogger,
    now: o.now ?? Date.now,
  };
  return {
    prefix,
    keypair: wallet.keypair,
    address: wallet.wallet.address,
    wallet,
    deps,
    store,
    keeperStore,
    switchStore,
    executor,
    queued,
    drain: async () => {
      const ids = queued.splice(0);
      for (const id of ids) await executor.execute(id);
      return ids;
    },
    run: async (intent) => {
      const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
      await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 600_000 });
      await executor.execute(id);
      return (await store.get(id))!;
    },
    usdc: async () => (await balances(world.sim, wallet.keypair)).tokens[USDC] ?? 0n,
    intents: () => store.all(),
    close: async () => {
      await clearNamespace(world.redis, prefix);
    },
  };
}

/** Open markets of distinct events quoted on both sides below $0.90, none of them in `taken` (which they join). */
export async function freshMarkets(world: ExecutorWorld, count: number, taken: Set<string>): Promise<Market[]> {
  const page = await world.jup.prediction.getEvents({ includeMarkets: true });
  const out: Market[] = [];
  for (const e of page.data) {
    const m = e.markets.find((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n && x.pricing.buyNoPriceUsd !== null && x.pricing.buyNoPriceUsd < 900_000n);
    if (!m) continue;
    for (const x of e.markets) taken.add(x.marketId);
    out.push(m);
    if (out.length === count) return out;
  }
  throw new Error(`only ${out.length} open markets of distinct events, ${count} wanted`);
}

/** Has the venue's keeper fill one order now; it must fill without a keeper error. */
export async function fillNow(world: ExecutorWorld, order: string): Promise<void> {
  const r = await control<{ filled: number; keeperError: string | null }>(world.sim, '/orders/fill', { order });
  expect(r).toEqual({ filled: 1, keeperError: null });
}

/** Settles a market now with `result`. */
export async function resolveMarket(world: ExecutorWorld, marketId: string, result: 'yes' | 'no'): Promise<void> {
  const r = await control<{ keeperError: string | null }>(world.sim, '/prediction/resolve', { marketId, result });
  expect(r.keeperError).toBeNull();
}

/** Signs a transaction the venue built for the wallet and sends it through RPC, as its owner would; it must land. */
export async function sendAsOwner(world: ExecutorWorld, transaction: string, owner: Keypair): Promise<string> {
  const signature = await world.rpc.send(Buffer.from(signBase64(transaction, owner), 'base64'));
  expect((await world.rpc.status(signature)).value).toMatchObject({ err: null });
  return signature;
}

/**
 * A YES (or NO) position of `contracts`' worth bought by the kit's keeper (a strategy's landed buy in its ledger)
 * and filled by the venue; returns the position, the buy's record and its order.
 */
export async function boughtPosition(world: ExecutorWorld, kit: KeeperKit, m: Market, side: 'yes' | 'no' = 'yes', depositAmount = 10_000_000n): Promise<{ position: string; contractsMicro: bigint; buy: IntentRecord; order: string }> {
  const buy = await kit.run({ kind: 'prediction.buy', marketId: m.marketId, side, depositAmount, maxPriceMicroUsd: 990_000n });
  expect(buy.state).toBe('landed');
  const order = buy.quote?.order;
  expect(typeof order).toBe('string');
  await fillNow(world, order as string);
  const p = (await world.jup.prediction.getPredictionPositions({ ownerPubkey: kit.address, marketId: m.marketId })).data[0];
  expect(p?.contractsMicro).toBeGreaterThan(0n);
  return { position: p!.pubkey, contractsMicro: p!.contractsMicro!, buy, order: order as string };
}
