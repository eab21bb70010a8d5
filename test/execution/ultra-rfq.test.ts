// Ultra's real routes through the keeper's executor (builder, guard with the intent's policy and the feed, signature,
// execute, confirmation by the transaction's id) against the simulator and a real Redis ledger: a JupiterZ order,
// whose market maker pays the fee and signs after the wallet, and a gasless Metis order, whose fee Jupiter's gas
// wallet pays, settle with the wallet paying no fee; the config's excludeRouters reaches the venue; the quote-age
// bound refuses a quote that would stay landable too long, and rebuilds an order that grew too old before signing.
import { randomUUID } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { PublicKey, TransactionInstruction, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor, type ExecutorDeps } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { PROGRAM_IDS, type ApiArea } from '../../src/solana/programs.js';
import { intentSchema, type Intent } from '../../src/sdk/intents.js';
import type { UltraOrder } from '../../src/jupiter/ultra/getOrder.js';
import { balances, control, ledger, JUP, SOL, USDC } from '../helpers/sim.js';
import { executorFor, marketOf, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

const swap = (amount: bigint, outputMint = SOL): Intent => intentSchema.parse({ kind: 'swap', via: 'ultra', inputMint: USDC, outputMint, amount });

interface Routing {
  maker: string;
  gasWallet: string;
}

/** Records an intent for `s` and runs it through `executor` (another than s's own, with some part replaced). */
async function runWith(s: WalletExecutor, executor: Executor, intent: Intent) {
  const id = `t.swap.${randomUUID().slice(0, 12)}`;
  await s.store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
  const result = await executor.execute(id);
  return { id, result, rec: (await s.store.get(id))! };
}

describe('Ultra\'s JupiterZ and gasless routes through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('exec-ultra-rfq');
  let routing: Routing;
  beforeEach(async () => {
    routing = await control<Routing>(world.sim, '/ultra/route', { routers: ['jupiterz', 'metis'], rfqExpiryMs: 55_000 });
  });

  describe('when Ultra routes the swap to JupiterZ', () => {
    it('settles it: the maker pays the fee and signs after the wallet, the wallet gains exactly the quoted SOL', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const { rec, result } = await s.run(swap(20_000_000n));
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports.map((r) => r.violations)).toEqual([[]]);
      expect(s.reports[0]).toMatchObject({ feePayer: routing.maker, signers: [routing.maker, s.wallet.address] });
      expect(rec.quote).toMatchObject({ router: 'jupiterz', swapType: 'rfq', gasless: true, feePayer: routing.maker, maker: routing.maker });
      // The record's signature is the transaction's id, the maker's signature, learned from execute and verified.
      const [settled] = (await ledger(world.sim)).filter((t) => t.requestId === rec.requestId);
      expect(settled?.signature).toBe(rec.signature);
      expect(rec.signatures).toEqual([rec.signature]);
      const after = await balances(world.sim, s.wallet.address);
      expect(after.lamports).toBe(1_000_000_000n + BigInt(settled!.outputAmount!));
      expect(after.tokens[USDC]).toBe(0n);
      // The chain charged the maker: the wallet's fee budget counts nothing for it.
      expect(await world.rpc.transactionFee(rec.signature!)).toBeGreaterThan(0n);
      expect(await world.rpc.transactionFee(rec.signature!, s.wallet.address)).toBe(0n);
    });

    it('settles one that opens the wallet\'s output account, paid and signed by Jupiter\'s gas wallet too', async () => {
      const market = await marketOf(world, [USDC, JUP]);
      const s = await executorFor(world, { lamports: 5_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const { rec, result } = await s.run(swap(20_000_000n, JUP));
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports[0]).toMatchObject({ feePayer: routing.maker, signers: [routing.maker, s.wallet.address, routing.gasWallet], violations: [] });
      const after = await balances(world.sim, s.wallet.address);
      expect(after.lamports).toBe(5_000_000n);
      expect(after.tokens[JUP]).toBe(BigInt((await ledger(world.sim)).find((t) => t.signature === rec.signature)!.outputAmount!));
    });

    it('resumes one a worker signed and left before it was sent (no id yet): the same bytes land once', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const intent = swap(20_000_000n);
      const built = await buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId: 'resume', maxSlippageBps: 300, usdPrice: () => undefined });
      s.wallet.sign(built.tx);
      const id = `t.swap.${randomUUID().slice(0, 12)}`;
      await s.store.create({ id, instance: 't', strategy: 'test@1', intent, createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
      const requestId = 'requestId' in built.route ? built.route.requestId : null;
      await s.store.move(id, null, 'built', { requestId, route: { ...built.route }, quote: built.quote });
      await s.store.move(id, null, 'guarded', {});
      // What the executor persists before the bytes leave: the signed transaction, and no signature of its own yet.
      await s.store.move(id, null, 'signed', { signedTx: Buffer.from(built.tx.serialize()).toString('base64'), signature: null, signatures: [], lastValidBlockHeight: built.lastValidBlockHeight, route: { ...built.route, minSlot: await world.rpc.slot() } });
      expect(await s.executor.execute(id)).toEqual({ state: 'landed' });
      const rec = (await s.store.get(id))!;
      expect(s.reports).toEqual([]);
      expect((await ledger(world.sim)).filter((t) => t.requestId === requestId).map((t) => t.signature)).toEqual([rec.signature]);
      expect(rec.signatures).toEqual([rec.signature]);
    });

    it('finds the transaction in the wallet\'s history when execute\'s answers are all lost, and settles it once', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      // Every answer of execute for the maker's transactions is lost after it settled (re-sends included).
      const { id: fault } = await control<{ id: number }>(world.sim, '/faults', { kind: 'lose-execute-response', wallet: routing.maker, pathPrefix: '/ultra/v1/execute' });
      try {
        const { rec, result } = await s.run(swap(20_000_000n));
        expect(result).toEqual({ state: 'landed' });
        const settled = (await ledger(world.sim)).filter((t) => t.requestId === rec.requestId);
        expect(settled.map((t) => t.signature)).toEqual([rec.signature]);
        expect(rec.attempt).toBe(1);
        const { faults } = await control<{ faults: Array<{ id: number; hits: number }> }>(world.sim, '/faults', undefined, 'GET');
        expect(faults.find((f) => f.id === fault)?.hits).toBeGreaterThanOrEqual(1);
      } finally {
        await control(world.sim, `/faults/${fault}`, undefined, 'DELETE');
      }
    });
  });

  describe('when a wallet under 0.01 SOL gets Ultra\'s gasless support on Metis', () => {
    it('settles it with Jupiter\'s gas wallet as fee payer, the wallet paying nothing', async () => {
      await control(world.sim, '/ultra/route', { routers: ['metis'] });
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const { rec, result } = await s.run(swap(20_000_000n));
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports[0]).toMatchObject({ feePayer: routing.gasWallet, violations: [] });
      expect(rec.quote).toMatchObject({ router: 'metis', gasless: true, feePayer: routing.gasWallet });
      const settled = (await ledger(world.sim)).find((t) => t.signature === rec.signature)!;
      expect((await balances(world.sim, s.wallet.address)).lamports).toBe(1_000_000n + BigInt(settled.outputAmount!));
    });
  });

  describe('when the config excludes JupiterZ (api.ultra.excludeRouters)', () => {
    it('sends excludeRouters with the order, and the venue routes through Metis with the wallet paying', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const asked: Array<readonly string[] | undefined> = [];
      const jup = { ...world.jup, ultra: { ...world.jup.ultra, getOrder: (p: Parameters<typeof world.jup.ultra.getOrder>[0], o?: Parameters<typeof world.jup.ultra.getOrder>[1]) => (asked.push(p.excludeRouters), world.jup.ultra.getOrder(p, o)) } };
      const executor = new Executor({ ...s.deps, build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, ultra: { excludeRouters: ['jupiterz'] }, signal }) });
      const { rec, result } = await runWith(s, executor, swap(20_000_000n));
      expect(result).toEqual({ state: 'landed' });
      expect(asked).toEqual([['jupiterz']]);
      expect(rec.quote).toMatchObject({ router: 'metis', feePayer: s.wallet.address });
      expect(s.reports[0]?.feePayer).toBe(s.wallet.address);
    });
  });

  describe('when a quote would stay landable past api.ultra.maxQuoteAge', () => {
    it('refuses it before anything is built further, on the order\'s expireAt', async () => {
      await control(world.sim, '/ultra/route', { rfqExpiryMs: 600_000 });
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market: await marketOf(world, [USDC, SOL]) });
      const { rec, result } = await s.run(swap(20_000_000n));
      expect(result).toEqual({ state: 'rejected' });
      expect(rec.error).toMatchObject({ code: 'ULTRA_QUOTE_AGE' });
      expect(rec.signature).toBeNull();
      expect(s.reports).toEqual([]);
    });

    it('refuses it in the guard, on the fill\'s own expire_at, when the venue\'s fields claim a shorter life (rule quote-expiry)', async () => {
      await control(world.sim, '/ultra/route', { rfqExpiryMs: 600_000 });
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market: await marketOf(world, [USDC, SOL]) });
      const lie = (o: UltraOrder): UltraOrder => ({ ...o, expireAt: String(Math.floor(Date.now() / 1000) + 50) });
      const jup = { ...world.jup, ultra: { ...world.jup.ultra, getOrder: async (p: Parameters<typeof world.jup.ultra.getOrder>[0], o?: Parameters<typeof world.jup.ultra.getOrder>[1]) => lie(await world.jup.ultra.getOrder(p, o)) } };
      const executor = new Executor({ ...s.deps, build: (intent, intentId, signal) => buildTransaction(intent, { jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, signal }) });
      const { rec, result } = await runWith(s, executor, swap(20_000_000n));
      expect(result).toEqual({ state: 'rejected' });
      expect(rec.error).toMatchObject({ code: 'GUARD_REFUSED', rule: 'quote-expiry' });
      expect(rec.error?.message).toMatch(/quote-expiry: the transaction stays landable until .*api\.ultra\.maxQuoteAge, 60 s from the order's request/);
      expect(rec.signature).toBeNull();
    });

    it('builds an order again rather than sign it once it is older than the bound', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      // The executor's clock jumps 61 s after the first guard check: the first order is then too old to sign.
      let skew = 0;
      let builds = 0;
      const deps: ExecutorDeps = {
        ...s.deps,
        now: () => Date.now() + skew,
        build: (intent, intentId, signal) => {
          builds += 1;
          return s.deps.build(intent, intentId, signal);
        },
        guard: async (intent, built) => {
          const report = await s.deps.guard(intent, built);
          skew = builds === 1 ? 61_000 : 0;
          return report;
        },
      };
      const { result, rec } = await runWith(s, new Executor(deps), swap(20_000_000n));
      expect(result).toEqual({ state: 'landed' });
      expect(builds).toBe(2);
      expect(s.reports.map((r) => r.violations)).toEqual([[], []]);
      expect((await ledger(world.sim)).filter((t) => t.requestId === rec.requestId)).toHaveLength(1);
    });
  });
  describe('when a route calls a program outside Ultra\'s own at the top level (as DFlow\'s and OKX\'s do)', () => {
    it('refuses it unless the config lists it for Ultra (venue.allowPrograms), and allows it once listed', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const intent = swap(20_000_000n);
      const built = await buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId: 'extra-program', maxSlippageBps: 300, usdPrice: () => undefined });
      // A reviewed program stands in for a router's: the simulator runs Jupiter Send's id as a no-op program.
      const reviewed = PROGRAM_IDS.jupiterSend;
      const m = TransactionMessage.decompile(built.tx.message);
      const tx = new VersionedTransaction(new TransactionMessage({ ...m, instructions: [...m.instructions, new TransactionInstruction({ programId: new PublicKey(reviewed), keys: [], data: Buffer.from([1]) })] }).compileToV0Message());
      const check = async (extraPrograms?: Partial<Record<ApiArea, string[]>>) => {
        const policy = await guardPolicyFor(intent, built, { wallet: s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, extraPrograms, market, maxPriceAgeMs: 60_000, now: Date.now() });
        return (await guardTransaction(tx, policy, world.rpc)).violations.map((v) => v.rule);
      };
      expect(await check()).toEqual(['program-not-allowed']);
      expect(await check({ swap: [reviewed] })).toEqual(['program-not-allowed']);
      expect(await check({ ultra: [reviewed] })).toEqual([]);
    });
  });

  // Last: it moves the venue's clock 100 s ahead of the keeper's wall clock.
  describe('when the venue never lands the maker\'s side', () => {
    it('proves the first attempt absent from the wallet\'s history once its blockhash expired, and lands a second one', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 1_000_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const { id: fault } = await control<{ id: number }>(world.sim, '/faults', { kind: 'server-error', pathPrefix: '/ultra/v1/execute' });
      const hits = async () => (await control<{ faults: Array<{ id: number; hits: number }> }>(world.sim, '/faults', undefined, 'GET')).faults.find((f) => f.id === fault)?.hits ?? 0;
      // The keeper's clock (an order's age) keeps to the venue's, which the test moves forward.
      let offset = 0;
      const executor = new Executor({ ...s.deps, build: (intent, intentId, signal) => buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: s.wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, now: () => Date.now() + offset, signal }) });
      const running = runWith(s, executor, swap(20_000_000n));
      try {
        // Once the first execute failed, the chain moves past the blockhash's last valid height, and the venue recovers.
        while ((await hits()) < 1) await new Promise((r) => setTimeout(r, 50));
        offset = 100_000;
        await control(world.sim, '/clock', { advanceMs: 100_000 });
      } finally {
        await control(world.sim, `/faults/${fault}`, undefined, 'DELETE');
      }
      const { rec, result } = await running;
      expect(rec.error).toBeNull();
      expect(result).toEqual({ state: 'landed' });
      expect(rec.attempt).toBe(2);
      const settled = (await ledger(world.sim)).filter((t) => t.wallet === s.wallet.address && t.kind === 'ultra');
      expect(settled.map((t) => t.signature)).toEqual([rec.signature]);
      // The first attempt's id never came (its fee payer never signed): the record holds only the second's.
      expect(rec.signatures).toEqual([rec.signature]);
    });
  });
});
