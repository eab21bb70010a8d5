import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, PublicKey, TransactionInstruction, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import { BadRequestError } from '../../src/jupiter/errors.js';
import type { LendTokenInfo } from '../../src/jupiter/lend/index.js';
import { liquidityPda } from '@jup-ag/lend';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { balances, control, fundedWallet, ledger, startTestSim, SOL, USDC } from '../helpers/sim.js';

const YEAR_MS = 365 * 86_400_000;
const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';
const JL_WSOL = '2uQsyo1fXXQkDtcpXnLofWy88PxcvnfH2L8FPSE62FVU';
const USDC_VAULT = 'BmkUoKMFYBxNSzWXyUjyMJjMAaVz4d8ZnxwwmhDCUXFB';

// Lend Earn through the project's own client over real HTTP, on a frozen clock that only the tests move.
describe('lend earn on the simulator', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  /** Wallets holding jlUSDC, in the order they deposited. */
  const wallets: Keypair[] = [];
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
  });
  afterAll(async () => {
    await sim.close();
  });

  /** Signs a transaction the venue built and sends it through the simulator's RPC; resolves with its signature. */
  async function land(transaction: string, signer: Keypair): Promise<string> {
    const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
    tx.sign([signer]);
    return rpc.send(tx.serialize());
  }

  async function usdcMarket(): Promise<LendTokenInfo> {
    const token = (await jup.lend.getLendTokens()).find((t) => t.assetAddress === USDC);
    if (!token) throw new Error('no USDC market');
    return token;
  }

  async function position(wallet: Keypair, jlToken: string) {
    const all = await jup.lend.getLendPositions({ users: [wallet.publicKey.toBase58()] });
    const p = all.find((x) => x.token.address === jlToken);
    if (!p) throw new Error(`no position in ${jlToken}`);
    return p;
  }

  it('lists its markets with the real jlToken mints, rates on the 1e4 scale and camelCase assets', async () => {
    const res = await fetch(`${sim.url}/lend/v1/earn/tokens`);
    const raw = (await res.json()) as Array<Record<string, unknown>>;
    const usdc = raw.find((t) => t.assetAddress === USDC)!;
    expect(usdc).toMatchObject({ address: JL_USDC, symbol: 'jlUSDC', decimals: 6, supplyRate: '313', rewardsRate: '110', totalRate: '423', rewards: [] });
    expect(usdc.asset).toMatchObject({ address: USDC, chainId: 'solana', symbol: 'USDC', decimals: 6 });
    expect(typeof usdc.id).toBe('number');
    expect(typeof usdc.totalAssets).toBe('string');
    const tokens = await jup.lend.getLendTokens();
    expect(tokens.map((t) => t.address)).toEqual(expect.arrayContaining([JL_USDC, JL_WSOL]));
    expect(tokens.find((t) => t.address === JL_WSOL)).toMatchObject({ symbol: 'jlWSOL', assetAddress: SOL, decimals: 9 });
  });

  it('deposits USDC into the liquidity vault and mints jlUSDC, on the ledger as lend-deposit', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 200_000_000n]]);
    wallets.push(user);
    const { transaction } = await jup.lend.lendDeposit({ asset: USDC, signer: user.publicKey.toBase58(), amount: 150_000_000n });
    const vaultBefore = sim.ctx.state.escrows.balance(new PublicKey(USDC_VAULT));
    const signature = await land(transaction, user);
    expect((await balances(sim, user)).tokens[USDC]).toBe(50_000_000n);
    expect(sim.ctx.state.escrows.balance(new PublicKey(USDC_VAULT)) - vaultBefore).toBe(150_000_000n);
    const p = await position(user, JL_USDC);
    expect(p.shares).toBeGreaterThan(0n);
    expect(p.underlyingAssets).toBeLessThanOrEqual(150_000_000n);
    expect(p.underlyingAssets).toBeGreaterThanOrEqual(149_999_999n);
    expect(p.underlyingBalance).toBe(50_000_000n);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'lend-deposit', wallet: user.publicKey.toBase58(), inputMint: USDC, inputAmount: '150000000', outputMint: JL_USDC, outputAmount: p.shares.toString() });
    const escrow = (await control<{ escrows: Array<{ address: string; product: string; authority: string }> }>(sim, '/escrows', undefined, 'GET')).escrows.find((e) => e.address === USDC_VAULT);
    // The vault's authority is the liquidity program's `liquidity` PDA (the SDK derives it with the published seeds).
    expect(escrow).toMatchObject({ product: 'lend', authority: liquidityPda.getLiquidity().toBase58() });
  });

  it('pays back more than was deposited after sim time passes, by the configured rate', async () => {
    await control(sim, '/lend/rate', { asset: 'USDC', supplyRate: 500, rewardsRate: 100 });
    // Every earlier position leaves first, so that this one is alone in the vault and its yield is exact.
    await drainUsdc();
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 1_000_000_000n]]);
    await land((await jup.lend.lendDeposit({ asset: USDC, signer: user.publicKey.toBase58(), amount: 1_000_000_000n })).transaction, user);
    const elapsed = 30 * 86_400_000;
    await control(sim, '/clock', { advanceMs: elapsed });
    const { shares } = await position(user, JL_USDC);
    await land((await jup.lend.lendRedeem({ asset: USDC, signer: user.publicKey.toBase58(), shares })).transaction, user);
    // 6.00 % a year (500 + 100 bps) for 30 days on 1,000 USDC, paid in one update: 4.931506 USDC.
    const expected = 1_000_000_000n + (1_000_000_000n * 600n * BigInt(elapsed)) / (10_000n * BigInt(YEAR_MS));
    expect((await balances(sim, user)).tokens[USDC]).toBe(expected);
    expect(expected - 1_000_000_000n).toBe(4_931_506n);
    const [earning] = await jup.lend.getLendEarnings({ user: user.publicKey.toBase58(), positions: [JL_USDC] });
    expect(earning).toMatchObject({ address: JL_USDC, ownerAddress: user.publicKey.toBase58(), earnings: 4_931_506n, totalDeposits: 1_000_000_000n, totalWithdraws: expected });
  });

  /** Redeems every jlUSDC position of the wallets this file created: the last one out takes the whole vault. */
  async function drainUsdc(): Promise<void> {
    for (const w of wallets) {
      const { shares } = await position(w, JL_USDC);
      if (shares > 0n) await land((await jup.lend.lendRedeem({ asset: USDC, signer: w.publicKey.toBase58(), shares })).transaction, w);
    }
  }

  it('withdraws an exact amount, burning the jlTokens it is worth (rounded up) and no more', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 100_000_000n]]);
    wallets.push(user);
    await land((await jup.lend.lendDeposit({ asset: USDC, signer: user.publicKey.toBase58(), amount: 100_000_000n })).transaction, user);
    await control(sim, '/clock', { advanceMs: 10 * 86_400_000 });
    const before = await position(user, JL_USDC);
    const market = await usdcMarket();
    const signature = await land((await jup.lend.lendWithdraw({ asset: USDC, signer: user.publicKey.toBase58(), amount: 40_000_000n })).transaction, user);
    expect((await balances(sim, user)).tokens[USDC]).toBe(40_000_000n);
    const burnt = before.shares - (await position(user, JL_USDC)).shares;
    expect(burnt).toBe((40_000_000n * market.totalSupply + market.totalAssets - 1n) / market.totalAssets);
    expect((await ledger(sim)).find((t) => t.signature === signature)).toMatchObject({ kind: 'lend-withdraw', inputMint: JL_USDC, inputAmount: burnt.toString(), outputMint: USDC, outputAmount: '40000000' });
  });

  it('mints an exact number of shares and redeems them', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 50_000_000n]]);
    wallets.push(user);
    await land((await jup.lend.lendMint({ asset: USDC, signer: user.publicKey.toBase58(), shares: 20_000_000n })).transaction, user);
    expect((await position(user, JL_USDC)).shares).toBe(20_000_000n);
    const paid = 50_000_000n - (await balances(sim, user)).tokens[USDC]!;
    expect(paid).toBeGreaterThanOrEqual(20_000_000n);
    await land((await jup.lend.lendRedeem({ asset: USDC, signer: user.publicKey.toBase58(), shares: 20_000_000n })).transaction, user);
    expect((await position(user, JL_USDC)).shares).toBe(0n);
    // Rounding favours the vault both ways: a round trip never gains.
    expect((await balances(sim, user)).tokens[USDC]).toBeLessThanOrEqual(50_000_000n);
    expect((await balances(sim, user)).tokens[USDC]).toBeGreaterThanOrEqual(49_999_998n);
  });

  it('deposits and withdraws native SOL through the wrapped-SOL vault', async () => {
    const user = await fundedWallet(sim, 3_000_000_000n);
    wallets.push(user);
    await land((await jup.lend.lendDeposit({ asset: SOL, signer: user.publicKey.toBase58(), amount: 2_000_000_000n })).transaction, user);
    const afterDeposit = (await balances(sim, user)).lamports;
    expect(afterDeposit).toBeLessThan(1_000_000_000n);
    const { shares } = await position(user, JL_WSOL);
    expect(shares).toBe(2_000_000_000n);
    await land((await jup.lend.lendRedeem({ asset: SOL, signer: user.publicKey.toBase58(), shares })).transaction, user);
    // The whole deposit comes back as lamports, less the redeem's fees.
    expect((await balances(sim, user)).lamports - afterDeposit).toBeGreaterThan(1_999_980_000n);
  });

  it('hands out the same operation as instructions for a transaction of ones own, which the keeper co-signs', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 10_000_000n]]);
    wallets.push(user);
    const raw = (await (await fetch(`${sim.url}/lend/v1/earn/deposit-instructions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ asset: USDC, signer: user.publicKey.toBase58(), amount: '10000000' }) })).json()) as { instructions: unknown[] };
    expect(Array.isArray(raw.instructions)).toBe(true);
    const { instructions } = await jup.lend.lendDepositInstructions({ asset: USDC, signer: user.publicKey.toBase58(), amount: 10_000_000n });
    expect(instructions.at(-1)?.programId).toBe('jup3YeL8QhtSx1e253b2FDvsMNC87fDrgQZivbrndc9');
    const ixs = instructions.map((i) => new TransactionInstruction({ programId: new PublicKey(i.programId), keys: i.accounts.map((a) => ({ pubkey: new PublicKey(a.pubkey), isSigner: a.isSigner, isWritable: a.isWritable })), data: Buffer.from(i.data, 'base64') }));
    const { tx } = sim.ctx.state.venue.chain.buildTransaction(user.publicKey, ixs);
    tx.sign([user]);
    await rpc.send(tx.serialize());
    expect((await position(user, JL_USDC)).shares).toBeGreaterThan(0n);
    expect((await balances(sim, user)).tokens[USDC] ?? 0n).toBe(0n);
  });

  it('reports one position per jlToken even at zero, and earnings only for its own jlTokens', async () => {
    const nobody = Keypair.generate().publicKey.toBase58();
    const all = await jup.lend.getLendPositions({ users: [nobody] });
    expect(all.length).toBe((await jup.lend.getLendTokens()).length);
    expect(all.every((p) => p.ownerAddress === nobody && p.shares === 0n && p.underlyingAssets === 0n)).toBe(true);
    const earnings = await jup.lend.getLendEarnings({ user: nobody, positions: [JL_USDC, USDC] });
    expect(earnings).toEqual([expect.objectContaining({ address: JL_USDC, earnings: 0n })]);
  });

  it('answers bad requests with 400 and the service error shape, and builds nothing', async () => {
    const user = Keypair.generate().publicKey.toBase58();
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${sim.url}/lend/v1/earn/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { error?: unknown } };
    };
    for (const [path, body] of [
      ['deposit', { asset: 'BONKxx', signer: user, amount: '1' }],
      ['deposit', { asset: USDC, signer: user, amount: '-5' }],
      ['withdraw', { asset: USDC, signer: user }],
      ['mint', { asset: USDC, signer: user, amount: '5' }],
      ['redeem', { asset: USDC, signer: user, shares: '1.5' }],
      ['deposit', 'not json'],
    ] as const) {
      const r = await post(path, body);
      expect(r.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
    // An asset without a market (JUP) is refused by name.
    await expect(jup.lend.lendDeposit({ asset: 'JUPyiwrYJFskUPiHa7hkeR8VUtAeFoSYbKedZNsDvCN', signer: user, amount: 1n })).rejects.toBeInstanceOf(BadRequestError);
    const res = await fetch(`${sim.url}/lend/v1/earn/positions`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toMatch(/users/);
    expect((await fetch(`${sim.url}/lend/v1/earn/earnings?user=${user}`)).status).toBe(400);
  });

  it('builds a withdrawal larger than the position, which then fails on chain and moves nothing', async () => {
    const user = await fundedWallet(sim, 100_000_000n, [[USDC, 5_000_000n]]);
    await land((await jup.lend.lendDeposit({ asset: USDC, signer: user.publicKey.toBase58(), amount: 5_000_000n })).transaction, user);
    const vault = sim.ctx.state.escrows.balance(new PublicKey(USDC_VAULT));
    const { transaction } = await jup.lend.lendWithdraw({ asset: USDC, signer: user.publicKey.toBase58(), amount: 9_000_000n });
    await expect(land(transaction, user)).rejects.toThrow();
    expect(sim.ctx.state.escrows.balance(new PublicKey(USDC_VAULT))).toBe(vault);
    expect((await balances(sim, user)).tokens[USDC] ?? 0n).toBe(0n);
  });
});
