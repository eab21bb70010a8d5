// What the acceptance tests of products behind a hostile venue share (test/execution/hostile-products*.test.ts,
// hostile-escrows*.test.ts): a simulator, the hostile venue in front of it as the keeper's venue and RPC, the
// machine's Redis, executors for funded wallets, and the checks: an attack served, shown to be real on the
// simulator, refused with its rule's name with nothing signed and nothing moved; an honest intent landing.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect } from 'vitest';
import { Redis } from 'ioredis';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { rawInstruction, type RawInstruction } from '../../src/jupiter/programs/instruction.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { Intent } from '../../src/sdk/intents.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { readTokenAccount, type AccountSnapshot } from '../../src/solana/guardChanges.js';
import type { GuardRule } from '../../src/solana/guardTypes.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { executorFor, marketOf, type ExecutorWorld, type WalletExecutor } from './executorKit.js';
import { escrowOf } from './hostileEscrowAttacks.js';
import { instructionsWithTables } from './hostileInstructions.js';
import { PRODUCT_PRIMARY_RULE, PRODUCT_PROGRAM, startHostileVenue, type HostileVenue, type ProductAttackRecord, type ProductKind, type RefusedProductAttack } from './hostileVenue.js';
import { balances, control, SOL, startTestSim, USDC } from './sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** What `refused` proves with: the served (attacked) transaction and the venue's record of it. */
export type Proof = (served: VersionedTransaction, record: ProductAttackRecord) => Promise<void> | void;

/** A test file's hostile products world (see useHostileProducts). */
export interface HostileProductKit {
  readonly sim: RunningSimulator;
  readonly hostile: HostileVenue;
  readonly world: ExecutorWorld;
  /** An executor for a fresh wallet with 2 SOL and `tokens`, the feed's SOL and USDC prices its market. */
  setup: (tokens: Array<[string, bigint]>) => Promise<WalletExecutor>;
  /** The lamports and every non-zero token balance of the wallet and of the stranger. */
  holdings: (s: WalletExecutor) => Promise<{ wallet: Holding; stranger: Holding }>;
  /** The one instruction of the product's program in a served transaction (its lookup tables resolved). */
  productIx: (tx: VersionedTransaction, product: ProductKind) => RawInstruction;
  /** Simulates a served transaction on the simulator (no signatures needed): the accounts after it, or null where none. */
  simulatedAccounts: (tx: VersionedTransaction, addresses: string[]) => Promise<Array<AccountSnapshot | null>>;
  /** What token account `account` gains if the served transaction runs, base units. */
  simulatedGain: (tx: VersionedTransaction, account: string) => Promise<bigint>;
  /**
   * Serves `attack` on the next build of `product` for the wallet (with a lookup table when asked) and runs the
   * intent: it must be real (`prove` on the served transaction), refused with `rules` (default: the attack's
   * primary rule), and leave nothing signed and nothing moved. Returns the venue's record of it.
   */
  refused: (s: WalletExecutor, product: ProductKind, intent: Intent, attack: RefusedProductAttack, prove: Proof, o?: { rules?: GuardRule[]; lookupTable?: boolean }) => Promise<ProductAttackRecord>;
  /** Runs an intent through an honest venue: it must land with no guard violation. */
  lands: (s: WalletExecutor, intent: Intent) => ReturnType<WalletExecutor['run']>;
  /** Has the venue serve the honest transaction of `product` again, compiled with a lookup table; it must land. */
  landsWithLookupTable: (s: WalletExecutor, product: ProductKind, intent: Intent) => Promise<{ run: Awaited<ReturnType<WalletExecutor['run']>>; record: ProductAttackRecord }>;
  /** A proof: the stranger's account the attack names gains exactly `amount` if the served transaction runs. */
  paysStranger: (amount: bigint) => Proof;
  /** A proof: the account the attack sends the money to instead (record.target) gains exactly `amount` of its token. */
  fillsTarget: (amount: bigint) => Proof;
  /**
   * A proof: the deposit goes into record.target, not the escrow the instruction names, but the escrow of an account
   * of the product's program (an order, an invite) that `holder` reads as the stranger's; it gains exactly `amount`.
   */
  intoStrangersEscrow: (amount: bigint, holder: (data: Uint8Array) => PublicKey | undefined) => Proof;
  /** A proof: the account the attack creates comes to exist, owned by the product's program, funded by the wallet with its rent. */
  createsAccount: (product: ProductKind) => Proof;
  /** `n` open politics markets quoted on both sides below $0.90, none handed out before. */
  openMarkets: (n: number) => Promise<Market[]>;
}

/** Lamports and non-zero token balances by mint. */
export interface Holding {
  lamports: bigint;
  tokens: Record<string, bigint>;
}

/** Starts a simulator, a hostile venue and a Redis connection before the file's tests, and removes them after. */
export function useHostileProducts(label: string): HostileProductKit {
  let state: { sim: RunningSimulator; hostile: HostileVenue; redis: Redis; world: ExecutorWorld } | undefined;
  beforeAll(async () => {
    const sim = await startTestSim();
    const hostile = await startHostileVenue(sim);
    const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    const coSigners = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners;
    // The keeper's venue and RPC are the hostile proxy; funding and the control API go to the simulator itself.
    const world: ExecutorWorld = {
      sim,
      redis,
      jup: createJupiterClient({ baseUrl: hostile.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } }),
      rpc: new SolanaRpc(`${hostile.url}/rpc`),
      coSigners,
      prefix: `${label}-${randomUUID().slice(0, 8)}`,
    };
    state = { sim, hostile, redis, world };
  });
  afterAll(async () => {
    if (!state) return;
    const keys = await state.redis.keys(`${state.world.prefix}:*`);
    if (keys.length > 0) await state.redis.del(...keys);
    state.redis.disconnect();
    await state.hostile.close();
    await state.sim.close();
  });
  const ready = () => {
    if (!state) throw new Error('the hostile products world is not started yet (read it inside a test or hook)');
    return state;
  };

  const holdings = async (s: WalletExecutor) => {
    const of = async (address: string): Promise<Holding> => {
      const b = await balances(ready().sim, address);
      return { lamports: b.lamports, tokens: Object.fromEntries(Object.entries(b.tokens).filter(([, amount]) => amount !== 0n)) };
    };
    return { wallet: await of(s.wallet.address), stranger: await of(ready().hostile.stranger.publicKey.toBase58()) };
  };

  const productIx = (tx: VersionedTransaction, product: ProductKind): RawInstruction => {
    const found = instructionsWithTables(ready().sim.ctx.state.venue, tx).filter((ix) => ix.programId.toBase58() === PRODUCT_PROGRAM[product]);
    expect(found).toHaveLength(1);
    return rawInstruction(found[0]!);
  };

  const simulatedAccounts = async (tx: VersionedTransaction, addresses: string[]): Promise<Array<AccountSnapshot | null>> => {
    const res = await fetch(ready().sim.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'simulateTransaction', params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64', sigVerify: false, accounts: { encoding: 'base64', addresses } }] }),
    });
    const json = (await res.json()) as { result: { value: { err: unknown; logs: string[]; accounts: Array<{ lamports: number; owner: string; data: [string, string] } | null> } } };
    const v = json.result.value;
    expect(v.err, `the hostile variant fails in simulation: ${v.logs.join('\n')}`).toBeNull();
    return v.accounts.map((a) => (a ? { lamports: BigInt(a.lamports), owner: a.owner, data: Buffer.from(a.data[0], 'base64'), executable: false } : null));
  };

  const simulatedGain = async (tx: VersionedTransaction, account: string): Promise<bigint> => {
    const [after] = await simulatedAccounts(tx, [account]);
    const post = readTokenAccount(after ?? null)?.amount ?? 0n;
    const pre = ready().sim.ctx.state.venue.chain.tokenAccount(new PublicKey(account))?.amount ?? 0n;
    return post - pre;
  };

  const refused: HostileProductKit['refused'] = async (s, product, intent, attack, prove, o = {}) => {
    const { hostile } = ready();
    const rules = o.rules ?? [PRODUCT_PRIMARY_RULE[attack.kind]];
    const index = hostile.planProduct({ product, wallet: s.wallet.address, attack, count: 1, lookupTable: o.lookupTable });
    const before = await holdings(s);
    const signedBefore = hostile.signatures({ signer: s.wallet.address }).length;
    const { result, rec } = await s.run(intent);
    const record = hostile.productAttacks().find((r) => r.rule === index);
    expect(record, `the ${attack.kind} variant of ${product} was served`).toMatchObject({ served: true, product, landed: [] });
    const served = VersionedTransaction.deserialize(Buffer.from(record!.transaction!, 'base64'));
    expect(served.message.addressTableLookups.length > 0, 'served with a lookup table').toBe(o.lookupTable === true);
    await prove(served, record!);
    expect(result).toEqual({ state: 'rejected' });
    expect(rec.error?.code).toBe('GUARD_REFUSED');
    for (const rule of rules) expect(rec.error?.message).toContain(`${rule}: `);
    expect(rec.signature).toBeNull();
    expect(rec.signatures ?? []).toEqual([]);
    expect(hostile.signatures({ signer: s.wallet.address })).toHaveLength(signedBefore);
    expect(await holdings(s)).toEqual(before);
    hostile.clearProductPlan();
    return record!;
  };

  const lands = async (s: WalletExecutor, intent: Intent) => {
    const run = await s.run(intent);
    expect(s.reports.at(-1)?.violations).toEqual([]);
    expect(run.result).toEqual({ state: 'landed' });
    return run;
  };

  const landsWithLookupTable: HostileProductKit['landsWithLookupTable'] = async (s, product, intent) => {
    const { hostile } = ready();
    const index = hostile.planProduct({ product, wallet: s.wallet.address, attack: { kind: 'honest' }, count: 1, lookupTable: true });
    const run = await lands(s, intent);
    hostile.clearProductPlan();
    const record = hostile.productAttacks().find((r) => r.rule === index);
    expect(record, `the honest ${product} was served with a lookup table`).toMatchObject({ served: true, product, landed: [run.rec.signature] });
    expect(VersionedTransaction.deserialize(Buffer.from(record!.transaction!, 'base64')).message.addressTableLookups).toHaveLength(1);
    return { run, record: record! };
  };

  const paysStranger = (amount: bigint): Proof => async (tx, r) => {
    expect(r.strangerAccount).toBeDefined();
    expect(ready().sim.ctx.state.venue.chain.tokenAccount(new PublicKey(r.strangerAccount!))?.owner).toBe(ready().hostile.stranger.publicKey.toBase58());
    expect(await simulatedGain(tx, r.strangerAccount!)).toBe(amount);
  };

  const fillsTarget = (amount: bigint): Proof => async (tx, r) => {
    expect(r.target).toBeDefined();
    expect(await simulatedGain(tx, r.target!)).toBe(amount);
  };

  const intoStrangersEscrow = (amount: bigint, holder: (data: Uint8Array) => PublicKey | undefined): Proof => async (tx, r) => {
    const chain = ready().sim.ctx.state.venue.chain;
    expect(r.target).toBeDefined();
    expect(r.target).not.toBe(escrowOf(r.product, productIx(tx, r.product)).escrow);
    const authority = chain.account(new PublicKey(chain.tokenAccount(new PublicKey(r.target!))!.owner));
    expect(authority?.owner.toBase58()).toBe(PRODUCT_PROGRAM[r.product]);
    expect(holder(authority!.data)?.toBase58()).toBe(ready().hostile.stranger.publicKey.toBase58());
    await fillsTarget(amount)(tx, r);
  };

  const createsAccount = (product: ProductKind): Proof => async (tx, r) => {
    const wallet = r.wallet;
    const venue = ready().sim.ctx.state.venue;
    expect(venue.chain.account(new PublicKey(r.target!))).toBeNull();
    const [created, after] = await simulatedAccounts(tx, [r.target!, wallet]);
    expect(created?.owner).toBe(PRODUCT_PROGRAM[product]);
    expect(created!.lamports).toBe(venue.chain.rentExempt(created!.data.length));
    // The wallet pays that rent (and the fees): it is gone from the wallet into an account only the program controls.
    expect(venue.chain.lamports(new PublicKey(wallet)) - after!.lamports).toBeGreaterThanOrEqual(created!.lamports);
  };

  const taken = new Set<string>();
  const openMarkets = async (n: number): Promise<Market[]> => {
    const page = await ready().world.jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const found = page.data
      .flatMap((e) => e.markets)
      .filter((x) => !taken.has(x.marketId) && x.isTradable && x.pricing.buyYesPriceUsd !== null && x.pricing.buyYesPriceUsd < 900_000n && x.pricing.buyNoPriceUsd !== null)
      .slice(0, n);
    expect(found).toHaveLength(n);
    for (const x of found) taken.add(x.marketId);
    return found;
  };

  return {
    get sim() {
      return ready().sim;
    },
    get hostile() {
      return ready().hostile;
    },
    get world() {
      return ready().world;
    },
    setup: async (tokens) => executorFor(ready().world, { lamports: 2_000_000_000n, tokens, market: await marketOf(ready().world, [SOL, USDC]) }),
    holdings,
    productIx,
    simulatedAccounts,
    simulatedGain,
    refused,
    lands,
    landsWithLookupTable,
    paysStranger,
    fillsTarget,
    intoStrangersEscrow,
    createsAccount,
    openMarkets,
  };
}
