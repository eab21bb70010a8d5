import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '@solana/web3.js';
import { PublicKey, VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { wireBytes } from '../../src/sim/products/swapTx.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { balances, fundedWallet, ledger, signBase64, simConnection, startTestSim, JUP, SOL, USDC } from '../helpers/sim.js';

/** 20,000 SOL (about 3.6 M USD): enough that Metis splits it across every SOL/USDC pool. */
const WHALE_SOL = 20_000_000_000_000n;

describe('Metis swaps on the simulator: ExactOut and the 1,232-byte limit', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let conn: Connection;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    conn = simConnection(sim);
  });
  afterAll(async () => {
    await sim.close();
  });

  /** Signs a /swap transaction with the wallet, sends it through the simulator's RPC and waits for it. */
  async function land(swapTransaction: string, lastValidBlockHeight: number, wallet: Keypair): Promise<string> {
    const tx = VersionedTransaction.deserialize(Buffer.from(signBase64(swapTransaction, wallet), 'base64'));
    const signature = await conn.sendRawTransaction(tx.serialize());
    const confirmed = await conn.confirmTransaction({ signature, blockhash: tx.message.recentBlockhash, lastValidBlockHeight });
    expect(confirmed.value.err).toBeNull();
    return signature;
  }

  describe('when the caller asks for an exact output', () => {
    it('pays exactly the asked amount of a token, for no more input than the threshold', async () => {
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const { quote, raw } = await jup.swap.getQuote({ inputMint: USDC, outputMint: JUP, amount: 5_000_000n, swapMode: 'ExactOut', slippageBps: 50 });
      expect(quote.swapMode).toBe('ExactOut');
      expect(quote.outAmount).toBe(5_000_000n);
      expect(quote.otherAmountThreshold).toBeGreaterThan(quote.inAmount);
      const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
      const signature = await land(built.swapTransaction, built.lastValidBlockHeight, wallet);
      const after = await balances(sim, wallet);
      expect(after.tokens[JUP]).toBe(5_000_000n);
      expect(20_000_000n - after.tokens[USDC]!).toBeLessThanOrEqual(quote.otherAmountThreshold);
      const [entry] = (await ledger(sim)).filter((e) => e.signature === signature);
      expect(entry).toMatchObject({ kind: 'swap', outputMint: JUP, outputAmount: '5000000', inputAmount: (20_000_000n - after.tokens[USDC]!).toString() });
    });

    it('pays exactly the asked lamports of SOL, the transaction fee apart', async () => {
      const wallet = await fundedWallet(sim, 100_000_000n, [[USDC, 50_000_000n]]);
      const { raw } = await jup.swap.getQuote({ inputMint: USDC, outputMint: SOL, amount: 123_456_789n, swapMode: 'ExactOut', slippageBps: 100 });
      const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
      const before = await balances(sim, wallet);
      const signature = await land(built.swapTransaction, built.lastValidBlockHeight, wallet);
      const landed = await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
      const after = await balances(sim, wallet);
      expect(after.lamports - before.lamports + BigInt(landed!.meta!.fee)).toBe(123_456_789n);
    });
  });

  describe('when the route would not fit in 1,232 bytes', () => {
    it('builds it over 1,232 bytes (the node refuses those bytes), and a quote with a lower maxAccounts builds and lands', async () => {
      const wallet = await fundedWallet(sim, WHALE_SOL + 1_000_000_000n);
      const wide = await jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: WHALE_SOL, slippageBps: 100 });
      expect(wide.quote.routePlan.length).toBe(4);
      expect(wide.quote.routePlan.reduce((s, r) => s + r.percent!, 0)).toBe(100);
      const oversized = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: wide.raw });
      const bytes = Buffer.from(oversized.swapTransaction, 'base64');
      expect(bytes.length).toBeGreaterThan(1232);
      // The bytes are a transaction (every pool of the route named), which no node takes.
      const decoded = VersionedTransaction.deserialize(bytes);
      for (const step of wide.quote.routePlan) expect(decoded.message.staticAccountKeys.map((k) => k.toBase58())).toContain(step.swapInfo.ammKey);
      const sent = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [oversized.swapTransaction, { encoding: 'base64' }] }) });
      const refusal = (await sent.json()) as { error?: { code: number; message: string } };
      expect(refusal.error?.code).toBe(-32602);
      expect(refusal.error?.message).toContain('too large');

      const narrow = await jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: WHALE_SOL, slippageBps: 100, maxAccounts: 42 });
      expect(narrow.quote.routePlan.length).toBeLessThan(4);
      expect(narrow.quote.outAmount).toBeLessThan(wide.quote.outAmount);
      const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: narrow.raw });
      expect(Buffer.from(built.swapTransaction, 'base64').length).toBeLessThanOrEqual(1232);
      await land(built.swapTransaction, built.lastValidBlockHeight, wallet);
      expect((await balances(sim, wallet)).tokens[USDC]).toBeGreaterThanOrEqual(narrow.quote.otherAmountThreshold);
    });

    it('has Ultra route around the limit itself: the order fits and lands', async () => {
      const wallet = await fundedWallet(sim, WHALE_SOL + 1_000_000_000n);
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: WHALE_SOL, taker: wallet.publicKey.toBase58() });
      expect(Buffer.from(order.transaction!, 'base64').length).toBeLessThanOrEqual(1232);
      expect(order.routePlan.length).toBeLessThan(4);
      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      expect((await balances(sim, wallet)).tokens[USDC]).toBe(order.outAmount);
    });
  });

  it('writes the same bytes as web3.js for a transaction that fits', async () => {
    const { raw } = await jup.swap.getQuote({ inputMint: USDC, outputMint: JUP, amount: 1_000_000n });
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 1_000_000n]]);
    const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.swapTransaction, 'base64'));
    expect(wireBytes(tx).equals(Buffer.from(tx.serialize()))).toBe(true);
  });

  it('names every pool of the route in the transaction', async () => {
    const { raw, quote } = await jup.swap.getQuote({ inputMint: USDC, outputMint: JUP, amount: 1_000_000n });
    const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 1_000_000n]]);
    const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: raw });
    const keys = VersionedTransaction.deserialize(Buffer.from(built.swapTransaction, 'base64')).message.staticAccountKeys.map((k) => k.toBase58());
    for (const step of quote.routePlan) expect(keys).toContain(new PublicKey(step.swapInfo.ammKey).toBase58());
  });
});
