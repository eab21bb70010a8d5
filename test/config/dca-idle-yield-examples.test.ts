import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { builtinStrategies } from '../../strategies/index.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const JUP = KNOWN_SYMBOLS.JUP!.mint;
const example = (name: string) => fileURLToPath(new URL(`../../config/examples/${name}`, import.meta.url));
const usdc = (n: number) => BigInt(n * 1e6);

describe('config/examples/dca.yaml', () => {
  it('loads with the built-in strategies: one dca in each mode', () => {
    const config = loadConfig(example('dca.yaml'), builtinStrategies, {});
    expect(config.strategies.map((s) => [s.id, s.definition.name, (s.params as { mode: string }).mode])).toEqual([
      ['dca-usdc-sol-recurring', 'dca', 'recurring'],
      ['dca-sol-jup-swaps', 'dca', 'swaps'],
    ]);
    expect(config.strategies[0]!.params).toMatchObject({ inputMint: USDC, outputMint: SOL, total: usdc(200), numberOfOrders: 4, interval: 86_400, rounds: 3 });
    expect(config.strategies[1]!.params).toMatchObject({ inputMint: SOL, outputMint: JUP, amount: 50_000_000n, maxPriceUsd: 2 });
  });
});

describe('config/examples/idle-yield.yaml', () => {
  it('loads with the built-in strategies: idle-yield beside a dca that spends the same USDC', () => {
    const config = loadConfig(example('idle-yield.yaml'), builtinStrategies, {});
    expect(config.strategies.map((s) => [s.id, s.definition.name])).toEqual([
      ['idle-usdc', 'idle-yield'],
      ['buy-sol-daily', 'dca'],
    ]);
    expect(config.strategies[0]!.params).toEqual({ asset: USDC, reserve: usdc(100), minMove: usdc(5), maxMove: usdc(400) });
  });
});
