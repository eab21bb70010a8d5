import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import { generateInviteCode, inviteKeypairFromCode, invitePdaFromCode } from '../../src/jupiter/send/index.js';
import { PROGRAM_IDS } from '../../src/lib/programIds.js';
import { anchorDiscriminator } from '../../src/jupiter/programs/borsh.js';
import { SEND_DISCRIMINATORS } from '../../src/jupiter/programs/send.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { clawbackCheck, sendCheck } from '../../src/execution/productGuard/send.js';
import { guardTransaction, type GuardPolicy } from '../../src/solana/guard.js';
import { allowedProgramsFor } from '../../src/solana/programs.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const DAY = 86_400_000;

/** What a test gets back from sending an invite: the code (the recipient's secret) and the landed signature. */
interface Sent {
  code: string;
  pda: string;
  signature: string;
}

// Send on the simulator through the project's own client over real HTTP: craft-send, the sender's and the invite
// signer's signatures, a landing through the RPC, and then the invite's ends (claim, clawback, expiry).
describe('Send on the simulator', () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
  });
  afterAll(async () => {
    await sim.close();
  });

  /** Crafts, signs (sender and invite) and lands an invite. */
  async function send(sender: Keypair, amount: bigint, mint?: string): Promise<Sent> {
    const code = generateInviteCode();
    const invite = inviteKeypairFromCode(code);
    const r = await jup.send.craftSend({ inviteSigner: invite.publicKey.toBase58(), sender: sender.publicKey.toBase58(), amount, mint });
    const tx = VersionedTransaction.deserialize(Buffer.from(r.tx, 'base64'));
    tx.sign([sender, invite]);
    const signature = await rpc.send(tx.serialize());
    return { code, pda: invitePdaFromCode(code).toBase58(), signature };
  }

  const claim = (code: string, receiver: PublicKey) => control<{ signature: string; amount: string }>(sim, '/send/claim', { code, receiver: receiver.toBase58() });
  const escrowOf = async (pda: string) => (await control<{ escrows: Array<{ authority: string; product: string; amount: string; wallet: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.find((e) => e.authority === pda);

  /** The keeper's policy for a send of `amount` (the escrow's amount) with the invite signer the keeper made. */
  function policy(wallet: PublicKey, mint: string, amount: bigint, inviteSigner: string, extra: Partial<GuardPolicy> = {}): GuardPolicy {
    const coSigners = new Set(sim.ctx.state.venue.coSigners().map((k) => k.toBase58()));
    const product = sendCheck({ kind: 'send', mint, amount: 5_000_000n }, wallet, inviteSigner);
    return { wallet, area: 'send', allowedPrograms: allowedProgramsFor('send'), coSigners, maxPriorityFeeLamports: 1_000_000n, spend: { kind: 'escrow', mint, amount }, mayUnwrapSol: true, allowToken2022Mints: new Set(), product, ...extra };
  }

  describe('when a sender crafts a USDC invite', () => {
    it('hands out a transaction for the sender and the invite signer that the guard accepts as an escrow of the invite PDA', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
      const invite = inviteKeypairFromCode(generateInviteCode());
      const pda = new PublicKey(PublicKey.findProgramAddressSync([Buffer.from('invite'), invite.publicKey.toBuffer()], new PublicKey(PROGRAM_IDS.jupiterSend))[0]);
      const r = await jup.send.craftSend({ inviteSigner: invite.publicKey.toBase58(), sender: sender.publicKey.toBase58(), amount: 5_000_000n, mint: USDC });
      expect(Date.parse(r.expiry) - sim.ctx.state.venue.clock.now()).toBeGreaterThan(6 * DAY);
      expect(r.totalFeeLamports).toBeGreaterThanOrEqual(10_000n);
      const tx = VersionedTransaction.deserialize(Buffer.from(r.tx, 'base64'));
      const keys = tx.message.staticAccountKeys;
      expect(keys.slice(0, tx.message.header.numRequiredSignatures).map((k) => k.toBase58())).toEqual([sender.publicKey.toBase58(), invite.publicKey.toBase58()]);
      const init = tx.message.compiledInstructions.find((ix) => keys[ix.programIdIndex]!.toBase58() === PROGRAM_IDS.jupiterSend)!;
      expect(Buffer.from(init.data.subarray(0, 8))).toEqual(anchorDiscriminator('global', 'initialize_token'));
      expect(Buffer.from(init.data).readBigUInt64LE(16)).toBe(5_000_000n);
      expect(keys[init.accountKeyIndexes[2]!]!.toBase58()).toBe(pda.toBase58());

      // Accepted as a deposit into the escrow of the invite PDA the engine derives from its own invite signer (an
      // engine key, not the venue's), and exactly the amount.
      const signer = invite.publicKey.toBase58();
      const withInvite = (amount: bigint) => {
        const p = policy(sender.publicKey, USDC, amount, signer);
        return { ...p, coSigners: new Set([...p.coSigners, signer]) };
      };
      expect((await guardTransaction(tx, withInvite(5_000_000n), rpc)).violations).toEqual([]);
      expect((await guardTransaction(tx, withInvite(4_000_000n), rpc)).violations.map((v) => v.rule)).toContain('escrow-amount');
      expect((await guardTransaction(tx, policy(sender.publicKey, USDC, 5_000_000n, signer), rpc)).violations.map((v) => v.rule)).toEqual(['signer']);
    });

    it('lists the invite as pending once it lands, with the funds in its escrow and on the ledger', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
      const address = sender.publicKey.toBase58();
      expect((await jup.send.getPendingInvites({ address })).invites).toEqual([]);
      const sent = await send(sender, 5_000_000n, USDC);
      const page = await jup.send.getPendingInvites({ address });
      expect(page.hasMoreData).toBe(false);
      expect(page.invites).toEqual([
        expect.objectContaining({ invitePda: sent.pda, inviteSigner: inviteKeypairFromCode(sent.code).publicKey.toBase58(), sender: address, amount: 5_000_000n, mint: USDC, creationTx: sent.signature, deletionTx: null, receiver: null, action: 'created', confirmed: true }),
      ]);
      expect((await balances(sim, sender)).tokens[USDC]).toBe(15_000_000n);
      expect(await escrowOf(sent.pda)).toMatchObject({ product: 'send', wallet: address, amount: '5000000' });
      expect((await ledger(sim)).find((t) => t.signature === sent.signature)).toMatchObject({ kind: 'send-invite', wallet: address, requestId: sent.pda, inputMint: USDC, inputAmount: '5000000' });
      expect((await jup.send.getInviteHistory({ address })).invites).toEqual([]);
    });
  });

  describe('when the recipient claims with the code', () => {
    it('pays the recipient, moves the invite to both parties\' history, and refuses a second claim', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
      const sent = await send(sender, 7_000_000n, USDC);
      const receiver = Keypair.generate().publicKey;
      const paid = await claim(sent.code, receiver);
      expect((await balances(sim, receiver.toBase58())).tokens[USDC]).toBe(7_000_000n);
      expect((await ledger(sim)).find((t) => t.signature === paid.signature)).toMatchObject({ kind: 'send-claim', wallet: receiver.toBase58(), requestId: sent.pda, outputMint: USDC, outputAmount: '7000000' });
      expect((await jup.send.getPendingInvites({ address: sender.publicKey.toBase58() })).invites).toEqual([]);
      const expected = expect.objectContaining({ invitePda: sent.pda, action: 'claimed', receiver: receiver.toBase58(), deletionTx: paid.signature, amount: 7_000_000n });
      expect((await jup.send.getInviteHistory({ address: sender.publicKey.toBase58() })).invites).toEqual([expected]);
      expect((await jup.send.getInviteHistory({ address: receiver.toBase58() })).invites).toEqual([expected]);
      expect(await escrowOf(sent.pda)).toBeUndefined();

      await expect(claim(sent.code, receiver)).rejects.toThrow(/no longer claimable/);
      const clawback = await jup.send.craftClawback({ invitePDA: sent.pda, sender: sender.publicKey.toBase58() }).catch((e: unknown) => e);
      expect(clawback).toBeInstanceOf(BadRequestError);
    });

    it('pays a SOL invite (the default mint) as SOL', async () => {
      const sender = await fundedWallet(sim, 1_000_000_000n);
      const sent = await send(sender, 200_000_000n);
      expect(await escrowOf(sent.pda)).toMatchObject({ amount: '200000000' });
      const receiver = Keypair.generate().publicKey;
      await claim(sent.code, receiver);
      expect((await balances(sim, receiver.toBase58())).lamports).toBe(200_000_000n);
      expect((await jup.send.getInviteHistory({ address: receiver.toBase58() })).invites[0]).toMatchObject({ mint: SOL, action: 'claimed' });
    });

    it('refuses a code that is malformed or opens no invite', async () => {
      const receiver = Keypair.generate().publicKey;
      await expect(claim('not-a-code', receiver)).rejects.toThrow(/answered 400.*Invalid invite code/);
      await expect(claim(generateInviteCode(), receiver)).rejects.toThrow(/answered 400.*Invite not found/);
    });
  });

  describe('when the sender claws an invite back', () => {
    it('returns the whole amount in a transaction the keeper co-signs, and moves the invite to history', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 20_000_000n]]);
      const sent = await send(sender, 6_000_000n, USDC);
      const { tx } = await jup.send.craftClawback({ invitePDA: sent.pda, sender: sender.publicKey.toBase58() });
      const clawback = VersionedTransaction.deserialize(Buffer.from(tx, 'base64'));
      expect(clawback.message.staticAccountKeys[0]!.equals(sender.publicKey)).toBe(true);
      const product = clawbackCheck({ kind: 'send.clawback', invitePda: sent.pda }, sender.publicKey);
      expect((await guardTransaction(clawback, { ...policy(sender.publicKey, USDC, 0n, sent.pda), spend: { kind: 'nothing' }, product }, rpc)).violations).toEqual([]);
      clawback.sign([sender]);
      const signature = await rpc.send(clawback.serialize());
      expect((await balances(sim, sender)).tokens[USDC]).toBe(20_000_000n);
      expect((await jup.send.getInviteHistory({ address: sender.publicKey.toBase58() })).invites).toEqual([expect.objectContaining({ invitePda: sent.pda, action: 'clawback', deletionTx: signature, receiver: null })]);
      expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'send-clawback', wallet: sender.publicKey.toBase58(), outputAmount: '6000000' });
      await expect(claim(sent.code, Keypair.generate().publicKey)).rejects.toThrow(/no longer claimable/);
    });

    it('refuses a clawback by anyone but the sender, or of an invite that does not exist', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
      const sent = await send(sender, 1_000_000n, USDC);
      const stranger = Keypair.generate().publicKey.toBase58();
      for (const body of [{ invitePDA: sent.pda, sender: stranger }, { invitePDA: invitePdaFromCode(generateInviteCode()).toBase58(), sender: sender.publicKey.toBase58() }]) {
        const err = await jup.send.craftClawback(body).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BadRequestError);
        expect((err as BadRequestError).body).toEqual({ error: expect.any(String) });
      }
    });
  });

  describe('when an invite expires unclaimed', () => {
    it('is returned to its sender by the keeper and shows as expired', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
      const sent = await send(sender, 4_000_000n, USDC);
      await control(sim, '/clock', { advanceMs: 7 * DAY + 1_000 });
      expect((await balances(sim, sender)).tokens[USDC]).toBe(10_000_000n);
      const [ended] = (await jup.send.getInviteHistory({ address: sender.publicKey.toBase58() })).invites;
      expect(ended).toMatchObject({ invitePda: sent.pda, action: 'expired' });
      expect((await ledger(sim)).find((t) => t.signature === ended!.deletionTx)).toMatchObject({ kind: 'send-clawback', wallet: sender.publicKey.toBase58(), outputAmount: '4000000' });
      await expect(claim(sent.code, Keypair.generate().publicKey)).rejects.toThrow(/answered 400/);
    });
  });

  it('keeps the discriminators of the program\'s published client', () => {
    expect([...SEND_DISCRIMINATORS.initializeToken]).toEqual([38, 209, 150, 50, 190, 117, 16, 54]);
    expect([...SEND_DISCRIMINATORS.claimToken]).toEqual([116, 206, 27, 191, 166, 19, 0, 73]);
    expect([...SEND_DISCRIMINATORS.clawbackToken]).toEqual([246, 74, 130, 226, 137, 89, 136, 154]);
    expect([...SEND_DISCRIMINATORS.expireToken]).toEqual([90, 208, 189, 130, 72, 252, 204, 11]);
    expect([...SEND_DISCRIMINATORS.inviteInfoToken]).toEqual([234, 59, 141, 72, 7, 107, 253, 208]);
  });
});
