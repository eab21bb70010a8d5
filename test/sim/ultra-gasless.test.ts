import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { Connection, VersionedTransaction } from '@solana/web3.js';
import { buildTransaction } from '../../src/execution/build.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { OrderError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { HotWallet } from '../../src/solana/wallet.js';
import { balances, fundedWallet, ledger, signBase64, startTestSim, JUP, SOL, USDC } from '../helpers/sim.js';

/** 0.001 SOL: under Ultra's 0.01 SOL gasless threshold, and too little to open a token account. */
const DUST_LAMPORTS = 1_000_000n;

describe('Ultra gasless orders on the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let gasWallet: string;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    gasWallet = sim.ctx.state.ultra.gasWallet().toBase58();
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('when a wallet with 0.001 SOL swaps 20 USDC for SOL', () => {
    it('gets a transaction the gas wallet pays for, and receives the whole quoted output', async () => {
      const wallet = await fundedWallet(sim, DUST_LAMPORTS, [[USDC, 20_000_000n]]);
      const taker = wallet.publicKey.toBase58();
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker });
      expect(order.gasless).toBe(true);
      expect(order.signatureFeePayer).toBe(gasWallet);
      expect(order.prioritizationFeePayer).toBe(gasWallet);
      expect(order.rentFeePayer).toBe(gasWallet);
      // Ultra's fee on USDC→SOL is 2 bps; the gas is recouped through a higher one.
      expect(order.feeBps).toBeGreaterThan(2);
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
      expect(tx.message.staticAccountKeys[0]!.toBase58()).toBe(gasWallet);

      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      const after = await balances(sim, wallet);
      expect(after.lamports).toBe(DUST_LAMPORTS + order.outAmount);
      expect(after.tokens[USDC]).toBe(0n);
      const [entry] = (await ledger(sim)).filter((e) => e.requestId === order.requestId);
      expect(entry).toMatchObject({ kind: 'ultra', wallet: taker, inputAmount: '20000000', outputAmount: order.outAmount.toString(), fee: { feePayer: gasWallet, gasless: true, bps: order.feeBps } });

      const landed = await new Connection(sim.rpcUrl, 'confirmed').getTransaction(result.signature!, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      expect(landed?.transaction.message.staticAccountKeys[0]!.toBase58()).toBe(gasWallet);
      expect(landed?.meta?.err).toBeNull();
      expect(await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId })).toMatchObject({ status: 'Success', signature: result.signature });
    });
  });

  describe('when the swap opens a token account for the output', () => {
    it('has the gas wallet pay its rent too, leaving the wallet SOL untouched', async () => {
      const wallet = await fundedWallet(sim, DUST_LAMPORTS, [[USDC, 20_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      expect(order.gasless).toBe(true);
      expect(order.rentFeeLamports).toBeGreaterThan(2_000_000);
      // USDC→JUP carries no Ultra fee: all of it recoups about 2.06 M lamports of gas on a 20 USD trade.
      expect(order.feeBps).toBeGreaterThan(100);
      expect(order.feeMint).toBe(USDC);
      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      // The fee came off the input: the route got 20 USDC less the fee.
      expect(result.totalInputAmount! - result.inputAmountResult!).toBe(order.platformFee!.amount);
      const after = await balances(sim, wallet);
      expect(after.lamports).toBe(DUST_LAMPORTS);
      expect(after.tokens[JUP]).toBe(order.outAmount);
    });
  });

  describe('when gasless support does not apply', () => {
    it('refuses a trade under about 10 USD with errorCode 3, and lets a wallet with 0.01 SOL pay its own gas', async () => {
      const dust = await fundedWallet(sim, 0n, [[USDC, 5_000_000n]]);
      const small = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 5_000_000n, taker: dust.publicKey.toBase58() }).catch((e: unknown) => e);
      expect(small).toBeInstanceOf(OrderError);
      expect((small as OrderError).errorCode).toBe(3);

      const funded = await fundedWallet(sim, 10_000_000n, [[USDC, 20_000_000n]]);
      const own = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: funded.publicKey.toBase58() });
      expect(own.gasless).toBe(false);
      expect(own.signatureFeePayer).toBe(funded.publicKey.toBase58());
      expect(own.feeBps).toBe(2);
    });

    it('never lands the transaction without the gas wallet, sent by the wallet through RPC', async () => {
      const wallet = await fundedWallet(sim, DUST_LAMPORTS, [[USDC, 20_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58() });
      const signed = Buffer.from(signBase64(order.transaction!, wallet), 'base64');
      await expect(new Connection(sim.rpcUrl, 'confirmed').sendRawTransaction(signed, { skipPreflight: true })).rejects.toThrow();
      expect((await balances(sim, wallet)).tokens[USDC]).toBe(20_000_000n);
    });
  });

  describe('when the keeper builds an Ultra swap for a wallet that qualifies for gasless', () => {
    it('builds it with the gas wallet as fee payer, to be checked by the guard rather than refused (test/execution/ultra-rfq.test.ts settles it)', async () => {
      const keypair = await fundedWallet(sim, DUST_LAMPORTS, [[USDC, 20_000_000n]]);
      const wallet = HotWallet.fromSecret(bs58.encode(keypair.secretKey));
      const intent = { kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 20_000_000n } as const;
      const built = await buildTransaction(intent, { jup, rpc: new SolanaRpc(sim.rpcUrl), wallet, intentId: 'gasless-build', maxSlippageBps: 300, usdPrice: () => undefined });
      expect(built.tx.message.staticAccountKeys[0]!.toBase58()).toBe(gasWallet);
      expect(built.quote).toMatchObject({ router: 'metis', gasless: true, feePayer: gasWallet });
    });
  });
});
