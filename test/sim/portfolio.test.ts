import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { PortfolioAsset, PortfolioElement } from '../../src/jupiter/portfolio/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { control, fundedWallet, JUP, signBase64, startTestSim, SOL, USDC } from '../helpers/sim.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

// The Portfolio API through the project's own client: a wallet's holdings, its Earn deposit and its open limit
// and recurring orders, each read by its platform's fetcher from the chain.
describe('portfolio positions on the simulator', { timeout: 90_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let user: Keypair;
  let limitOrder: string;
  beforeAll(async () => {
    sim = await startTestSim();
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(sim.rpcUrl);
    user = await fundedWallet(sim, 2_000_000_000n, [[USDC, 1_000_000_000n], [JUP, 50_000_000n]]);
    const owner = user.publicKey.toBase58();
    // 100 USDC in Earn.
    const dep = VersionedTransaction.deserialize(Buffer.from((await jup.lend.lendDeposit({ asset: USDC, signer: owner, amount: 100_000_000n })).transaction, 'base64'));
    dep.sign([user]);
    await rpc.send(dep.serialize());
    // A limit order selling 20 USDC for twice the SOL they fetch at the market: it rests.
    const solUsd = (await jup.price.getPrices({ ids: [SOL] }))[SOL]!.usdPrice;
    const taking = BigInt(Math.floor((40 / solUsd) * 1e9));
    const created = await jup.trigger.createOrder({ inputMint: USDC, outputMint: SOL, maker: owner, payer: owner, params: { makingAmount: 20_000_000n, takingAmount: taking } });
    limitOrder = created.order!;
    await jup.trigger.execute({ requestId: created.requestId, signedTransaction: signBase64(created.transaction, user) });
    // A recurring order: 300 USDC into SOL over 3 daily cycles.
    const recurring = await jup.recurring.createOrder({ user: owner, inputMint: USDC, outputMint: SOL, params: { inAmount: 300_000_000n, numberOfOrders: 3, interval: 86_400 }, inputUsdPrice: 1, inputDecimals: 6 });
    await jup.recurring.execute({ requestId: recurring.requestId, signedTransaction: signBase64(recurring.transaction, user) });
  });
  afterAll(async () => {
    await sim.close();
  });

  const byLabel = (elements: PortfolioElement[], label: string) => elements.filter((e) => e.label === label);
  /** The wallet's token holdings across its `Wallet` elements: UI amount by mint. */
  const walletAmounts = (elements: PortfolioElement[]): Map<string, number> => {
    const assets: PortfolioAsset[] = byLabel(elements, 'Wallet').flatMap((e) => (e.type === 'multiple' ? e.data.assets : []));
    return new Map(assets.flatMap((a) => (a.type === 'token' ? [[a.data.address, a.data.amount] as const] : [])));
  };

  it('reports the wallet, the Earn deposit and the open orders, every fetcher succeeded', async () => {
    const before = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    const p = await jup.portfolio.getPositions({ address: user.publicKey.toBase58() });
    expect(p.owner).toBe(user.publicKey.toBase58());
    expect(p.date).toBe(before.nowMs);
    expect(p.fetcherReports.length).toBeGreaterThanOrEqual(5);
    expect(p.fetcherReports.every((r) => r.status === 'succeeded')).toBe(true);

    const wallet = walletAmounts(p.elements);
    expect(wallet.get(JUP)).toBe(50);
    // 1,000 USDC less 100 in Earn, 20 in the limit order and 300 in the recurring order.
    expect(wallet.get(USDC)).toBe(580);
    expect(wallet.get(SOL)).toBeGreaterThan(1.9);
    // jlUSDC is not a wallet holding here: the lend fetcher reports it as what it is worth.
    expect(wallet.has(JL_USDC)).toBe(false);

    const [lend] = byLabel(p.elements, 'Lending');
    expect(lend).toMatchObject({ type: 'borrowlend', platformId: 'jupiter-lend' });
    if (lend?.type !== 'borrowlend') throw new Error('no lend element');
    expect(lend.data.suppliedAssets[0]).toMatchObject({ type: 'token', data: { address: USDC, amount: 100 } });
    expect(lend.value).toBeCloseTo(100, 3);
    expect(lend.data.suppliedYields[0]![0]!.apr).toBeCloseTo(0.0423, 6);

    const [limit] = byLabel(p.elements, 'LimitOrder');
    if (limit?.type !== 'trade') throw new Error('no limit-order element');
    expect(limit).toMatchObject({ platformId: 'jupiter-exchange', data: { inputAddress: USDC, outputAddress: SOL, initialInputAmount: 20, filledPercentage: 0, ref: limitOrder } });
    expect(limit.data.createdAt).toBeGreaterThan(1_000_000_000_000);
    expect(limit.value).toBeCloseTo(20, 6);

    const [dca] = byLabel(p.elements, 'DCA');
    if (dca?.type !== 'trade') throw new Error('no DCA element');
    expect(dca.data).toMatchObject({ inputAddress: USDC, outputAddress: SOL, initialInputAmount: 300, recurring: { cycles: 3, interval: 86_400_000 } });

    // The total is what the elements are worth.
    expect(p.value).toBeCloseTo(p.elements.reduce((n, e) => n + (e.value ?? 0), 0), 6);
    expect(p.tokenInfo?.solana?.[USDC]).toMatchObject({ symbol: 'USDC', decimals: 6 });
  });

  it('runs only the fetchers of the platforms asked for', async () => {
    const p = await jup.portfolio.getPositions({ address: user.publicKey.toBase58(), platforms: ['jupiter-lend'] });
    expect(p.fetcherReports.map((r) => r.id)).toEqual(['jupiter-lend-earn']);
    expect(p.elements.map((e) => e.platformId)).toEqual(['jupiter-lend']);
  });

  it('drops an order once it is filled, and the wallet shows what the fill paid', async () => {
    const sol = async () => {
      const w = await jup.portfolio.getPositions({ address: user.publicKey.toBase58(), platforms: ['wallet-tokens'] });
      return walletAmounts(w.elements).get(SOL) ?? 0;
    };
    const before = await sol();
    await control(sim, '/orders/fill', { order: limitOrder });
    const p = await jup.portfolio.getPositions({ address: user.publicKey.toBase58(), platforms: ['jupiter-exchange'] });
    expect(byLabel(p.elements, 'LimitOrder')).toEqual([]);
    expect(byLabel(p.elements, 'DCA')).toHaveLength(1);
    expect(await sol()).toBeGreaterThan(before);
  });

  it('answers an empty wallet with no elements, and a bad address with 400', async () => {
    const nobody = Keypair.generate().publicKey.toBase58();
    const p = await jup.portfolio.getPositions({ address: nobody });
    expect(p.elements).toEqual([]);
    expect(p.value).toBe(0);
    const res = await fetch(`${sim.url}/portfolio/v1/positions/not-an-address`);
    expect(res.status).toBe(400);
    expect(typeof ((await res.json()) as { error: unknown }).error).toBe('string');
  });

  it('lists its platforms and reports no staked JUP', async () => {
    const platforms = await jup.portfolio.getPlatforms();
    expect(platforms.map((x) => x.id)).toEqual(expect.arrayContaining(['wallet-tokens', 'jupiter-exchange', 'jupiter-lend']));
    expect(await jup.portfolio.getStakedJup({ address: user.publicKey.toBase58() })).toEqual({ stakedAmount: 0, unstaking: [] });
  });
});
