import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import { generateInviteCode, inviteKeypairFromCode, invitePdaFromCode, type SendInvite } from '../../src/jupiter/send/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, startTestSim, SOL, USDC } from '../helpers/sim.js';

interface Escrow {
  authority: string;
  product: string;
  wallet: string;
  amount: string;
}

// Send's books against its escrows, its pages, its error shapes and the transactions it handed out that land late
// or never.
describe('Send invites and their escrows', () => {
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

  /** Crafts an invite and signs it; `land` sends it. */
  async function craft(sender: Keypair, amount: bigint, mint: string | undefined, code = generateInviteCode()) {
    const invite = inviteKeypairFromCode(code);
    const r = await jup.send.craftSend({ inviteSigner: invite.publicKey.toBase58(), sender: sender.publicKey.toBase58(), amount, mint });
    const tx = VersionedTransaction.deserialize(Buffer.from(r.tx, 'base64'));
    tx.sign([sender, invite]);
    return { code, pda: invitePdaFromCode(code).toBase58(), land: () => rpc.send(tx.serialize()) };
  }

  const sendEscrows = async () => (await control<{ escrows: Escrow[] }>(sim, '/escrows', undefined, 'GET')).escrows.filter((e) => e.product === 'send');

  async function allPending(address: string): Promise<SendInvite[]> {
    const out: SendInvite[] = [];
    for (let page = 1; ; page += 1) {
      const r = await jup.send.getPendingInvites({ address, page });
      out.push(...r.invites);
      if (!r.hasMoreData) return out;
    }
  }

  /** Every send escrow of these senders holds exactly what the pending invites of its PDA say, and every pending invite has one. */
  async function expectEscrowsMatchInvites(senders: Keypair[]): Promise<void> {
    const pending = (await Promise.all(senders.map((s) => allPending(s.publicKey.toBase58())))).flat();
    const wallets = new Set(senders.map((s) => s.publicKey.toBase58()));
    const escrows = (await sendEscrows()).filter((e) => wallets.has(e.wallet));
    for (const e of escrows) {
      const held = pending.filter((i) => i.invitePda === e.authority).reduce((n, i) => n + i.amount, 0n);
      expect({ escrow: e.authority, amount: BigInt(e.amount) }).toEqual({ escrow: e.authority, amount: held });
    }
    for (const i of pending) expect(escrows.map((e) => e.authority)).toContain(i.invitePda);
  }

  it('keeps every escrow equal to its open invites through a random sequence of sends, claims, clawbacks and expiries', async () => {
    let seed = 20_260_821;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const senders = await Promise.all([0, 1, 2].map(() => fundedWallet(sim, 5_000_000_000n, [[USDC, 1_000_000_000n]])));
    const open: Array<{ code: string; pda: string; sender: Keypair }> = [];
    for (let step = 0; step < 40; step += 1) {
      const op = open.length === 0 ? 0 : rand(5);
      if (op <= 1) {
        const sender = senders[rand(senders.length)]!;
        const c = await craft(sender, BigInt(1 + rand(5_000_000)) * 100n, rand(2) === 0 ? USDC : undefined);
        // Some crafts are never sent: their escrow holds nothing and no invite.
        if (rand(4) > 0) {
          await c.land();
          open.push({ code: c.code, pda: c.pda, sender });
        }
      } else {
        const [i] = open.splice(rand(open.length), 1);
        if (op === 2) await control(sim, '/send/claim', { code: i!.code, receiver: Keypair.generate().publicKey.toBase58() });
        if (op === 3) {
          const { tx } = await jup.send.craftClawback({ invitePDA: i!.pda, sender: i!.sender.publicKey.toBase58() });
          const clawback = VersionedTransaction.deserialize(Buffer.from(tx, 'base64'));
          clawback.sign([i!.sender]);
          await rpc.send(clawback.serialize());
        }
        if (op === 4) expect(await control<{ expired: number }>(sim, '/orders/expire', { order: i!.pda })).toMatchObject({ expired: 1 });
      }
      await expectEscrowsMatchInvites(senders);
    }
  });

  it('pages pending invites ten at a time, newest first, and says when more remain', async () => {
    const sender = await fundedWallet(sim, 2_000_000_000n, [[USDC, 100_000_000n]]);
    const pdas: string[] = [];
    for (let i = 0; i < 11; i += 1) {
      const c = await craft(sender, BigInt(1_000_000 + i), USDC);
      await c.land();
      pdas.push(c.pda);
      // Distinct creation times, so that the order is the creation order.
      await control(sim, '/clock', { advanceMs: 1_000 });
    }
    const address = sender.publicKey.toBase58();
    const first = await jup.send.getPendingInvites({ address });
    const second = await jup.send.getPendingInvites({ address, page: 2 });
    expect([first.invites.length, first.hasMoreData, second.invites.length, second.hasMoreData]).toEqual([10, true, 1, false]);
    expect([...first.invites, ...second.invites].map((i) => i.invitePda)).toEqual([...pdas].reverse());
  });

  it('forgets a craft that never landed once its blockhash expired', async () => {
    const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
    const c = await craft(sender, 1_000_000n, USDC);
    expect((await sendEscrows()).map((e) => e.authority)).toContain(c.pda);
    await control(sim, '/clock', { advanceMs: 120_000 });
    expect((await sendEscrows()).map((e) => e.authority)).not.toContain(c.pda);
    // The same code can be sent again afterwards.
    await (await craft(sender, 1_000_000n, USDC, c.code)).land();
    expect((await allPending(sender.publicKey.toBase58())).map((i) => i.invitePda)).toEqual([c.pda]);
  });

  it('refunds a second crafted send of the same invite that lands after the first (the program would refuse it)', async () => {
    const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
    const first = await craft(sender, 2_000_000n, USDC);
    await control(sim, '/clock', { advanceMs: 1_000 });
    const second = await craft(sender, 3_000_000n, USDC, first.code);
    await first.land();
    await second.land();
    await control(sim, '/clock', { advanceMs: 0 });
    expect((await balances(sim, sender)).tokens[USDC]).toBe(8_000_000n);
    expect(await allPending(sender.publicKey.toBase58())).toEqual([expect.objectContaining({ invitePda: first.pda, amount: 2_000_000n })]);
    await expectEscrowsMatchInvites([sender]);
  });

  describe('when the request is wrong', () => {
    const post = (path: string, body: string) => fetch(`${sim.url}/send/v1${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });

    it('answers 400 {error} for missing or malformed fields, unknown mints and a used invite signer', async () => {
      const sender = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
      const signer = Keypair.generate().publicKey.toBase58();
      const bodies = ['', '{', JSON.stringify({ inviteSigner: signer, sender: sender.publicKey.toBase58() }), JSON.stringify({ inviteSigner: signer, sender: 'nope', amount: '1' }), JSON.stringify({ inviteSigner: signer, sender: sender.publicKey.toBase58(), amount: '0' })];
      for (const body of bodies) {
        const res = await post('/craft-send', body);
        expect([res.status, Object.keys((await res.json()) as object)]).toEqual([400, ['error']]);
      }
      const unknownMint = await jup.send.craftSend({ inviteSigner: signer, sender: sender.publicKey.toBase58(), amount: 1n, mint: Keypair.generate().publicKey.toBase58() }).catch((e: unknown) => e);
      expect(unknownMint).toBeInstanceOf(BadRequestError);
      const c = await craft(sender, 1_000_000n, USDC);
      await c.land();
      const again = await craft(sender, 1_000_000n, USDC, c.code).catch((e: unknown) => e);
      expect((again as BadRequestError).body).toEqual({ error: 'Invite already exists for this inviteSigner' });
      expect((await post('/craft-clawback', JSON.stringify({ invitePDA: c.pda }))).status).toBe(400);
    });

    it('answers 400 {error} to a listing without a valid address or page', async () => {
      for (const query of ['', '?address=nope', `?address=${Keypair.generate().publicKey.toBase58()}&page=0`]) {
        const res = await fetch(`${sim.url}/send/v1/pending-invites${query}`);
        expect([res.status, Object.keys((await res.json()) as object)]).toEqual([400, ['error']]);
      }
    });

    it('answers 400 to a claim without a receiver', async () => {
      const res = await fetch(`${sim.url}/__sim/send/claim`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: generateInviteCode() }) });
      expect(res.status).toBe(400);
    });
  });

  it('lists SOL invites under the wrapped SOL mint', async () => {
    const sender = await fundedWallet(sim, 1_000_000_000n);
    await (await craft(sender, 100_000_000n, undefined)).land();
    expect((await allPending(sender.publicKey.toBase58()))[0]).toMatchObject({ mint: SOL, amount: 100_000_000n });
  });
});
