import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { ExecuteError, OrderError, BadRequestError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { ATTACKER } from '../../src/sim/products/swapTx.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, SOL, USDC, JUP } from '../helpers/sim.js';

describe('the simulator as an Ultra venue', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('when asked for a quote without a taker', () => {
    it('returns a priced route and no transaction', async () => {
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 1_000_000_000n });
      expect(order.transaction).toBeNull();
      expect(order.outAmount).toBeGreaterThan(100_000_000n);
      expect(order.otherAmountThreshold).toBeLessThanOrEqual(order.outAmount);
      expect(order.requestId).toMatch(/^[0-9a-f-]{36}$/);
      expect(order.routePlan.length).toBeGreaterThan(0);
      expect(order.feeBps).toBe(2);
    });

    it('gives a worse price per unit for a much larger size', async () => {
      const small = await jup.ultra.getOrder({ inputMint: JUP, outputMint: USDC, amount: 1_000_000n });
      const large = await jup.ultra.getOrder({ inputMint: JUP, outputMint: USDC, amount: 5_000_000_000_000n });
      const perUnitSmall = Number(small.outAmount) / 1e6;
      const perUnitLarge = Number(large.outAmount) / 5_000_000e6;
      expect(perUnitLarge).toBeLessThan(perUnitSmall * 0.99);
    });

    it('answers 400 "Failed to get quotes" for a mint it does not list', async () => {
      const err = await jup.ultra.getOrder({ inputMint: SOL, outputMint: '11111111111111111111111111111112', amount: 1_000n }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(BadRequestError);
      expect((err as BadRequestError).body).toEqual({ error: 'Failed to get quotes' });
    });
  });

  describe('when a funded taker orders, signs and executes', () => {
    it('settles once, and executing the same request again returns the same signature', async () => {
      const wallet = await fundedWallet(sim, 3_000_000_000n);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 500_000_000n, taker: wallet.publicKey.toBase58() });
      const signed = signBase64(order.transaction!, wallet);
      const before = await balances(sim, wallet);
      const first = await jup.ultra.executeOrder({ signedTransaction: signed, requestId: order.requestId });
      const second = await jup.ultra.executeOrder({ signedTransaction: signed, requestId: order.requestId });
      expect(first.status).toBe('Success');
      expect(second.signature).toBe(first.signature);
      expect(first.totalOutputAmount).toBe(order.outAmount);
      const after = await balances(sim, wallet);
      expect(after.tokens[USDC]).toBe(order.outAmount);
      const spent = before.lamports - after.lamports;
      expect(spent).toBeGreaterThanOrEqual(500_000_000n);
      expect(spent).toBeLessThan(500_000_000n + 10_000_000n);
      const settled = (await ledger(sim)).filter((t) => t.requestId === order.requestId);
      expect(settled).toHaveLength(1);
      expect(settled[0]).toMatchObject({ kind: 'ultra', signature: first.signature, inputMint: SOL, inputAmount: '500000000', outputMint: USDC, outputAmount: order.outAmount.toString() });
    });

    it('moves token balances for a token-to-token swap', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.swapEvents?.[0]?.inputMint).toBe(USDC);
      const after = await balances(sim, wallet);
      expect(after.tokens[USDC]).toBe(30_000_000n);
      expect(after.tokens[JUP]).toBe(order.outAmount);
    });
  });

  describe('when the transaction or request is wrong', () => {
    it('refuses a modified transaction with code -3 and settles nothing', async () => {
      const wallet = await fundedWallet(sim);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
      const keys = tx.message.staticAccountKeys;
      // Tamper with one instruction's data (the amount of the vault's payment), then sign what was changed.
      const ix = tx.message.compiledInstructions.find((i) => keys[i.programIdIndex]?.toBase58() === 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
      ix!.data[1] = (ix!.data[1]! + 1) % 256;
      tx.sign([wallet]);
      const err = await jup.ultra.executeOrder({ signedTransaction: Buffer.from(tx.serialize()).toString('base64'), requestId: order.requestId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-3);
      expect((await ledger(sim)).filter((t) => t.requestId === order.requestId)).toHaveLength(0);
    });

    it('answers code -1 for an unknown requestId', async () => {
      const wallet = await fundedWallet(sim);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      const err = await jup.ultra
        .executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: '019974a8-5fbb-7395-9355-9ebf8f844884' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-1);
      expect((err as ExecuteError).meaning).toContain('missing cached order');
    });

    it('answers -4 and -5 for missing fields', async () => {
      const post = (body: unknown) => fetch(`${sim.url}/ultra/v1/execute`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const noTx = await post({ requestId: 'x' });
      expect(noTx.status).toBe(400);
      expect(await noTx.json()).toMatchObject({ code: -5 });
      const noId = await post({ signedTransaction: 'AQID' });
      expect(await noId.json()).toMatchObject({ code: -4 });
    });

    it('refuses an unsigned transaction as not fully signed', async () => {
      const wallet = await fundedWallet(sim);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      const err = await jup.ultra.executeOrder({ signedTransaction: order.transaction!, requestId: order.requestId }).catch((e: unknown) => e);
      expect((err as ExecuteError).executeCode).toBe(-1003);
    });
  });

  describe('when the taker cannot pay', () => {
    it('answers errorCode 1 for missing input funds', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n);
      const err = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 5_000_000n, taker: wallet.publicKey.toBase58() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OrderError);
      expect((err as OrderError).errorCode).toBe(1);
    });

    it('answers errorCode 2 when the taker has no SOL for gas and manual mode rules gasless out, 3 on a small trade', async () => {
      const big = await fundedWallet(sim, 0n, [[USDC, 100_000_000n]]);
      // A default order of this size would be gasless (test/sim/ultra-gasless.test.ts); manual slippage disables it.
      const err2 = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 50_000_000n, taker: big.publicKey.toBase58(), slippageBps: 50 }).catch((e: unknown) => e);
      expect((err2 as OrderError).errorCode).toBe(2);
      const err3 = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 2_000_000n, taker: big.publicKey.toBase58() }).catch((e: unknown) => e);
      expect((err3 as OrderError).errorCode).toBe(3);
    });
  });

  describe('when the price moves past the slippage before execute', () => {
    it('lands the transaction as failed with program error 6001, charging only the fee', async () => {
      const wallet = await fundedWallet(sim, 2_000_000_000n);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 1_000_000_000n, taker: wallet.publicKey.toBase58() });
      const solPrice = (await control<{ tokens: Array<{ mint: string; usdPrice: number }> }>(sim, '/tokens', undefined, 'GET')).tokens.find((t) => t.mint === SOL)!.usdPrice;
      await control(sim, '/price', { mint: SOL, usd: solPrice * 0.9 });
      const before = await balances(sim, wallet);
      const err = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId }).catch((e: unknown) => e);
      await control(sim, '/price', { mint: SOL, usd: solPrice });
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(6001);
      expect((err as ExecuteError).signature).toBeTruthy();
      const after = await balances(sim, wallet);
      expect(before.lamports - after.lamports).toBeLessThan(100_000n);
      expect(after.tokens[USDC] ?? 0n).toBe(0n);
    });
  });

  describe('when the order expires', () => {
    it('answers -1005 once the blockhash is past its last valid block height', async () => {
      const wallet = await fundedWallet(sim);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      await control(sim, '/clock', { advanceMs: 90_000 });
      const err = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId }).catch((e: unknown) => e);
      expect((err as ExecuteError).executeCode).toBe(-1005);
    });
  });

  describe('with the hostile-order fault', () => {
    it('hands out a transaction that, once signed and executed, also moves the taker funds to an attacker', async () => {
      const wallet = await fundedWallet(sim, 2_000_000_000n, [[USDC, 10_000_000n]]);
      const attacker = ATTACKER.toBase58();
      await control(sim, '/faults', { kind: 'hostile-order', count: 1 });
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 5_000_000n, taker: wallet.publicKey.toBase58() });
      const [walletBefore, attackerBefore] = await Promise.all([balances(sim, wallet), balances(sim, attacker)]);
      const executed = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(executed.status).toBe('Success');
      const [walletAfter, attackerAfter] = await Promise.all([balances(sim, wallet), balances(sim, attacker)]);
      // The swap's 5 USDC went to the vault and another 5 USDC, the rest of the balance, to the attacker, with 0.05 SOL.
      expect(walletAfter.tokens[USDC]).toBe(0n);
      expect((attackerAfter.tokens[USDC] ?? 0n) - (attackerBefore.tokens[USDC] ?? 0n)).toBe(5_000_000n);
      expect(attackerAfter.lamports - attackerBefore.lamports).toBe(50_000_000n);
      expect(walletAfter.lamports - walletBefore.lamports).toBeLessThan(order.outAmount - 50_000_000n);

      // The fault was for one order: the next one pays nobody but the vault.
      const clean = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 100_000_000n, taker: wallet.publicKey.toBase58() });
      const cleanTx = VersionedTransaction.deserialize(Buffer.from(clean.transaction!, 'base64'));
      expect(cleanTx.message.staticAccountKeys.map((k) => k.toBase58())).not.toContain(attacker);
    });
  });
});
