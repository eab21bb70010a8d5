// Symbols outside the SDK's table of twelve, resolved through the venue's token list (GET /tokens/v2/search): the
// matching rules on their own, then the look-up against the simulator over HTTP through our client, then a config
// parsed with what it found.
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { createJupiterClient } from '../../src/jupiter/client.js';
import { tokenInfoSchema, type TokenInfo } from '../../src/jupiter/tokens/index.js';
import { lookUpSymbols, matchSymbol, type SymbolVenue } from '../../src/cli/symbols.js';
import { mintParam, withSymbolLookups } from '../../src/sdk/symbols.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { builtinStrategies } from '../../strategies/index.js';
import { startTestSim, USDC } from '../helpers/sim.js';

/** POPCAT's real mainnet mint, which the simulator lists (verified) next to an unverified copycat. */
const POPCAT = '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr';

let serial = 0;
/** A token as the search returns it: only what matching reads, and a distinct valid mint. */
function token(symbol: string, o: { verified?: boolean; tags?: string[]; id?: string } = {}): TokenInfo {
  serial += 1;
  const id = o.id ?? `${'1'.repeat(40)}${'ABCDEFGHJK'[serial % 10]!}${'LMNPQRSTUV'[Math.floor(serial / 10) % 10]!}`;
  return tokenInfoSchema.parse({ id, name: `${symbol} token`, symbol, decimals: 6, isVerified: o.verified ?? null, tags: o.tags ?? [] });
}

describe('matching a symbol against the tokens a search returned', () => {
  it('takes the one token whose symbol is exactly the one written', () => {
    const real = token('POPCAT', { verified: true });
    const m = matchSymbol('POPCAT', [token('POPCATX', { verified: true }), real, token('POP', { verified: true })]);
    expect(m).toEqual({ ok: true, token: real });
  });

  it('prefers an exact-case match to one in another case', () => {
    const lower = token('wif2', { verified: true });
    expect(matchSymbol('wif2', [token('WIF2', { verified: true }), lower])).toEqual({ ok: true, token: lower });
  });

  it('matches in another case when no token has the exact case', () => {
    const real = token('POPCAT', { verified: true });
    expect(matchSymbol('popcat', [real])).toEqual({ ok: true, token: real });
  });

  it('prefers the verified token to unverified copycats, whether isVerified or the verified tag says so', () => {
    const byFlag = token('POPCAT', { verified: true });
    expect(matchSymbol('POPCAT', [token('POPCAT'), byFlag, token('POPCAT', { verified: false })])).toEqual({ ok: true, token: byFlag });
    const byTag = token('POPCAT', { tags: ['verified', 'community'] });
    expect(matchSymbol('POPCAT', [token('POPCAT'), byTag])).toEqual({ ok: true, token: byTag });
  });

  it('takes a lone unverified token (it is what the symbol names)', () => {
    const only = token('NEWT');
    expect(matchSymbol('NEWT', [only])).toEqual({ ok: true, token: only });
  });

  it('refuses two verified tokens, or two unverified ones, sharing the symbol: it never guesses', () => {
    const [a, b] = [token('DUO', { verified: true }), token('DUO', { verified: true })];
    expect(matchSymbol('DUO', [a, b])).toEqual({ ok: false, candidates: [a, b] });
    const [c, d] = [token('NEWT'), token('NEWT')];
    expect(matchSymbol('NEWT', [c, d])).toEqual({ ok: false, candidates: [c, d] });
  });

  it('refuses an unverified exact-case match while a verified token has the symbol in another case', () => {
    const copy = token('popcat');
    const real = token('POPCAT', { verified: true });
    expect(matchSymbol('popcat', [real, copy])).toEqual({ ok: false, candidates: [copy, real] });
  });

  it('finds nothing in names, prefixes or mints', () => {
    expect(matchSymbol('CAT', [token('POPCAT', { verified: true }), token('CATS', { verified: true })])).toEqual({ ok: false, candidates: [] });
    expect(matchSymbol('Popcat token', [token('POPCAT', { verified: true })])).toEqual({ ok: false, candidates: [] });
  });
});

describe('looking symbols up in the simulator token list, over HTTP through our client', () => {
  let sim: RunningSimulator;
  let venue: SymbolVenue;
  beforeAll(async () => {
    sim = await startTestSim();
    venue = { client: createJupiterClient({ baseUrl: sim.url, tier: 'off' }), url: sim.url };
  });
  afterAll(async () => {
    await sim.close();
  });

  it('resolves POPCAT (and popcat) to the verified real mint, not the copycat, with decimals from the token data', async () => {
    const listed = await venue.client.tokens.searchTokens({ query: 'POPCAT' });
    expect(listed.filter((t) => t.symbol === 'POPCAT').map((t) => t.isVerified)).toEqual([true, false]);
    const { lookups, resolved } = await lookUpSymbols(venue, ['POPCAT', 'popcat', 'POPCAT']);
    expect(lookups.failed.size).toBe(0);
    expect([...lookups.found]).toEqual([
      ['POPCAT', { mint: POPCAT, decimals: 9 }],
      ['popcat', { mint: POPCAT, decimals: 9 }],
    ]);
    expect(resolved).toEqual([
      { symbol: 'POPCAT', mint: POPCAT, name: 'Popcat', decimals: 9, verified: true },
      { symbol: 'popcat', mint: POPCAT, name: 'Popcat', decimals: 9, verified: true },
    ]);
  });

  it('refuses NEWT, which two unverified tokens share, naming both mints; and NOPE, naming the request', async () => {
    const newts = (await venue.client.tokens.searchTokens({ query: 'NEWT' })).filter((t) => t.symbol === 'NEWT');
    expect(newts).toHaveLength(2);
    const { lookups } = await lookUpSymbols(venue, ['NEWT', 'NOPE']);
    expect(lookups.found.size).toBe(0);
    const newt = lookups.failed.get('NEWT')!;
    expect(newt).toMatch(/^"NEWT" is neither a known symbol nor a mint address, and 2 tokens in the venue's token list have that symbol/);
    for (const t of newts) expect(newt).toContain(`${t.id} (${t.name}, unverified)`);
    expect(newt).toContain('write the mint address of the one you mean');
    expect(lookups.failed.get('NOPE')).toBe(`"NOPE" is neither a known symbol nor a mint address, and no token in the venue's token list has that symbol (GET ${sim.url}/tokens/v2/search?query=NOPE)`);
  });

  it('says the venue did not answer when nothing listens at its address, within the time allowed', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const url = `http://127.0.0.1:${port}`;
    const dead: SymbolVenue = { client: createJupiterClient({ baseUrl: url, tier: 'off', timeoutMs: 500 }), url };
    const { lookups } = await lookUpSymbols(dead, ['POPCAT'], 3_000);
    expect(lookups.failed.get('POPCAT')).toMatch(new RegExp(`^"POPCAT" is neither a known symbol nor a mint address, and the venue's token list did not answer \\(GET ${url}/tokens/v2/search\\?query=POPCAT: `));
  }, 20_000);

  describe('a config parsed with what the look-up found', () => {
    const yaml = (params: string) => `venue: { kind: simulator, url: "http://127.0.0.1:1" }
wallet: { paper: true }
strategies:
  - id: buy-popcat
    strategy: dca-swap
    schedule: { every: 10s }
    params: { inputMint: USDC, outputMint: ${params}, amount: "1000000" }
  - id: weights
    strategy: rebalance
    schedule: { every: 10s }
    params: { weights: { ${params}: 0.5, USDC: 0.5 }, quote: USDC, driftPct: 5 }
`;

    it('without look-ups: refused, each unknown symbol named once in unknownSymbols and on the mintParam issue', () => {
      let error: unknown;
      try {
        parseConfig(yaml('POPCAT'), 'k.yaml', builtinStrategies, {});
      } catch (err) {
        error = err;
      }
      expect(error).toBeInstanceOf(ConfigError);
      const e = error as ConfigError;
      expect(e.unknownSymbols).toEqual(['POPCAT']);
      expect(e.issues.find((i) => i.path === 'strategies[0].params.outputMint')).toMatchObject({ symbol: 'POPCAT', message: expect.stringMatching(/^"POPCAT" is neither a known symbol/) });
      // rebalance reads its weights' symbols itself: the look-up scope still sees them.
      expect(e.issues.some((i) => i.path === 'strategies[1].params.weights.POPCAT')).toBe(true);
    });

    it('with them: every strategy gets the mint, mintParam and resolveMint alike', async () => {
      const { lookups } = await lookUpSymbols(venue, ['POPCAT']);
      const config = parseConfig(yaml('POPCAT'), 'k.yaml', builtinStrategies, {}, { symbols: lookups });
      expect(config.strategies[0]!.params).toMatchObject({ inputMint: USDC, outputMint: POPCAT });
      expect(config.strategies[0]!.watches).toEqual({ mints: [USDC, POPCAT] });
      expect(config.strategies[1]!.watches).toEqual({ mints: [POPCAT, USDC] });
    });

    it('with a failed look-up: the reason is reported where the symbol is written, and once for rebalance', async () => {
      const { lookups } = await lookUpSymbols(venue, ['NEWT']);
      let error: unknown;
      try {
        parseConfig(yaml('NEWT'), 'k.yaml', builtinStrategies, {}, { symbols: lookups });
      } catch (err) {
        error = err;
      }
      const e = error as ConfigError;
      expect(e.unknownSymbols).toEqual([]);
      const why = lookups.failed.get('NEWT')!;
      expect(e.issues.filter((i) => i.message === why).map((i) => i.path)).toEqual(['strategies[0].params.outputMint', 'strategies[1].params']);
    });
  });
});

describe('the look-up scope of the SDK', () => {
  it('is in force only inside withSymbolLookups, and records what it could not resolve', () => {
    const lookups = { found: new Map([['POPCAT', { mint: POPCAT, decimals: 9 }]]), failed: new Map<string, string>() };
    const inside = withSymbolLookups(lookups, () => [mintParam.safeParse('POPCAT').data, mintParam.safeParse('MEW').success]);
    expect(inside).toEqual({ result: [POPCAT, false], unknownSymbols: ['MEW'] });
    expect(mintParam.safeParse('POPCAT').success).toBe(false);
    // Mint addresses and the table's symbols are never looked up.
    expect(withSymbolLookups(undefined, () => [mintParam.parse(POPCAT), mintParam.parse('usdc')]).unknownSymbols).toEqual([]);
  });
});
