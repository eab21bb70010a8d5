import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { PortfolioAsset, Positions } from '../../src/jupiter/portfolio/index.js';
import type { Market } from '../../src/jupiter/prediction/market.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { SolanaRpc } from '../../src/solana/rpc.js';
import { control, fundedWallet, signBase64, startTestSim, USDC } from '../helpers/sim.js';

const MICRO = 1_000_000n;
const usd = (micro: bigint) => Number(micro) / 1e6;

/** What the fills of an owner's buys took, from the prediction history: contracts, their cost and the fees. */
interface Fills {
  contracts: bigint;
  cost: bigint;
  fees: bigint;
}

// The Portfolio API's prediction fetcher through the project's own client over HTTP: buys placed through the
// prediction API, signed and sent through the venue's RPC, filled by the keeper when told to (frozen clock, so the
// quotes hold still), then the market resolved and the winning position claimed.
describe('prediction positions in the portfolio', { timeout: 60_000 }, () => {
  let sim: RunningSimulator;
  let jup: JupiterClient;
  let rpc: SolanaRpc;
  let market: Market;
  let eventTitle: string | undefined;
  let yes: Keypair;
  let no: Keypair;
  let yesFills: Fills;
  let noFills: Fills;
  beforeAll(async () => {
    sim = await startTestSim({ clockSpeed: 0 });
    jup = createJupiterClient({ baseUrl: sim.url, tier: 'off', retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1 } });
    rpc = new SolanaRpc(`${sim.url}/rpc`);
    const page = await jup.prediction.getEvents({ includeMarkets: true, category: 'politics' });
    const event = page.data.find((e) => e.markets.some(quoted))!;
    expect(event).toBeDefined();
    market = event.markets.find(quoted)!;
    eventTitle = event.metadata?.title;
    yes = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    no = await fundedWallet(sim, 1_000_000_000n, [[USDC, 50_000_000n]]);
    yesFills = await buyAndFill(yes, true, 20_000_000n);
    noFills = await buyAndFill(no, false, 10_000_000n);
  });
  afterAll(async () => {
    await sim.close();
  });

  function quoted(m: Market): boolean {
    return m.isTradable && m.title !== '' && [m.pricing.buyYesPriceUsd, m.pricing.sellYesPriceUsd, m.pricing.buyNoPriceUsd, m.pricing.sellNoPriceUsd].every((p) => p !== null);
  }
  /** Signs a built transaction and sends it through the venue's RPC; it must land. */
  async function send(transaction: string, signer: Keypair): Promise<void> {
    const signature = await rpc.send(Buffer.from(signBase64(transaction, signer), 'base64'));
    const { value } = await rpc.status(signature);
    expect(value?.err).toBeNull();
  }
  async function buyAndFill(w: Keypair, isYes: boolean, depositAmount: bigint): Promise<Fills> {
    const owner = w.publicKey.toBase58();
    const build = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner, marketId: market.marketId, isYes, depositAmount });
    await send(build.transaction, w);
    const filled = await control<{ filled: number; keeperError: string | null }>(sim, '/orders/fill', { order: build.order.orderPubkey });
    expect(filled).toEqual({ filled: 1, keeperError: null });
    const rows = (await jup.prediction.getPredictionHistory({ ownerPubkey: owner })).data.filter((h) => h.eventType === 'order_filled');
    expect(rows.length).toBeGreaterThan(0);
    return {
      contracts: rows.reduce((s, h) => s + h.filledContractsMicro!, 0n),
      cost: rows.reduce((s, h) => s + h.totalCostUsd!, 0n),
      fees: rows.reduce((s, h) => s + h.feeUsd!, 0n),
    };
  }
  const portfolio = (w: Keypair, platforms?: string[]) => jup.portfolio.getPositions({ address: w.publicKey.toBase58(), platforms });
  /** The assets of the portfolio's prediction elements. */
  function predictionAssets(p: Positions): PortfolioAsset[] {
    const elements = p.elements.filter((e) => e.platformId === 'jupiter-prediction');
    return elements.flatMap((e) => (e.type === 'multiple' ? e.data.assets : []));
  }
  function report(p: Positions) {
    return p.fetcherReports.find((r) => r.id === 'jupiter-prediction');
  }

  it('lists the platform', async () => {
    const platforms = await jup.portfolio.getPlatforms();
    expect(platforms.find((x) => x.id === 'jupiter-prediction')).toMatchObject({ name: 'Jupiter Prediction', links: { website: 'https://jup.ag/prediction' } });
  });

  it('values an open position at its contracts times the bid, with its market, side, fees and P&L', async () => {
    const now = await control<{ nowMs: number }>(sim, '/clock', undefined, 'GET');
    const quote = await jup.prediction.getMarket({ marketId: market.marketId });
    const bid = quote.pricing.sellYesPriceUsd!;
    const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: yes.publicKey.toBase58(), marketId: market.marketId })).data;
    const p = await portfolio(yes);
    expect(report(p)).toMatchObject({ status: 'succeeded' });
    expect(p.fetcherReports.every((r) => r.status === 'succeeded')).toBe(true);

    const element = p.elements.find((e) => e.platformId === 'jupiter-prediction');
    expect(element).toMatchObject({ type: 'multiple', label: 'Deposit' });
    const assets = predictionAssets(p);
    expect(assets).toHaveLength(1);
    const [asset] = assets;
    const value = (yesFills.contracts * bid) / MICRO;
    expect(asset).toMatchObject({ type: 'generic', name: market.title, ref: pos!.pubkey, sourceRefs: [{ name: 'Market', address: pos!.market }], link: 'https://jup.ag/prediction' });
    expect(asset!.value).toBe(usd(value));
    expect(element!.value).toBe(usd(value));
    expect(asset!.type === 'generic' && asset!.data).toEqual({ amount: usd(yesFills.contracts), price: usd(bid) });
    const pnl = value - yesFills.cost;
    // Bought at the asks, marked at the bid: under water by the spread before fees.
    expect(pnl).toBeLessThan(0n);
    expect(asset!.attributes.isClaimable).toBeUndefined();
    expect(asset!.attributes.prediction).toEqual({
      market: { marketTitle: market.title, eventTitle, closeTime: market.closeTime * 1000 },
      sideName: 'Yes',
      feesPaidValue: usd(yesFills.fees),
      pnlValue: usd(pnl),
      pnlPercent: expect.closeTo((Number(pnl) / Number(yesFills.cost)) * 100, 9),
      pnlAfterFeesValue: usd(pnl - yesFills.fees),
      pnlAfterFeesPercent: expect.closeTo((Number(pnl - yesFills.fees) / Number(yesFills.cost)) * 100, 9),
      createdAt: Math.floor(now.nowMs / 1000) * 1000,
    });
    expect(yesFills.fees).toBeGreaterThan(0n);
  });

  it('reports the NO side at the NO bid', async () => {
    const quote = await jup.prediction.getMarket({ marketId: market.marketId });
    const [asset] = predictionAssets(await portfolio(no));
    expect(asset!.value).toBe(usd((noFills.contracts * quote.pricing.sellNoPriceUsd!) / MICRO));
    expect(asset!.attributes.prediction).toMatchObject({ sideName: 'No', market: { marketTitle: market.title } });
  });

  it('runs only the prediction fetcher when asked for its platform', async () => {
    const p = await portfolio(yes, ['jupiter-prediction']);
    expect(p.fetcherReports.map((r) => [r.id, r.status])).toEqual([['jupiter-prediction', 'succeeded']]);
    expect(p.elements.map((e) => e.platformId)).toEqual(['jupiter-prediction']);
  });

  describe('once the market resolves YES', () => {
    beforeAll(async () => {
      await control(sim, '/prediction/resolve', { marketId: market.marketId, result: 'yes' });
    });

    it('values the winning position at $1 a contract, claimable, with its resolution time', async () => {
      const resolved = await jup.prediction.getMarket({ marketId: market.marketId });
      expect(typeof resolved.resolveAt).toBe('string');
      const p = await portfolio(yes, ['jupiter-prediction']);
      expect(report(p)).toMatchObject({ status: 'succeeded' });
      const [asset] = predictionAssets(p);
      expect(asset!.value).toBe(usd(yesFills.contracts));
      expect(p.value).toBe(usd(yesFills.contracts));
      expect(asset!.type === 'generic' && asset!.data.price).toBe(1);
      expect(asset!.attributes.isClaimable).toBe(true);
      expect(asset!.attributes.prediction).toMatchObject({
        sideName: 'Yes',
        market: { marketTitle: market.title, closeTime: market.closeTime * 1000, resolveAt: Date.parse(resolved.resolveAt as string) },
        pnlValue: usd(yesFills.contracts - yesFills.cost),
        pnlAfterFeesValue: usd(yesFills.contracts - yesFills.cost - yesFills.fees),
      });
    });

    it('does not list the losing NO position', async () => {
      const p = await portfolio(no);
      expect(report(p)).toMatchObject({ status: 'succeeded' });
      expect(p.elements.filter((e) => e.platformId === 'jupiter-prediction')).toEqual([]);
    });

    it('drops the position once claimed', async () => {
      const [pos] = (await jup.prediction.getPredictionPositions({ ownerPubkey: yes.publicKey.toBase58(), marketId: market.marketId })).data;
      const claim = await jup.prediction.claimPredictionPosition({ positionPubkey: pos!.pubkey, ownerPubkey: yes.publicKey.toBase58() });
      await send(claim.transaction, yes);
      const p = await portfolio(yes);
      expect(report(p)).toMatchObject({ status: 'succeeded' });
      expect(p.elements.filter((e) => e.platformId === 'jupiter-prediction')).toEqual([]);
    });
  });
});
