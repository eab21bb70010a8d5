// The simulator's JupiterZ (RFQ) route, in the shape of the real RFQ transaction of DOCS `ultra/response.mdx`: the
// market maker is the fee payer and the first signer, the taker signs second, the order engine's fill carries the
// quote's terms; execute adds the maker's signature after the taker's and lands it.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Connection, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { ExecuteError, OrderError } from '../../src/jupiter/errors.js';
import { decodeFill, isFill } from '../../src/jupiter/ultra/orderEngine.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { balances, control, fundedWallet, ledger, signBase64, startTestSim, JUP, SOL, USDC } from '../helpers/sim.js';

interface Routing {
  routers: string[];
  rfqExpiryMs: number;
  maker: string;
  gasWallet: string;
}

describe('Ultra orders through the simulated JupiterZ route', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let maker: string;
  let gasWallet: string;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
  });
  afterAll(async () => {
    await sim.close();
  });
  beforeEach(async () => {
    const r = await control<Routing>(sim, '/ultra/route', { routers: ['jupiterz', 'metis'], rfqExpiryMs: 55_000 });
    maker = r.maker;
    gasWallet = r.gasWallet;
  });

  it('offers Metis only until the RFQ route is switched on', async () => {
    const fresh = await startTestSim();
    try {
      const r = await control<Routing>(fresh, '/ultra/route', undefined, 'GET');
      expect(r.routers).toEqual(['metis']);
      const client = createJupiterClient({ baseUrl: fresh.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
      const wallet = await fundedWallet(fresh, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const order = await client.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      expect(order.router).toBe('metis');
    } finally {
      await fresh.close();
    }
  });

  describe('when a wallet swaps 20 USDC for SOL', () => {
    it('answers the RFQ fields and a transaction the maker pays for, signed by the maker first and the taker second', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const taker = wallet.publicKey.toBase58();
      const clock = () => control<{ nowMs: number }>(sim, '/clock', undefined, 'GET').then((c) => c.nowMs);
      const before = Math.floor((await clock()) / 1000);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker });
      expect(order).toMatchObject({ router: 'jupiterz', swapType: 'rfq', gasless: true, slippageBps: 0, signatureFeePayer: maker, maker, taker, signatureFeeLamports: 0, prioritizationFeeLamports: 0 });
      expect(order.otherAmountThreshold).toBe(order.outAmount);
      expect(order.quoteId).toMatch(/^[0-9a-f-]{36}$/);
      const expireAt = Number(order.expireAt);
      // 55 s on the venue's clock from when it quoted.
      expect(expireAt).toBeGreaterThanOrEqual(before + 55);
      expect(expireAt).toBeLessThanOrEqual(Math.floor((await clock()) / 1000) + 55);

      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
      const keys = tx.message.staticAccountKeys.map((k) => k.toBase58());
      expect(tx.message.header.numRequiredSignatures).toBe(2);
      expect(keys.slice(0, 2)).toEqual([maker, taker]);
      const programs = tx.message.compiledInstructions.map((ix) => keys[ix.programIdIndex]);
      expect(programs).toContain(PROGRAM_IDS.jupiterOrderEngine);
      expect(programs).not.toContain(PROGRAM_IDS.jupiterV6);
      const fillIx = tx.message.compiledInstructions.map((ix) => ({ programId: keys[ix.programIdIndex]!, accounts: ix.accountKeyIndexes.map((i) => keys[i]!), data: ix.data })).find(isFill)!;
      const fill = decodeFill(fillIx);
      expect(fill).toMatchObject({ inputAmount: 20_000_000n, outputAmount: order.outAmount, expireAt: BigInt(expireAt), feeBps: order.feeBps, exactOut: false });
      expect(fill.accounts).toMatchObject({ taker, maker, takerOutputMintTokenAccount: PROGRAM_IDS.jupiterOrderEngine, inputMint: USDC, outputMint: SOL });

      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      // The wallet paid no fee: it gained exactly the quoted SOL.
      const after = await balances(sim, wallet);
      expect(after.lamports).toBe(1_000_000_000n + order.outAmount);
      expect(after.tokens[USDC]).toBe(0n);
      const landed = await new Connection(sim.rpcUrl, 'confirmed').getTransaction(result.signature!, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      expect(landed?.transaction.message.staticAccountKeys[0]!.toBase58()).toBe(maker);
      expect(landed?.transaction.signatures[0]).toBe(result.signature);
      expect(landed?.meta?.err).toBeNull();
      const [entry] = (await ledger(sim)).filter((e) => e.requestId === order.requestId);
      expect(entry).toMatchObject({ kind: 'ultra', wallet: taker, inputAmount: '20000000', outputAmount: order.outAmount.toString(), fee: { feePayer: maker, gasless: true, bps: order.feeBps } });
      // Execute is idempotent: the same bytes answer the same signature.
      expect(await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId })).toMatchObject({ status: 'Success', signature: result.signature });
    });
  });

  describe('when the taker has no token account of the output yet', () => {
    it('has Jupiter\'s gas wallet open it as a third signer, and the wallet still pays nothing', async () => {
      const wallet = await fundedWallet(sim, 10_000_000n, [[USDC, 20_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      expect(order).toMatchObject({ router: 'jupiterz', signatureFeePayer: maker, rentFeePayer: gasWallet });
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
      expect(tx.message.staticAccountKeys.slice(0, 3).map((k) => k.toBase58())).toEqual([maker, wallet.publicKey.toBase58(), gasWallet]);
      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      const after = await balances(sim, wallet);
      expect(after.lamports).toBe(10_000_000n);
      expect(after.tokens[JUP]).toBe(order.outAmount);
    });
  });

  describe('when the request excludes JupiterZ, or asks for what it does not offer', () => {
    it('routes through Metis instead', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58(), excludeRouters: ['jupiterz'] });
      expect(order).toMatchObject({ router: 'metis', swapType: 'aggregator', signatureFeePayer: wallet.publicKey.toBase58() });
    });

    it('finds no route when both simulated routers are excluded', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const err = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58(), excludeRouters: ['jupiterz', 'metis'] }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400 });
    });

    it('refuses a taker without the input with errorCode 1', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 1_000_000n]]);
      const err = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58() }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OrderError);
      expect((err as OrderError).errorCode).toBe(1);
    });
  });

  describe('when the quote expired before the taker\'s signature came back', () => {
    it('answers the RFQ code -2003 and lands nothing, nor can the taker land it alone through RPC', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      await control(sim, '/ultra/route', { rfqExpiryMs: 1_000 });
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      await control(sim, '/clock', { advanceMs: 2_000 });
      const signed = signBase64(order.transaction!, wallet);
      const err = await jup.ultra.executeOrder({ signedTransaction: signed, requestId: order.requestId }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ExecuteError);
      expect((err as ExecuteError).executeCode).toBe(-2003);
      await expect(new Connection(sim.rpcUrl, 'confirmed').sendRawTransaction(Buffer.from(signed, 'base64'), { skipPreflight: true })).rejects.toThrow();
      expect((await balances(sim, wallet)).tokens[USDC]).toBe(20_000_000n);
    });
  });
});
