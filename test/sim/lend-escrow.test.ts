import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VersionedTransaction, type Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { control, fundedWallet, startTestSim, SOL, USDC } from '../helpers/sim.js';

/** A small deterministic PRNG (mulberry32): the same sequence of operations on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

// The lend share of "every escrow balance equals the sum of what its open orders say they hold": after any
// sequence of deposits, withdrawals, mints, redeems and time passing, each Earn vault holds exactly what the
// listing says its jlTokens are worth, and the wallets' positions add up to that (less at most one base unit each,
// the rounding that stays in the vault).
describe('lend vaults after a random sequence of operations', { timeout: 120_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
  });
  afterAll(async () => {
    await sim.close();
  });

  async function land(transaction: string, signer: Keypair): Promise<void> {
    const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
    tx.sign([signer]);
    await rpc.send(tx.serialize());
  }

  async function checkVaults(wallets: Keypair[]): Promise<void> {
    // The listing first: reading it pays what each vault is owed, and the clock is frozen until the next step.
    const tokens = await jup.lend.getLendTokens();
    const escrows = (await control<{ escrows: Array<{ product: string; mint: string; amount: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.filter((e) => e.product === 'lend');
    const positions = await jup.lend.getLendPositions({ users: wallets.map((w) => w.publicKey.toBase58()) });
    for (const t of tokens) {
      const vault = escrows.find((e) => e.mint === t.assetAddress);
      expect(vault, t.symbol).toBeDefined();
      expect(BigInt(vault!.amount), t.symbol).toBe(t.totalAssets);
      expect(t.rebalanceDifference, t.symbol).toBe(0n);
      const mine = positions.filter((p) => p.token.address === t.address);
      expect(mine.reduce((n, p) => n + p.shares, 0n), t.symbol).toBe(t.totalSupply);
      const held = mine.reduce((n, p) => n + p.underlyingAssets, 0n);
      expect(held, t.symbol).toBeLessThanOrEqual(t.totalAssets);
      expect(t.totalAssets - held, t.symbol).toBeLessThanOrEqual(BigInt(mine.filter((p) => p.shares > 0n).length));
    }
  }

  it('keeps every vault equal to what its jlTokens are worth', async () => {
    const wallets = await Promise.all([0, 1, 2].map(() => fundedWallet(sim, 20_000_000_000n, [[USDC, 5_000_000_000n]])));
    const random = prng(8);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
    const amount = (max: bigint): bigint => 1n + BigInt(Math.floor(random() * Number(max)));
    let operations = 0;
    for (let step = 0; step < 40; step += 1) {
      const w = pick(wallets);
      const signer = w.publicKey.toBase58();
      const asset = pick([USDC, USDC, SOL]);
      // Up to 300 USDC or 3 SOL at a time: a wallet never runs out over 40 steps.
      const most = asset === USDC ? 300_000_000n : 3_000_000_000n;
      const position = (await jup.lend.getLendPositions({ users: [signer] })).find((p) => p.token.assetAddress === asset)!;
      switch (pick(['deposit', 'mint', 'withdraw', 'redeem', 'time'] as const)) {
        case 'deposit':
          await land((await jup.lend.lendDeposit({ asset, signer, amount: amount(most) })).transaction, w);
          break;
        case 'mint':
          await land((await jup.lend.lendMint({ asset, signer, shares: amount(most / 2n) })).transaction, w);
          break;
        case 'withdraw':
          if (position.underlyingAssets === 0n) continue;
          await land((await jup.lend.lendWithdraw({ asset, signer, amount: amount(position.underlyingAssets) })).transaction, w);
          break;
        case 'redeem':
          if (position.shares === 0n) continue;
          await land((await jup.lend.lendRedeem({ asset, signer, shares: random() < 0.3 ? position.shares : amount(position.shares) })).transaction, w);
          break;
        case 'time':
          await control(sim, '/clock', { advanceMs: Math.floor(random() * 20 * 86_400_000) + 1 });
          break;
      }
      operations += 1;
      await checkVaults(wallets);
    }
    expect(operations).toBeGreaterThan(25);
  });
});
