import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { VersionedTransaction } from '@solana/web3.js';
import { buildTransaction } from '../../src/execution/build.js';
import { Executor } from '../../src/execution/executor.js';
import { guardPolicyFor } from '../../src/execution/guardPolicy.js';
import { intentSchema, type Intent, type IntentInput } from '../../src/sdk/intents.js';
import { guardTransaction } from '../../src/solana/guard.js';
import { maximumSwapInput } from '../../src/solana/swapValue.js';
import { balances, control, ledger, JUP, SOL, USDC } from '../helpers/sim.js';
import { executorFor, marketOf, useExecutorWorld } from '../helpers/executorKit.js';

/** 5,000 SOL: enough that Metis splits it over all four SOL/USDC pools, a route too large for one transaction. */
const LARGE_SOL = 5_000_000_000_000n;
const swap = (i: Omit<Extract<IntentInput, { kind: 'swap' }>, 'kind'>): Intent => intentSchema.parse({ kind: 'swap', ...i });

// Metis swaps (quote + swap, sent through RPC) carried out by the real Executor (builder, guard with the intent's
// own policy and the feed, signature, RPC submit and confirmation) against the simulator and a real Redis ledger.
describe('Metis swaps through the executor', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('exec-metis');

  describe('when the route does not fit in 1,232 bytes', () => {
    it('quotes again with a lower maxAccounts, builds again, and lands the smaller route', async () => {
      const market = await marketOf(world, [SOL, USDC]);
      const s = await executorFor(world, { lamports: LARGE_SOL + 1_000_000_000n, market });
      const { rec, result } = await s.run(swap({ via: 'metis', inputMint: SOL, outputMint: USDC, amount: LARGE_SOL, slippageBps: 100 }));
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports.map((r) => r.violations)).toEqual([[]]);
      // 64 and 56 accounts still give the four-pool route; 48 gives one that fits.
      expect(rec.quote).toMatchObject({ maxAccounts: 48, requotes: 2, swapMode: 'ExactIn' });
      expect(rec.quote!.bytes as number).toBeLessThanOrEqual(1232);
      const [onChain] = (await ledger(world.sim)).filter((t) => t.signature === rec.signature);
      expect(onChain).toMatchObject({ kind: 'swap', inputAmount: LARGE_SOL.toString(), outputMint: USDC });
      expect((await balances(world.sim, s.wallet.address)).tokens[USDC]).toBe(BigInt(onChain!.outputAmount!));
    });

    it('fails with the sizes it met when no maxAccounts tried gives a transaction that fits, nothing signed', async () => {
      const market = await marketOf(world, [SOL, USDC]);
      const narrow = await executorFor(world, { lamports: LARGE_SOL + 1_000_000_000n, market });
      // The keeper's executor with a shorter ladder of maxAccounts: 64 and 56 only, both giving the four-pool route.
      const executor = new Executor({
        ...narrow.deps,
        build: (intent, intentId, signal) => buildTransaction(intent, { jup: world.jup, rpc: world.rpc, wallet: narrow.wallet, intentId, maxSlippageBps: 300, usdPrice: () => undefined, maxAccountsSteps: [64, 56], signal }),
      });
      const before = await balances(world.sim, narrow.wallet.address);
      const id = `t.swap.${randomUUID().slice(0, 12)}`;
      await narrow.store.create({ id, instance: 't', strategy: 'test@1', intent: swap({ via: 'metis', inputMint: SOL, outputMint: USDC, amount: LARGE_SOL, slippageBps: 100 }), createdAt: Date.now(), deadline: Date.now() + 86_400_000 });
      expect((await executor.execute(id)).state).toBe('failed');
      const rec = (await narrow.store.get(id))!;
      expect(rec.error?.code).toBe('SWAP_TX_TOO_LARGE');
      expect(rec.error?.message).toMatch(/is \d{4} bytes, over the 1232-byte limit, at every maxAccounts tried \(maxAccounts 64: \d{4} bytes; maxAccounts 56: \d{4} bytes\)/);
      expect(rec.signature).toBeNull();
      expect(narrow.reports).toEqual([]);
      expect(await balances(world.sim, narrow.wallet.address)).toEqual(before);
    });
  });

  describe('ExactOut', () => {
    it('lands an exact output of a token, paying no more input than the feed price plus the slippage', async () => {
      const market = await marketOf(world, [USDC, JUP]);
      const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const intent = swap({ via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n, slippageBps: 50 });
      const { rec, result } = await s.run(intent);
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports.map((r) => r.violations)).toEqual([[]]);
      const after = await balances(world.sim, s.wallet.address);
      expect(after.tokens[JUP]).toBe(5_000_000n);
      const paid = 20_000_000n - after.tokens[USDC]!;
      const bound = maximumSwapInput({ inputMint: USDC, outputMint: JUP, swapMode: 'ExactOut', amount: 5_000_000n, inputUsd: market.prices[USDC]!.usd, outputUsd: market.prices[JUP]!.usd, inputDecimals: 6, outputDecimals: 6, slippageBps: 50, feeBps: 0 });
      expect(paid).toBeGreaterThan(0n);
      expect(paid).toBeLessThanOrEqual(bound);
      expect(rec.quote).toMatchObject({ swapMode: 'ExactOut', outAmount: 5_000_000n });
      expect((await ledger(world.sim)).find((t) => t.signature === rec.signature)).toMatchObject({ kind: 'swap', outputMint: JUP, outputAmount: '5000000', inputAmount: paid.toString() });
    });

    it('lands an exact output of SOL: the lamports gained are the amount asked, the fee apart', async () => {
      const market = await marketOf(world, [USDC, SOL]);
      const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 50_000_000n]], market });
      const before = await balances(world.sim, s.wallet.address);
      const { rec, result } = await s.run(swap({ via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: SOL, amount: 123_456_789n, slippageBps: 100 }));
      expect(result).toEqual({ state: 'landed' });
      expect(s.reports[0]!.violations).toEqual([]);
      const landed = await world.rpc.connection.getTransaction(rec.signature!, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      const after = await balances(world.sim, s.wallet.address);
      expect(after.lamports - before.lamports + BigInt(landed!.meta!.fee)).toBe(123_456_789n);
    });

    it('refuses, nothing signed, a venue asking more input than the feed price plus slippage allows', async () => {
      // The feed is read, then the venue prices JUP 10 % above it: its quote and transaction agree with each other
      // (the threshold covers the input), but the input is far above what the exact output is worth at the feed.
      const market = await marketOf(world, [USDC, JUP]);
      const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 20_000_000n]], market });
      const before = await balances(world.sim, s.wallet.address);
      await control(world.sim, '/price', { mint: JUP, usd: market.prices[JUP]!.usd * 1.1 });
      try {
        const { rec, result } = await s.run(swap({ via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n, slippageBps: 50 }));
        expect(result.state).toBe('rejected');
        expect(rec.error?.code).toBe('GUARD_REFUSED');
        expect(rec.error?.rule).toBe('token-outflow');
        const [violation] = s.reports[0]!.violations;
        expect(violation!.message).toMatch(/the swap would pay \d+ base units of EPjF\w+; the intent allows \d+/);
        // The venue's own threshold would have allowed it: the bound came from the feed, not the quote.
        expect(BigInt(String(rec.quote!.maxInAmount))).toBeGreaterThan(BigInt(String(rec.quote!.inAmount)));
        expect(rec.signature).toBeNull();
        expect(rec.signedTx).toBeNull();
        expect(await balances(world.sim, s.wallet.address)).toEqual(before);
      } finally {
        await control(world.sim, '/price', { mint: JUP, usd: market.prices[JUP]!.usd });
      }
    });

    it('refuses a transaction that delivers less than the exact output asked', async () => {
      const market = await marketOf(world, [USDC, JUP]);
      const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 20_000_000n]], market });
      // The venue's transaction for one base unit less than the intent asks.
      const { raw } = await world.jup.swap.getQuote({ inputMint: USDC, outputMint: JUP, amount: 4_999_999n, swapMode: 'ExactOut', slippageBps: 50 });
      const built = await world.jup.swap.buildSwap({ userPublicKey: s.wallet.address, quoteResponse: raw });
      const intent = swap({ via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n, slippageBps: 50 });
      const policy = await guardPolicyFor(intent, {}, { wallet: s.wallet.publicKey, risk: { maxSlippageBps: 300, maxPriorityFeeLamports: 1_000_000n, allowToken2022Mints: [] }, coSigners: world.coSigners, market, maxPriceAgeMs: 60_000, now: Date.now() });
      const report = await guardTransaction(VersionedTransaction.deserialize(Buffer.from(built.swapTransaction, 'base64')), policy, world.rpc);
      expect(report.violations).toEqual([{ rule: 'inflow-short', message: `the wallet would gain 4999999 base units of ${JUP}; the ExactOut intent asks for exactly 5000000` }]);
    });

    it('is refused at parse time through Ultra, whose /order takes an input amount only', () => {
      const parsed = intentSchema.safeParse({ kind: 'swap', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n });
      expect(parsed.success).toBe(false);
      expect(parsed.error!.issues).toEqual([expect.objectContaining({ path: ['swapMode'], message: "an ExactOut swap needs via: 'metis' (Ultra's /order takes an input amount only)" })]);
      expect(intentSchema.safeParse({ kind: 'swap', via: 'metis', swapMode: 'ExactOut', inputMint: USDC, outputMint: JUP, amount: 5_000_000n }).success).toBe(true);
    });
  });
});
