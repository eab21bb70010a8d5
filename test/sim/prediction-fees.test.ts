import { describe, expect, it } from 'vitest';
import { affordable, fillFee, walk } from '../../src/sim/products/predictionBook.js';

const contracts = (n: number) => BigInt(Math.round(n * 1_000_000));
const usd = (n: number) => BigInt(Math.round(n * 1_000_000));

// The prediction fee as Jupiter documents it (prediction/index.mdx): charged on fills, rounded up to the cent,
// highest near $0.50. The table's rows, to the cent.
describe('prediction fill fee', () => {
  it.each([
    [0.01, 1, 0.01],
    [0.01, 100, 0.07],
    [0.25, 1, 0.02],
    [0.25, 100, 1.32],
    [0.4, 1, 0.02],
    [0.4, 100, 1.68],
  ])('at $%s, %s contracts cost $%s in fees', (price, n, fee) => {
    expect(fillFee([{ price: usd(price), contracts: contracts(n) }])).toBe(usd(fee));
  });

  it('is largest at $0.50 and symmetric around it', () => {
    const at = (p: number) => fillFee([{ price: usd(p), contracts: contracts(100) }]);
    expect(at(0.5)).toBe(usd(1.75));
    expect(at(0.3)).toBe(at(0.7));
    expect(at(0.5)).toBeGreaterThan(at(0.4));
  });

  it('buys the most contracts a deposit pays for, fee included, in steps of 0.01 contract', () => {
    const levels = [
      { price: usd(0.25), contracts: contracts(10) },
      { price: usd(0.26), contracts: contracts(1_000) },
    ];
    const got = affordable(levels, usd(5));
    const n = got.parts.reduce((s, p) => s + p.contracts, 0n);
    expect(n % 10_000n).toBe(0n);
    expect(got.cost + got.fee).toBeLessThanOrEqual(usd(5));
    // 0.01 contract more would not fit.
    const more = walk(levels, n + 10_000n)!;
    const cost = more.reduce((s, p) => s + (p.contracts * p.price) / 1_000_000n, 0n);
    expect(cost + fillFee(more)).toBeGreaterThan(usd(5));
    expect(got.parts[0]).toMatchObject({ price: usd(0.25), contracts: contracts(10) });
  });
});
