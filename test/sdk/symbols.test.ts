import { describe, expect, it } from 'vitest';
import { KNOWN_MINTS } from '../../src/lib/mints.js';
import { KNOWN_SYMBOLS, resolveMint } from '../../src/sdk/symbols.js';

describe("the SDK's symbol table", () => {
  it('is the same table as the one the rest of jup-keeper uses (the SDK may import zod only, so it keeps a copy)', () => {
    const fromLib = Object.fromEntries(KNOWN_MINTS.map((m) => [m.symbol, { mint: m.mint, decimals: m.decimals }]));
    expect(KNOWN_SYMBOLS).toEqual(fromLib);
  });

  it('resolves symbols case-insensitively and passes addresses through', () => {
    expect(resolveMint('usdc')).toBe('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
    expect(resolveMint('wsol')).toBe('So11111111111111111111111111111111111111112');
    expect(resolveMint('NOPE')).toBeUndefined();
  });
});
