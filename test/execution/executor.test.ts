import { randomUUID } from 'node:crypto';
import bs58 from 'bs58';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, SystemProgram, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import type { MarketData } from '../../src/engine/ports.js';
import type { KillSwitchState } from '../../src/engine/killSwitch.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor, type ExecutorDeps } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import type { BuiltTransaction } from '../../src/execution/types.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { KeeperError } from '../../src/lib/errors.js';
import { createLogger, silentLogger } from '../../src/lib/logger.js';
import type { Intent } from '../../src/sdk/intents.js';
import { guardTransaction, GuardUnavailable, type GuardPolicy } from '../../src/solana/guard.js';
import { allowedProgramsFor, PROGRAM_IDS } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { IntentStore } from '../../src/store/intents.js';
import { control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DAY = 86_400_000;

// The executor in-process against the simulator (its clock frozen: time moves only when a test moves it), a real
// Redis ledger and the real client, builder and guard. Each branch that ends an intent is driven for real.
describe('the executor', { timeout: 90_000 }, () => {
  let sim: RunningSimulator;
  let redis: Redis;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let vault: string;
  const prefix = `exec-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    sim = await startTestSim();
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 3 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    vault = (await control<{ coSigners: string[] }>(sim, '/venue', undefined, 'GET')).coSigners[0]!;
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
    await sim.close();
  });

  async function market(): Promise<MarketData> {
    const prices = await jup.price.getPrices({ ids: [SOL, USDC] });
    return { at: Date.now(), prices: Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, { usd: p.usdPrice, decimals: p.decimals, change24h: null }])), tokens: {} };
  }

  interface Setup {
    wallet: HotWallet;
    keypair: Keypair;
    store: IntentStore;
    executor: Executor;
    deps: ExecutorDeps;
    calls: { build: number; guard: number };
  }

  /** An executor with the keeper's real parts; `over` replaces some of them for one branch. */
  async function setup(over: Partial<ExecutorDeps> & { lamports?: bigint; usdc?: bigint; policy?: (intent: Intent, built: BuiltTransaction) => Promise<GuardPolicy> } = {}): Promise<Setup> {
    const keypair = await fundedWallet(sim, over.lamports ?? 1_000_000_000n, over.usdc ? [[USDC, over.usdc]] : []);
    const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
    const store = new IntentStore(redis, prefix);
    const calls = { build: 0, guard: 0 };
    const realPolicy = async (intent: Intent, built: BuiltTransaction) =>
      await guardPolicyFor(intent, built, { wallet: wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: [vault], market: await market(), maxPriceAgeMs: 60_000, now: Date.now() });
    const policy = over.policy ?? realPolicy;
    const deps: ExecutorDeps = {
      store,
      jup,
      rpc,
      wallet,
      killSwitch: () => Promise.resolve(null),
      logger: process.env.EXEC_LOG ? createLogger({ level: 'debug' }) : silentLogger,
      maxAttempts: 2,
      guardRetry: { firstMs: 20, maxMs: 50 },
      build: async (intent, intentId, signal) => {
        calls.build += 1;
        return buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal });
      },
      guard: async (intent, built) => {
        calls.guard += 1;
        return guardTransaction(built.tx, await policy(intent, built), rpc);
      },
      ...over,
    };
    return { wallet, keypair, store, executor: new Executor(deps), deps, calls };
  }

  async function record(store: IntentStore, intent: Intent, o: { deadline?: number } = {}): Promise<string> {
    const id = `t.${intent.kind}.${randomUUID().slice(0, 12)}`;
    await store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: o.deadline ?? Date.now() + DAY });
    return id;
  }

  const swap = (inputMint: string, outputMint: string, amount: bigint, extra: Partial<Extract<Intent, { kind: 'swap' }>> = {}): Intent => ({ kind: 'swap', via: 'ultra', inputMint, outputMint, amount, ...extra });

  /** Moves the simulator's clock past any blockhash and order still alive. */
  const expireEverything = () => control(sim, '/clock', { advanceMs: 200_000 });

  /** Resolves once the intent is in `state` (at `attempt`, when given), polled from the ledger, then runs `then`. */
  async function whenState(store: IntentStore, id: string, state: string, then: () => Promise<unknown>, attempt?: number): Promise<void> {
    // Bounded only so that a stuck executor fails this test rather than hang it; a slow machine just waits longer.
    for (let i = 0; i < 2_400; i += 1) {
      const rec = await store.get(id);
      if (rec?.state === state && (attempt === undefined || rec.attempt === attempt)) {
        await then();
        return;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`intent ${id} never reached ${state}`);
  }

  it('lands an honest Ultra swap once, with its signature and slot', async () => {
    const s = await setup();
    const id = await record(s.store, swap(SOL, USDC, 10_000_000n));
    expect(await s.executor.execute(id)).toEqual({ state: 'landed' });
    const rec = (await s.store.get(id))!;
    expect(rec.signatures).toEqual([rec.signature]);
    expect((await ledger(sim)).filter((t) => t.signature === rec.signature)).toHaveLength(1);
  });

  it('ends an intent past its deadline as expired without building anything', async () => {
    const s = await setup();
    const id = await record(s.store, swap(SOL, USDC, 10_000_000n), { deadline: Date.now() - 1 });
    expect(await s.executor.execute(id)).toEqual({ state: 'expired' });
    expect((await s.store.get(id))!.error?.code).toBe('DEADLINE');
    expect(s.calls.build).toBe(0);
  });

  it('ends an intent the venue cannot carry out (a build refusal, a 400) without retrying it', async () => {
    const s = await setup();
    const tooLoose = await record(s.store, swap(SOL, USDC, 10_000_000n, { slippageBps: 500 }));
    expect(await s.executor.execute(tooLoose)).toEqual({ state: 'rejected' });
    expect((await s.store.get(tooLoose))!.error?.code).toBe('RISK_SLIPPAGE');
    const unknown = Keypair.generate().publicKey.toBase58();
    const noRoute = await record(s.store, swap(SOL, unknown, 10_000_000n));
    expect(await s.executor.execute(noRoute)).toEqual({ state: 'failed' });
    expect((await s.store.get(noRoute))!.signatures).toEqual([]);
  });

  it('builds and signs nothing once the kill switch is halted, and stops between the guard and the signature', async () => {
    const halted: KillSwitchState = { mode: 'halt', reason: 'operator', at: 1, by: 'cli' };
    const before = await setup({ killSwitch: () => Promise.resolve(halted) });
    const a = await record(before.store, swap(SOL, USDC, 10_000_000n));
    expect(await before.executor.execute(a)).toEqual({ state: 'rejected' });
    expect(before.calls.build).toBe(0);
    let reads = 0;
    const between = await setup({ killSwitch: () => Promise.resolve(++reads >= 2 ? halted : null) });
    const b = await record(between.store, swap(SOL, USDC, 10_000_000n));
    expect(await between.executor.execute(b)).toEqual({ state: 'rejected' });
    const rec = (await between.store.get(b))!;
    expect(rec.error?.code).toBe('KILL_SWITCH');
    expect(between.calls.guard).toBe(1);
    expect(rec.signatures).toEqual([]);
  });

  it('lands as failed when the transaction lands with an error (the market moved past the slippage)', async () => {
    const usd = (await market()).prices[SOL]!.usd;
    let reads = 0;
    // The second kill-switch read comes after the guard passed and before the signature: the market moves then.
    const s = await setup({ killSwitch: async () => (++reads === 2 ? (await control(sim, '/price', { mint: SOL, usd: usd * 0.5 }), null) : null) });
    try {
      const id = await record(s.store, swap(SOL, USDC, 10_000_000n, { slippageBps: 50 }));
      expect(await s.executor.execute(id)).toEqual({ state: 'failed' });
      const rec = (await s.store.get(id))!;
      expect(rec.error?.code).toBe('TX_FAILED');
      expect(rec.error?.message).toContain('6001');
    } finally {
      await control(sim, '/price', { mint: SOL, usd });
    }
  });

  it('expires after its attempts when every signature provably never lands, one new attempt per proven expiry', async () => {
    await control(sim, '/faults', { kind: 'server-error', pathPrefix: '/ultra/v1/execute', status: 503 });
    try {
      const s = await setup();
      const id = await record(s.store, swap(SOL, USDC, 10_000_000n));
      const run = s.executor.execute(id);
      // Each attempt is sent and never lands; only once the clock passes its blockhash is it provably gone.
      for (const attempt of [1, 2]) await whenState(s.store, id, 'submitted', expireEverything, attempt);
      expect(await run).toEqual({ state: 'expired' });
      const rec = (await s.store.get(id))!;
      expect(rec.error?.code).toBe('EXPIRED');
      expect(rec.attempt).toBe(2);
      expect(rec.signatures).toHaveLength(2);
      expect((await ledger(sim)).filter((t) => rec.signatures.includes(t.signature))).toEqual([]);
    } finally {
      await control(sim, '/faults', undefined, 'DELETE');
    }
  });

  it('sends bytes the venue forgot (Ultra -1) through RPC when they are complete, and they land', async () => {
    const s = await setup({ policy: () => Promise.resolve(nothingPolicy(s.wallet.publicKey, vault)) });
    const memo = async (intent: Intent, intentId: string): Promise<BuiltTransaction> => {
      void intent;
      void intentId;
      const { blockhash, lastValidBlockHeight } = await rpc.connection.getLatestBlockhash();
      const ix = new TransactionInstruction({ programId: new PublicKey(PROGRAM_IDS.memoV2), keys: [], data: Buffer.from(`forgotten ${randomUUID()}`) });
      const tx = new VersionedTransaction(new TransactionMessage({ payerKey: s.wallet.publicKey, recentBlockhash: blockhash, instructions: [ix] }).compileToV0Message());
      return { tx, route: { via: 'ultra', requestId: randomUUID() }, lastValidBlockHeight: BigInt(lastValidBlockHeight), quote: {} };
    };
    const exec = new Executor({ ...s.deps, build: memo, guard: async (_i, built) => guardTransaction(built.tx, nothingPolicy(s.wallet.publicKey, vault), rpc) });
    const id = await record(s.store, swap(SOL, USDC, 1_000n));
    expect(await exec.execute(id)).toEqual({ state: 'landed' });
    const rec = (await s.store.get(id))!;
    const status = await rpc.status(rec.signature!);
    expect(status.value?.err).toBeNull();
  });

  it('does not fail an intent whose send the node refused in preflight: it waits for the proof of expiry', async () => {
    const stranger = (await fundedWallet(sim, 10_000_000n)).publicKey;
    let drained = false;
    const s = await setup({
      lamports: 200_000_000n,
      // The payee counts as the venue's declared counterparty: the guard passes the payment, the node then refuses it.
      policy: () => Promise.resolve(nothingPolicy(s.wallet.publicKey, vault, 50_000_000n, stranger.toBase58())),
      maxAttempts: 1,
      // Between the guard and the signature, another transaction of the wallet empties it: the send fails preflight.
      killSwitch: async () => {
        if (s && s.calls.guard > 0 && !drained) {
          drained = true;
          const drain = new VersionedTransaction(new TransactionMessage({ payerKey: s.keypair.publicKey, recentBlockhash: (await rpc.connection.getLatestBlockhash()).blockhash, instructions: [SystemProgram.transfer({ fromPubkey: s.keypair.publicKey, toPubkey: stranger, lamports: 180_000_000 })] }).compileToV0Message());
          drain.sign([s.keypair]);
          await rpc.send(drain.serialize());
        }
        return null;
      },
      build: async () => {
        s.calls.build += 1;
        const { blockhash, lastValidBlockHeight } = await rpc.connection.getLatestBlockhash();
        const pay = SystemProgram.transfer({ fromPubkey: s.wallet.publicKey, toPubkey: stranger, lamports: 50_000_000 });
        const tx = new VersionedTransaction(new TransactionMessage({ payerKey: s.wallet.publicKey, recentBlockhash: blockhash, instructions: [pay] }).compileToV0Message());
        return { tx, route: { via: 'rpc' }, lastValidBlockHeight: BigInt(lastValidBlockHeight), quote: {} };
      },
    });
    const id = await record(s.store, { kind: 'send.clawback', invitePda: stranger.toBase58() });
    const run = s.executor.execute(id);
    await whenState(s.store, id, 'submitted', async () => {
      // Still live well after the refusal: not failed on a preflight error.
      await new Promise((r) => setTimeout(r, 300));
      expect((await s.store.get(id))!.state).toBe('submitted');
      await expireEverything();
    });
    expect(await run).toEqual({ state: 'expired' });
    expect((await s.store.get(id))!.error?.code).toBe('EXPIRED');
  });

  it('checks again, then lands, when the guard could not check at first; and expires when it never can', async () => {
    let unchecked = 2;
    const flaky = await setup({
      guard: async (intent, built) => {
        if (unchecked-- > 0) throw new GuardUnavailable('blockhash-not-found', 'the node lags');
        return guardTransaction(built.tx, await guardPolicyFor(intent, built, { wallet: flaky.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: [vault], market: await market(), maxPriceAgeMs: 60_000, now: Date.now() }), rpc);
      },
    });
    const a = await record(flaky.store, swap(SOL, USDC, 10_000_000n));
    expect(await flaky.executor.execute(a)).toEqual({ state: 'landed' });

    const never = await setup({ guard: () => Promise.reject(new GuardUnavailable('rpc', 'down')) });
    const b = await record(never.store, swap(SOL, USDC, 10_000_000n), { deadline: Date.now() + 400 });
    expect(await never.executor.execute(b)).toEqual({ state: 'expired' });
    const rec = (await never.store.get(b))!;
    expect(rec.error?.code).toBe('GUARD_UNCHECKED');
    expect(rec.signatures).toEqual([]);
  });

  it('stops with a halt error on a signed intent that lost its bytes, instead of signing again', async () => {
    const s = await setup();
    const id = await record(s.store, swap(SOL, USDC, 10_000_000n));
    await s.store.move(id, null, 'built', {});
    await s.store.move(id, null, 'guarded', {});
    await s.store.move(id, null, 'signed', { signature: '1111', signatures: ['1111'] });
    const err = await s.executor.execute(id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KeeperError);
    expect((err as KeeperError).code).toBe('INTENT_CORRUPT');
    expect((err as KeeperError).action).toBe('halt');
    expect(s.calls.build).toBe(0);
  });

  it('does not send a signed transaction whose record Redis could not make durable', async () => {
    const s = await setup();
    const store = new IntentStore(redis, prefix, { durability: { mode: 'waitaof', replicas: 0, timeoutMs: 200 } });
    const exec = new Executor({ ...s.deps, store });
    const id = await record(store, swap(SOL, USDC, 10_000_000n));
    const err = await exec.execute(id).catch((e: unknown) => e);
    // This Redis (7.0) has no WAITAOF: durability cannot be confirmed, so the bytes never leave.
    expect((err as KeeperError).code).toBe('REDIS_NOT_DURABLE');
    await store.close();
    const rec = (await s.store.get(id))!;
    expect(rec.state).toBe('signed');
    // A worker that finds it signed later must not send it either while durability cannot be confirmed.
    const again = new IntentStore(redis, prefix, { durability: { mode: 'waitaof', replicas: 0, timeoutMs: 200 } });
    const resumed = await new Executor({ ...s.deps, store: again }).execute(id).catch((e: unknown) => e);
    await again.close();
    expect((resumed as KeeperError).code).toBe('REDIS_NOT_DURABLE');
    expect((await s.store.get(id))!.state).toBe('signed');
    expect((await ledger(sim)).filter((t) => t.signature === rec.signature)).toEqual([]);
  });
});

/** A policy for a transaction that may move nothing but fees, plus `lamports` to `payee` (a plain transfer). */
function nothingPolicy(wallet: PublicKey, vault: string, lamports = 0n, payee?: string): GuardPolicy {
  return {
    wallet,
    area: 'send',
    allowedPrograms: allowedProgramsFor('send'),
    coSigners: new Set([vault, ...(payee ? [payee] : [])]),
    maxPriorityFeeLamports: 1_000_000n,
    spend: lamports > 0n ? { kind: 'counterparty', mint: SOL, max: lamports } : { kind: 'nothing' },
    mayUnwrapSol: true,
    allowToken2022Mints: new Set(),
  };
}

