// What the mainnet-shape guard tests share: an executor world (a simulator, Redis, the keeper's client and RPC), the
// RPC front that answers for mainnet twins (mainnetShapeRpc.ts), and each product's case made as the exactly-once
// suite makes it (productScenarios.ts: funds, and what the intent acts on, landed by the keeper's own executor).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { Keypair, type AddressLookupTableAccount, type VersionedTransaction } from '@solana/web3.js';
import type { MarketData } from '../../src/engine/ports.js';
import { buildTransaction } from '../../src/execution/build.js';
import { areaOf, guardPolicyFor } from '../../src/execution/guardPolicy.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent, IntentKind } from '../../src/sdk/intents.js';
import { guardTransaction, type GuardPolicy, type GuardReport } from '../../src/solana/guard.js';
import { PROGRAM_IDS, type ApiArea } from '../../src/solana/programs.js';
import type { Venue } from '../../src/sim/venue.js';
import type { IntentRecord } from '../../src/store/intents.js';
import { executorFor, marketOf, useExecutorWorld, type ExecutorWorld, type WalletExecutor } from './executorKit.js';
import { mainnetTwin, type MainnetTwin } from './mainnetShape.js';
import { startMainnetShapeRpc, type MainnetShapeRpc } from './mainnetShapeRpc.js';
import { KIND_SCENARIOS } from './productScenarios.js';
import { SOL, USDC } from './sim.js';

/** The intent kinds of the products (every kind but swap). */
export type ProductIntentKind = Exclude<IntentKind, 'swap'>;

/** The program whose instruction carries each area's terms. */
const AREA_PROGRAM: Record<Exclude<ApiArea, 'ultra' | 'swap'>, string> = {
  trigger: PROGRAM_IDS.jupiterTrigger,
  recurring: PROGRAM_IDS.jupiterRecurring,
  lend: PROGRAM_IDS.jupiterLendEarn,
  send: PROGRAM_IDS.jupiterSend,
  prediction: PROGRAM_IDS.jupiterPrediction,
};

/** The product program of an intent kind (base58). */
export function productProgramOf(kind: ProductIntentKind): string {
  const area = areaOf({ kind } as Intent);
  if (area === 'ultra' || area === 'swap') throw new Error(`${kind} is not a product`);
  return AREA_PROGRAM[area];
}

/** One product case: a wallet whose intent is ready to build (what it acts on has landed). */
export interface ProductCase {
  kind: ProductIntentKind;
  s: WalletExecutor;
  intent: Intent;
  /** The product's program (base58). */
  program: string;
  /** A build of the intent, as the keeper builds it. */
  built: BuiltTransaction;
}

/** A file's world for the mainnet-shape tests. */
export interface MainnetShapeWorld {
  readonly world: ExecutorWorld;
  /** The RPC front for mainnet twins. */
  readonly front: MainnetShapeRpc;
  readonly venue: Venue;
  /** Whose accounts the attacks pay into. */
  readonly stranger: Keypair;
  /** A wallet funded for `kind`, what its intent acts on landed, and a build of the intent. */
  prepare(kind: ProductIntentKind): Promise<ProductCase>;
  /** Another build of a case's intent (each build opens its own order and escrow at the venue). */
  build(c: ProductCase): Promise<BuiltTransaction>;
  /** The keeper's policy for a case's intent and build. */
  policy(c: ProductCase, built?: BuiltTransaction): Promise<GuardPolicy>;
  /** The guard's report on a sim-shaped transaction, through the simulator's RPC. */
  guardSim(c: ProductCase, tx: VersionedTransaction, built?: BuiltTransaction): Promise<GuardReport>;
  /** The mainnet twin of a sim-shaped transaction of the case, registered with the front. */
  twinOf(c: ProductCase, tx: VersionedTransaction, tables?: AddressLookupTableAccount[]): MainnetTwin;
  /** The guard's report on a mainnet twin, through the front. */
  guardMainnet(c: ProductCase, twin: MainnetTwin, built?: BuiltTransaction): Promise<GuardReport>;
}

/** Starts a MainnetShapeWorld before the file's tests and closes it after; read it inside tests and hooks. */
export function useMainnetShapeWorld(label: string): MainnetShapeWorld {
  const world = useExecutorWorld(label);
  const stranger = Keypair.generate();
  let front: MainnetShapeRpc | undefined;
  let feed: MarketData | undefined;
  beforeAll(async () => {
    front = await startMainnetShapeRpc(world.sim.rpcUrl);
    feed = await marketOf(world, [SOL, USDC]);
  });
  afterAll(async () => {
    await front?.close();
  });
  const ready = (): MainnetShapeRpc => {
    if (!front) throw new Error('the mainnet-shape world is not started yet (read it inside a test or hook)');
    return front;
  };
  const usdPrice = (m: string) => feed?.prices[m] && { usd: feed.prices[m].usd, decimals: feed.prices[m].decimals };
  const build = (s: WalletExecutor, intent: Intent, intentId = `ms.${intent.kind}.${randomUUID().slice(0, 8)}`): Promise<BuiltTransaction> =>
    buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice });
  const policy = (c: ProductCase, built: BuiltTransaction = c.built): Promise<GuardPolicy> =>
    guardPolicyFor(c.intent, built, { wallet: c.s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market: feed, maxPriceAgeMs: 600_000, now: Date.now() });

  const taken = new Set<string>();
  /** An open market quoted on both sides that no other case of this file trades. */
  const freshMarket = async (): Promise<Market> => {
    const page = await world.jup.prediction.getEvents({ includeMarkets: true, category: 'all' });
    const found = page.data.flatMap((e) => e.markets).find((m) => !taken.has(m.marketId) && m.status === 'open' && m.isTradable && m.pricing.buyYesPriceUsd !== null && m.pricing.buyYesPriceUsd < 800_000n && m.pricing.buyNoPriceUsd !== null && m.pricing.buyNoPriceUsd < 800_000n);
    if (!found) throw new Error('no fresh prediction market left');
    taken.add(found.marketId);
    return found;
  };

  const prepare = async (kind: ProductIntentKind): Promise<ProductCase> => {
    const spec = KIND_SCENARIOS[kind];
    const s = await executorFor(world, { lamports: spec.funds.lamports, tokens: [[USDC, spec.funds.usdc]], market: feed });
    const intentId = `ms.${kind}.${randomUUID().slice(0, 8)}`;
    let preps = 0;
    const land = async (intent: Intent, id = `${intentId}.prep.${preps++}`): Promise<IntentRecord> => {
      await s.store.create({ id, instance: 'ms', strategy: 'mainnet-shape@1', intent, createdAt: Date.now(), deadline: Date.now() + 600_000 });
      const result = await s.executor.execute(id);
      const rec = (await s.store.get(id))!;
      expect(result.state, `the prerequisite ${intent.kind} of ${kind} lands (${rec.error?.code ?? ''} ${rec.error?.message ?? ''})`).toBe('landed');
      return rec;
    };
    const intent = await spec.prepare({ sim: world.sim, jup: world.jup, wallet: s.wallet, land, intentId, freshMarket });
    return { kind, s, intent, program: productProgramOf(kind), built: await build(s, intent, intentId) };
  };

  const guardWith = async (c: ProductCase, tx: VersionedTransaction, built: BuiltTransaction, rpc: ExecutorWorld['rpc']): Promise<GuardReport> => guardTransaction(tx, await policy(c, built), rpc);
  return {
    world,
    get front() {
      return ready();
    },
    get venue() {
      return world.sim.ctx.state.venue;
    },
    stranger,
    prepare,
    build: (c) => build(c.s, c.intent),
    policy,
    guardSim: (c, tx, built = c.built) => guardWith(c, tx, built, world.rpc),
    twinOf: (c, tx, tables) => {
      const twin = mainnetTwin(tx, { program: c.program, wallet: c.s.wallet.publicKey, tables });
      ready().register(twin);
      return twin;
    },
    guardMainnet: (c, twin, built = c.built) => guardWith(c, twin.twin, built, ready().rpc),
  };
}

/** The rules a report names, once each, sorted. */
export function rulesOf(r: GuardReport): string[] {
  return [...new Set(r.violations.map((v) => v.rule))].sort();
}
