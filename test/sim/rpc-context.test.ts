import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import bs58 from 'bs58';
import { Keypair, SystemProgram, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { airdrop, control, fundedWallet, SOL, startTestSim, USDC } from '../helpers/sim.js';

interface RpcAnswer<T = unknown> {
  result?: T;
  error?: { code: number; message: string; data?: unknown };
}

describe('the simulator RPC pinned to a slot, and the ledger it keeps', () => {
  let sim: RunningSimulator;
  let wallet: Keypair;

  async function rpc<T = unknown>(method: string, params: unknown[]): Promise<RpcAnswer<T>> {
    const res = await fetch(sim.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return (await res.json()) as RpcAnswer<T>;
  }

  async function tip(commitment: 'processed' | 'confirmed' | 'finalized'): Promise<number> {
    return (await rpc<number>('getSlot', [{ commitment }])).result!;
  }

  async function transfer(): Promise<VersionedTransaction> {
    const blockhash = (await rpc<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'confirmed' }])).result!.value.blockhash;
    const message = new TransactionMessage({ payerKey: wallet.publicKey, recentBlockhash: blockhash, instructions: [SystemProgram.transfer({ fromPubkey: wallet.publicKey, toPubkey: Keypair.generate().publicKey, lamports: 1_000_000 })] });
    const tx = new VersionedTransaction(message.compileToV0Message());
    tx.sign([wallet]);
    return tx;
  }

  beforeAll(async () => {
    sim = await startTestSim({ seed: 23 });
    wallet = await fundedWallet(sim, 2_000_000_000n, [[USDC, 1_000_000n]]);
  });
  afterAll(async () => {
    await sim.close();
  });

  describe('when a read asks for a slot the node has not reached', () => {
    it('answers -32016 with the slot it has, from every method that takes minContextSlot', async () => {
      const confirmed = await tip('confirmed');
      const ahead = confirmed + 1_000;
      const pin = { commitment: 'confirmed', minContextSlot: ahead };
      const address = wallet.publicKey.toBase58();
      const sent = await transfer();
      const tx = Buffer.from(sent.serialize()).toString('base64');
      const message = Buffer.from(sent.message.serialize()).toString('base64');
      const blockhash = (await rpc<{ value: { blockhash: string } }>('getLatestBlockhash', [])).result!.value.blockhash;
      const calls: Array<[string, unknown[]]> = [
        ['getAccountInfo', [address, pin]],
        ['getBalance', [address, pin]],
        ['getMultipleAccounts', [[address], pin]],
        ['getTokenAccountsByOwner', [address, { mint: USDC }, pin]],
        ['getBlockHeight', [pin]],
        ['getSlot', [pin]],
        ['getEpochInfo', [pin]],
        ['getLatestBlockhash', [pin]],
        ['isBlockhashValid', [blockhash, pin]],
        ['getFeeForMessage', [message, pin]],
        ['getSignaturesForAddress', [address, pin]],
        ['simulateTransaction', [tx, { encoding: 'base64', sigVerify: false, ...pin }]],
        ['sendTransaction', [tx, { encoding: 'base64', preflightCommitment: 'confirmed', minContextSlot: ahead }]],
      ];
      for (const [method, params] of calls) {
        const answer = await rpc(method, params);
        expect({ method, error: answer.error }).toEqual({
          method,
          error: { code: -32016, message: 'Minimum context slot has not been reached', data: { contextSlot: confirmed } },
        });
      }
      // The refused sendTransaction never reached the chain.
      const status = await rpc<{ value: unknown[] }>('getSignatureStatuses', [[bs58.encode(sent.signatures[0]!)], { searchTransactionHistory: true }]);
      expect(status.result?.value).toEqual([null]);
    });

    it('compares with the commitment\'s slot: finalized by default, processed when sendTransaction skips preflight', async () => {
      const [processed, finalized] = [await tip('processed'), await tip('finalized')];
      expect(finalized).toBeLessThan(processed);
      const between = await rpc('getBalance', [wallet.publicKey.toBase58(), { minContextSlot: finalized + 1 }]);
      expect(between.error).toMatchObject({ code: -32016, data: { contextSlot: finalized } });
      const tx = Buffer.from((await transfer()).serialize()).toString('base64');
      const skipped = await rpc('sendTransaction', [tx, { encoding: 'base64', skipPreflight: true, minContextSlot: processed + 1 }]);
      expect(skipped.error).toMatchObject({ code: -32016, data: { contextSlot: processed } });
    });

    it('answers as usual once the minimum is reached', async () => {
      const confirmed = await tip('confirmed');
      const answer = await rpc<{ context: { slot: number }; value: number }>('getBalance', [wallet.publicKey.toBase58(), { commitment: 'confirmed', minContextSlot: confirmed }]);
      expect(answer.result?.context.slot).toBe(confirmed);
      expect(answer.result?.value).toBeGreaterThan(0);
    });

    it('ignores it where Agave takes a commitment only (token balance and supply)', async () => {
      const ahead = (await tip('processed')) + 1_000;
      const ata = (await rpc<{ value: Array<{ pubkey: string }> }>('getTokenAccountsByOwner', [wallet.publicKey.toBase58(), { mint: USDC }])).result!.value[0]!.pubkey;
      const balance = await rpc<{ value: { amount: string } }>('getTokenAccountBalance', [ata, { minContextSlot: ahead }]);
      expect(balance.result?.value.amount).toBe('1000000');
      expect((await rpc('getTokenSupply', [USDC, { minContextSlot: ahead }])).error).toBeUndefined();
    });
  });

  describe('the ledger the simulator keeps', () => {
    it('is whole from slot 0: minimumLedgerSlot and getFirstAvailableBlock agree and precede every slot a client is shown', async () => {
      const minimum = (await rpc<number>('minimumLedgerSlot', [])).result;
      const first = (await rpc<number>('getFirstAvailableBlock', [])).result;
      expect(minimum).toBe(0);
      expect(first).toBe(0);
      // At start the finalized view trails the genesis slot; it is still inside the ledger.
      expect(await tip('finalized')).toBeGreaterThan(0);
      expect((await rpc<number>('getBlockTime', [await tip('finalized')])).result).toEqual(expect.any(Number));
    });

    it('finds an old signature only when asked to search the history, which reaches back to the first available block', async () => {
      const signature = await airdrop(sim, wallet, SOL, 1_000_000n);
      await control(sim, '/clock', { advanceMs: 200_000 });
      const recent = await rpc<{ value: unknown[] }>('getSignatureStatuses', [[signature]]);
      expect(recent.result?.value).toEqual([null]);
      const searched = await rpc<{ value: Array<{ slot: number; confirmations: number | null; confirmationStatus: string; err: unknown }> }>('getSignatureStatuses', [
        [signature],
        { searchTransactionHistory: true },
      ]);
      const status = searched.result?.value[0];
      expect(status).toMatchObject({ confirmations: null, confirmationStatus: 'finalized', err: null });
      expect(status!.slot).toBeGreaterThanOrEqual((await rpc<number>('minimumLedgerSlot', [])).result!);
    });
  });

  describe('GET /__sim/venue', () => {
    it('names the vault (the second signer of its swaps), the keeper and Jupiter\'s gas wallet as its co-signers, and the RPC path', async () => {
      const venue = await control<{ coSigners: string[]; rpcPath: string }>(sim, '/venue', undefined, 'GET');
      expect(venue.rpcPath).toBe('/rpc');
      expect(venue.coSigners).toEqual([sim.ctx.state.venue.vault.publicKey.toBase58(), sim.ctx.state.venue.keeper.publicKey.toBase58(), sim.ctx.state.ultra.gasWallet().toBase58()]);
      const jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
      const order = await jup.ultra.getOrder({ inputMint: SOL, outputMint: USDC, amount: 10_000_000n, taker: wallet.publicKey.toBase58() });
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction!, 'base64'));
      const signers = tx.message.staticAccountKeys.slice(0, tx.message.header.numRequiredSignatures).map((k) => k.toBase58());
      expect(signers).toEqual([wallet.publicKey.toBase58(), venue.coSigners[0]]);
      const health = await fetch(`${sim.url}${venue.rpcPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"jsonrpc":"2.0","id":1,"method":"getHealth"}' });
      expect(await health.json()).toEqual({ jsonrpc: '2.0', id: 1, result: 'ok' });
    });
  });
});
