import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Connection } from '@solana/web3.js';
import { Keypair, PublicKey, TransactionMessage, VersionedTransaction } from '@solana/web3.js';
import { createAssociatedTokenAccountIdempotentInstruction, getAccount, getAssociatedTokenAddressSync } from '@solana/spl-token';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { ExecuteError } from '../../src/jupiter/errors.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { balances, fundedWallet, ledger, signBase64, simConnection, startTestSim, JUP, SOL, USDC } from '../helpers/sim.js';

/** Opens the referral token account of `referral` for a mint (Referral program V2: the referral account's ATA). */
async function openReferralTokenAccount(conn: Connection, payer: Keypair, referral: PublicKey, mint: string): Promise<PublicKey> {
  const account = getAssociatedTokenAddressSync(new PublicKey(mint), referral, true);
  const { blockhash, lastValidBlockHeight } = await conn.getLatestBlockhash();
  const message = new TransactionMessage({ payerKey: payer.publicKey, recentBlockhash: blockhash, instructions: [createAssociatedTokenAccountIdempotentInstruction(payer.publicKey, account, referral, new PublicKey(mint))] }).compileToV0Message();
  const tx = new VersionedTransaction(message);
  tx.sign([payer]);
  const signature = await conn.sendRawTransaction(tx.serialize());
  await conn.confirmTransaction({ signature, blockhash, lastValidBlockHeight });
  return account;
}

describe('Ultra integrator fees and payer on the simulator', () => {
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

  describe('when the referral token account of the fee mint exists', () => {
    it('charges the referral fee, pays 80 % of it to the integrator and records it on the ledger', async () => {
      const integrator = await fundedWallet(sim);
      const referral = Keypair.generate().publicKey;
      const feeAccount = await openReferralTokenAccount(conn, integrator, referral, USDC);
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 100_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 100_000_000n, taker: wallet.publicKey.toBase58(), referralAccount: referral.toBase58(), referralFee: 100 });
      expect(order).toMatchObject({ feeBps: 100, feeMint: USDC, referralAccount: referral.toBase58(), mode: 'manual', gasless: false, platformFee: { amount: 1_000_000n, feeBps: 100 } });
      const result = await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect(result.status).toBe('Success');
      expect((await getAccount(conn, feeAccount)).amount).toBe(800_000n);
      expect((await balances(sim, wallet)).tokens[JUP]).toBe(order.outAmount);
      const [entry] = (await ledger(sim)).filter((e) => e.requestId === order.requestId);
      expect(entry).toMatchObject({
        kind: 'ultra',
        wallet: wallet.publicKey.toBase58(),
        inputAmount: '100000000',
        fee: { mint: USDC, bps: 100, amount: '1000000', referralAccount: referral.toBase58(), referralAmount: '800000', operatorAmount: '200000' },
      });
    });

    it('takes a SOL fee as wrapped SOL into the referral account of the native mint', async () => {
      const integrator = await fundedWallet(sim);
      const referral = Keypair.generate().publicKey;
      const feeAccount = await openReferralTokenAccount(conn, integrator, referral, SOL);
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 50_000_000n, taker: wallet.publicKey.toBase58(), referralAccount: referral.toBase58(), referralFee: 255 });
      expect(order.feeMint).toBe(SOL);
      expect(order.feeBps).toBe(255);
      const fee = order.platformFee!.amount!;
      await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      expect((await getAccount(conn, feeAccount)).amount).toBe(fee - (fee * 20n) / 100n);
    });
  });

  describe('when the referral token account of the fee mint is missing', () => {
    it('answers and executes the order without the integrator fee, at the default fee', async () => {
      const referral = Keypair.generate().publicKey;
      const wallet = await fundedWallet(sim, 1_000_000_000n, [[USDC, 20_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: SOL, amount: 20_000_000n, taker: wallet.publicKey.toBase58(), referralAccount: referral.toBase58(), referralFee: 100 });
      expect(order.feeBps).toBe(2);
      await jup.ultra.executeOrder({ signedTransaction: signBase64(order.transaction!, wallet), requestId: order.requestId });
      const [entry] = (await ledger(sim)).filter((e) => e.requestId === order.requestId);
      expect(entry).toMatchObject({ fee: { bps: 2, referralAccount: null, referralAmount: '0' } });
    });
  });

  describe('when an integrator pays the gas', () => {
    it('makes the payer the fee payer, sets its close authority on the account opened, and needs both signatures', async () => {
      const payer = await fundedWallet(sim);
      const referral = Keypair.generate().publicKey;
      await openReferralTokenAccount(conn, payer, referral, USDC);
      const wallet = await fundedWallet(sim, 0n, [[USDC, 5_000_000n]]);
      const order = await jup.ultra.getOrder({ inputMint: USDC, outputMint: JUP, amount: 5_000_000n, taker: wallet.publicKey.toBase58(), referralAccount: referral.toBase58(), referralFee: 50, payer: payer.publicKey.toBase58(), closeAuthority: payer.publicKey.toBase58() });
      expect(order.signatureFeePayer).toBe(payer.publicKey.toBase58());
      expect(order.gasless).toBe(false);
      const takerOnly = signBase64(order.transaction!, wallet);
      const unsigned = await jup.ultra.executeOrder({ signedTransaction: takerOnly, requestId: order.requestId }).catch((e: unknown) => e);
      expect(unsigned).toBeInstanceOf(ExecuteError);
      expect((unsigned as ExecuteError).executeCode).toBe(-1003);
      const both = signBase64(takerOnly, payer);
      expect((await jup.ultra.executeOrder({ signedTransaction: both, requestId: order.requestId })).status).toBe('Success');
      const opened = await getAccount(conn, getAssociatedTokenAddressSync(new PublicKey(JUP), wallet.publicKey));
      expect(opened.amount).toBe(order.outAmount);
      expect(opened.closeAuthority?.toBase58()).toBe(payer.publicKey.toBase58());
      expect((await balances(sim, wallet)).lamports).toBe(0n);
    });
  });
});
