import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { generateInviteCode, inviteKeypairFromCode, invitePdaFromCode } from '../../src/jupiter/send/inviteCode.js';
import { Rng } from '../../src/sim/rng.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { control, fundedWallet, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

interface Escrow {
  address: string;
  product: string;
  authority: string;
  wallet: string;
  mint: string;
  amount: string;
}

// Acceptance (issue 8): every escrow balance equals the sum of what its open orders say they hold, after a random
// sequence of operations across the products at once: limit orders, recurring orders, invites and lend deposits
// are placed, cancelled, claimed and withdrawn while the market and the clock move and the venue's keepers fill,
// slice, expire and pay interest in the same runs. Each product's own listing (read through the project's client)
// is what the orders say; GET /__sim/escrows is what the chain holds.
describe('escrows of every product under one random sequence', { timeout: 300_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim({ seed: 11 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
  });
  afterAll(async () => {
    await sim.close();
  });

  const usd = async (mint: string) => (await jup.price.getPrices({ ids: [mint] }))[mint]!.usdPrice;
  const land = async (base64: string, ...signers: Keypair[]) => {
    const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
    tx.sign(signers);
    await rpc.send(tx.serialize());
  };
  async function pages<T>(read: (page: number) => Promise<{ items: T[]; more: boolean }>): Promise<T[]> {
    const out: T[] = [];
    for (let page = 1; ; page += 1) {
      const r = await read(page);
      out.push(...r.items);
      if (!r.more) return out;
    }
  }

  it('keeps each escrow equal to what its open order, invite or market says it holds', async () => {
    const rng = new Rng(5, 'escrows-property');
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rng.next() * xs.length)]!;
    const users = await Promise.all([0, 1].map(() => fundedWallet(sim, 100_000_000_000n, [[USDC, 50_000_000_000n]])));
    const invites: Array<{ code: string; sender: Keypair }> = [];
    const done: string[] = [];

    const ops: Record<string, () => Promise<void>> = {
      trigger: async () => {
        const u = pick(users);
        const making = BigInt(Math.floor((20 + rng.next() * 400) * 1e6));
        const taking = BigInt(Math.floor(((Number(making) / 1e6) * (0.95 + rng.next() * 0.1) / (await usd(SOL))) * 1e9));
        const r = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: u.publicKey.toBase58(), payer: u.publicKey.toBase58(), params: { makingAmount: making, takingAmount: taking } });
        await jup.trigger.execute({ requestId: r.requestId, signedTransaction: signBase64(r.transaction, u) });
      },
      'trigger-cancel': async () => {
        const u = pick(users);
        const open = await triggerOpen(u);
        if (open.length === 0) return;
        const r = await jup.trigger.cancelOrder({ maker: u.publicKey.toBase58(), order: pick(open).orderKey });
        await jup.trigger.execute({ requestId: r.requestId, signedTransaction: signBase64(r.transaction, u) });
      },
      recurring: async () => {
        const u = pick(users);
        const inAmount = BigInt(Math.floor((150 + rng.next() * 300) * 1e6));
        const r = await jup.recurring.createOrder({ user: u.publicKey.toBase58(), inputMint: USDC, outputMint: SOL, params: { inAmount, numberOfOrders: 2 + Math.floor(rng.next() * 2), interval: 60 + Math.floor(rng.next() * 120) }, inputUsdPrice: await usd(USDC), inputDecimals: 6 });
        await jup.recurring.execute({ requestId: r.requestId, signedTransaction: signBase64(r.transaction, u) });
      },
      'recurring-cancel': async () => {
        const u = pick(users);
        const open = await recurringOpen(u);
        if (open.length === 0) return;
        const r = await jup.recurring.cancelOrder({ order: pick(open).orderKey, user: u.publicKey.toBase58() });
        await jup.recurring.execute({ requestId: r.requestId, signedTransaction: signBase64(r.transaction, u) });
      },
      send: async () => {
        const u = pick(users);
        const code = generateInviteCode();
        const r = await jup.send.craftSend({ inviteSigner: inviteKeypairFromCode(code).publicKey.toBase58(), sender: u.publicKey.toBase58(), amount: BigInt(1 + Math.floor(rng.next() * 50)) * 1_000_000n, mint: rng.next() < 0.5 ? USDC : undefined });
        await land(r.tx, u, inviteKeypairFromCode(code));
        invites.push({ code, sender: u });
      },
      'send-end': async () => {
        if (invites.length === 0) return;
        const [i] = invites.splice(Math.floor(rng.next() * invites.length), 1);
        if (rng.next() < 0.5) await control(sim, '/send/claim', { code: i!.code, receiver: Keypair.generate().publicKey.toBase58() });
        else await land((await jup.send.craftClawback({ invitePDA: invitePdaFromCode(i!.code).toBase58(), sender: i!.sender.publicKey.toBase58() })).tx, i!.sender);
      },
      lend: async () => {
        const u = pick(users);
        const asset = pick([USDC, SOL]);
        const position = (await jup.lend.getLendPositions({ users: [u.publicKey.toBase58()] })).find((p) => p.token.assetAddress === asset)!;
        if (rng.next() < 0.6 || position.underlyingAssets === 0n) {
          await land((await jup.lend.lendDeposit({ asset, signer: u.publicKey.toBase58(), amount: asset === USDC ? 200_000_000n : 2_000_000_000n })).transaction, u);
        } else {
          await land((await jup.lend.lendWithdraw({ asset, signer: u.publicKey.toBase58(), amount: position.underlyingAssets / 2n + 1n })).transaction, u);
        }
      },
      market: async () => {
        await control(sim, '/price', { mint: SOL, usd: (await usd(SOL)) * (0.95 + rng.next() * 0.1) });
      },
      clock: async () => {
        await control(sim, '/clock', { advanceMs: 1_000 + Math.floor(rng.next() * 180_000) });
      },
    };

    for (let step = 0; step < 60; step += 1) {
      const name = pick(Object.keys(ops));
      await ops[name]!();
      done.push(name);
      await check(users, `after step ${step + 1} (${done.slice(-4).join(', ')})`);
    }
    // The run did something of every kind, and the keepers acted on it.
    expect(new Set(done).size).toBe(Object.keys(ops).length);
    const kinds = new Set(sim.ctx.state.venue.chain.ledger.map((e) => e.kind));
    for (const k of ['trigger-create', 'recurring-create', 'recurring-fill', 'send-invite', 'lend-deposit']) expect(kinds).toContain(k);
  });

  const triggerOpen = (u: Keypair) => pages((page) => jup.trigger.getOrders({ user: u.publicKey.toBase58(), orderStatus: 'active', page }).then((r) => ({ items: r.orders, more: r.hasMore })));
  const recurringOpen = (u: Keypair) =>
    pages((page) => jup.recurring.getOrders({ user: u.publicKey.toBase58(), orderStatus: 'active', recurringType: 'time', page }).then((r) => ({ items: r.orders, more: r.hasMore })));

  async function check(users: Keypair[], where: string): Promise<void> {
    // Listings first: reading lend's pays the interest owed; the clock then stays put until the next step.
    const lendTokens = await jup.lend.getLendTokens();
    await control(sim, '/clock', { advanceMs: 0 });
    const escrows = (await control<{ escrows: Escrow[] }>(sim, '/escrows', undefined, 'GET')).escrows;
    const held = new Map<string, bigint>();
    for (const u of users) {
      for (const o of await triggerOpen(u)) held.set(o.orderKey, o.rawRemainingMakingAmount);
      for (const o of await recurringOpen(u)) if (o.recurringType === 'time') held.set(o.orderKey, o.rawInDeposited - o.rawInUsed - o.rawInWithdrawn);
      const pending = await pages((page) => jup.send.getPendingInvites({ address: u.publicKey.toBase58(), page }).then((r) => ({ items: r.invites, more: r.hasMoreData })));
      for (const i of pending) held.set(i.invitePda, (held.get(i.invitePda) ?? 0n) + i.amount);
    }
    for (const e of escrows) {
      const amount = BigInt(e.amount);
      if (e.product === 'lend') {
        const market = lendTokens.find((t) => t.assetAddress === e.mint);
        expect(amount, `lend vault of ${e.mint} ${where}`).toBe(market?.totalAssets);
        continue;
      }
      // An escrow no open order names holds nothing (its order ended, or its creation was never sent).
      expect(amount, `${e.product} escrow of ${e.authority} ${where}`).toBe(held.get(e.authority) ?? 0n);
    }
    const named = new Set(escrows.map((e) => e.authority));
    for (const order of held.keys()) expect(named.has(order), `open order ${order} without an escrow ${where}`).toBe(true);
  }
});
