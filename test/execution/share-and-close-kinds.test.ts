import { describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { balances, control, ledger, USDC } from '../helpers/sim.js';
import { executorFor, useExecutorWorld, type WalletExecutor } from '../helpers/executorKit.js';

const JL_USDC = '9BEcn9aPEmhSPbPQeFGjidRiEKki46fVQDyPpSQXPA2D';

// The share-denominated Lend Earn intents (lend.mint, lend.redeem) and a whole-position prediction sale
// (prediction.closePosition), carried out by the real executor against the simulator: each lands once through the
// guard, moves exactly what it says, and a venue build outside the intent's bounds is not signed.
describe('the executor with lend.mint, lend.redeem and prediction.closePosition', { timeout: 120_000 }, () => {
  const world = useExecutorWorld('share-kinds');

  async function landed(s: WalletExecutor, intent: Intent): Promise<string> {
    const { result, rec } = await s.run(intent);
    expect(s.reports.at(-1)?.violations ?? [], 'guard violations').toEqual([]);
    expect(result).toEqual({ state: 'landed' });
    return rec.signature!;
  }
  const shares = async (owner: string) => (await balances(world.sim, owner)).tokens[JL_USDC] ?? 0n;

  it('mints exact shares for at most maxAmount, then redeems exact shares back to USDC', async () => {
    const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 50_000_000n]] });
    const owner = s.wallet.address;
    await landed(s, { kind: 'lend.mint', asset: USDC, shares: 10_000_000n, maxAmount: 12_000_000n });
    expect(await shares(owner)).toBe(10_000_000n);
    const paid = 50_000_000n - (await balances(world.sim, owner)).tokens[USDC]!;
    expect(paid).toBeGreaterThan(0n);
    expect(paid).toBeLessThanOrEqual(12_000_000n);

    const sig = await landed(s, { kind: 'lend.redeem', asset: USDC, shares: 4_000_000n });
    expect(await shares(owner)).toBe(6_000_000n);
    expect((await ledger(world.sim)).filter((t) => t.signature === sig)).toEqual([expect.objectContaining({ kind: 'lend-withdraw', wallet: owner, outputMint: USDC })]);
  });

  it('does not sign a mint whose shares cost more than the intent\'s maxAmount', async () => {
    const s = await executorFor(world, { lamports: 100_000_000n, tokens: [[USDC, 50_000_000n]] });
    const { result, rec } = await s.run({ kind: 'lend.mint', asset: USDC, shares: 10_000_000n, maxAmount: 5_000_000n });
    expect(result.state).toBe('rejected');
    expect(rec.signature).toBeNull();
    expect(rec.error).toMatchObject({ code: 'GUARD_REFUSED', rule: expect.stringContaining('escrow-amount') });
    expect((await balances(world.sim, s.wallet.address)).tokens[USDC]).toBe(50_000_000n);
  });

  it('sells a whole filled position at no less than the intent\'s floor', async () => {
    const s = await executorFor(world, { lamports: 200_000_000n, tokens: [[USDC, 40_000_000n]] });
    const owner = s.wallet.address;
    const events = await world.jup.prediction.getEvents({ category: 'all', includeMarkets: true });
    const market = events.data.flatMap((e) => e.markets).find((m) => m.status === 'open' && m.isTradable && m.pricing.buyYesPriceUsd !== null && m.pricing.buyYesPriceUsd < 800_000n)!;
    const buy = await s.run({ kind: 'prediction.buy', marketId: market.marketId, side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 990_000n });
    expect(buy.result).toEqual({ state: 'landed' });
    // The venue's keepers fill the buy.
    await control(world.sim, '/clock', { advanceMs: 5_000 });
    const positions = await world.jup.prediction.getPredictionPositions({ ownerPubkey: owner });
    const position = positions.data.find((p) => p.marketId === market.marketId && p.isYes)!;
    expect(position.contractsMicro ?? position.contracts * 1_000_000n).toBeGreaterThan(0n);

    // A floor above what the venue offers: nothing is signed.
    const tooHigh = await s.run({ kind: 'prediction.closePosition', positionPubkey: position.pubkey, minPriceMicroUsd: 990_000n });
    expect(tooHigh.result.state).toBe('rejected');
    expect(tooHigh.rec.error?.code).toBe('PREDICTION_PRICE_LIMIT');
    expect(tooHigh.rec.signature).toBeNull();

    const before = (await balances(world.sim, owner)).tokens[USDC]!;
    await landed(s, { kind: 'prediction.closePosition', positionPubkey: position.pubkey, minPriceMicroUsd: 10_000n });
    await control(world.sim, '/clock', { advanceMs: 5_000 });
    const after = await world.jup.prediction.getPredictionPositions({ ownerPubkey: owner });
    const left = after.data.find((p) => p.pubkey === position.pubkey);
    expect(left?.contracts ?? 0n).toBe(0n);
    expect((await balances(world.sim, owner)).tokens[USDC]!).toBeGreaterThan(before);
  });
});
