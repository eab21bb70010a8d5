import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '@solana/web3.js';
import { Keypair, LAMPORTS_PER_SOL, PublicKey, SendTransactionError, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { startSimulator } from '../../src/sim/server.js';
import { control, ledger, simConnection, SOL, USDC } from '../helpers/sim.js';

async function usdcOf(conn: Connection, owner: PublicKey): Promise<bigint> {
  const { value } = await conn.getParsedTokenAccountsByOwner(owner, { mint: new PublicKey(USDC) });
  return value.reduce((sum, a) => sum + BigInt((a.account.data.parsed as { info: { tokenAmount: { amount: string } } }).info.tokenAmount.amount), 0n);
}

describe('a Metis swap signed by the user and sent through the simulator RPC', () => {
  let sim: RunningSimulator;
  let conn: Connection;
  let jup: JupiterClient;
  const wallet = Keypair.generate();

  beforeAll(async () => {
    sim = await startSimulator({ seed: 5, clockSpeed: 0 });
    conn = simConnection(sim);
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    const latest = await conn.getLatestBlockhash();
    await conn.confirmTransaction({ signature: await conn.requestAirdrop(wallet.publicKey, 3 * LAMPORTS_PER_SOL), ...latest });
  });
  afterAll(async () => {
    await sim.close();
  });

  /** Quotes 0.5 SOL to USDC and builds the transaction, signed by the wallet. */
  async function signedSwap() {
    const quote = await jup.swap.getQuote({ inputMint: SOL, outputMint: USDC, amount: 500_000_000n, slippageBps: 50 });
    const built = await jup.swap.buildSwap({ userPublicKey: wallet.publicKey.toBase58(), quoteResponse: quote.raw });
    const tx = VersionedTransaction.deserialize(Buffer.from(built.swapTransaction, 'base64'));
    tx.sign([wallet]);
    return { quote: quote.quote, tx, lastValidBlockHeight: built.lastValidBlockHeight };
  }

  it('settles with the vault co-signing, paying between the threshold and the quoted amount', async () => {
    const { quote, tx, lastValidBlockHeight } = await signedSwap();
    const signature = await conn.sendRawTransaction(tx.serialize());
    const confirmed = await conn.confirmTransaction({ signature, blockhash: tx.message.recentBlockhash, lastValidBlockHeight });
    expect(confirmed.value.err).toBeNull();

    const received = await usdcOf(conn, wallet.publicKey);
    expect(received).toBeGreaterThanOrEqual(quote.otherAmountThreshold);
    expect(received).toBeLessThanOrEqual(quote.outAmount);
    const swaps = (await ledger(sim)).filter((e) => e.kind === 'swap');
    expect(swaps).toHaveLength(1);
    expect(swaps[0]).toMatchObject({ signature, wallet: wallet.publicKey.toBase58(), outputMint: USDC, outputAmount: received.toString() });

    const landed = await conn.getTransaction(signature, { maxSupportedTransactionVersion: 0, commitment: 'confirmed' });
    expect(landed?.transaction.signatures).toHaveLength(2);
    // The second signer is the vault: its signature was added at settlement (an unsigned slot is 64 zero bytes).
    expect(landed?.transaction.signatures[1]).not.toBe('1'.repeat(64));
    const post = landed?.meta?.postTokenBalances?.find((b) => b.owner === wallet.publicKey.toBase58() && b.mint === USDC);
    expect(post?.uiTokenAmount.amount).toBe(received.toString());
  });

  describe('when the market moves past the slippage before the transaction lands', () => {
    it('is refused at preflight (nothing lands), and lands as failed with 6001 when preflight is skipped', async () => {
      const { tx } = await signedSwap();
      const tokens = await control<{ tokens: Array<{ mint: string; usdPrice: number }> }>(sim, '/tokens', undefined, 'GET');
      const solUsd = tokens.tokens.find((t) => t.mint === SOL)!.usdPrice;
      await control(sim, '/price', { mint: SOL, usd: solUsd * 0.95 });
      const lamportsBefore = await conn.getBalance(wallet.publicKey);

      const err = await conn.sendRawTransaction(tx.serialize()).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SendTransactionError);
      expect((err as Error).message).toMatch(/Transaction simulation failed: Error processing Instruction \d+: custom program error: 0x1771/);
      expect(await conn.getBalance(wallet.publicKey)).toBe(lamportsBefore);

      const signature = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      const status = await conn.getSignatureStatus(signature);
      expect(status.value?.err).toMatchObject({ InstructionError: [expect.any(Number), { Custom: 6001 }] });
      expect(await conn.getBalance(wallet.publicKey)).toBeLessThan(lamportsBefore);
      expect((await ledger(sim)).filter((e) => e.kind === 'swap')).toHaveLength(1);
    });
  });
});
