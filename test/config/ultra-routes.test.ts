// The config of Ultra's real routes (issue 21, item 3): `api.ultra.excludeRouters` and `api.ultra.maxQuoteAge`, and
// `venue.allowPrograms`, the reviewed programs each API area may call at the top level. Mistakes are reported all at
// once, each naming the file and the field.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';

const OKX_ROUTER = 'proVF4pMXVaYqmy4NjniPh4pqKNfMmsihgd4wdkCX3u';
const DFLOW = 'DF1ow4tspfHX9JwWJsAb9epbkA8hmpSEAtxXy1V27QBH';

const config = (venue: string, api: string) => `venue: { kind: simulator${venue} }
${api ? `api: { ${api} }\n` : ''}wallet: { paper: true }
strategies:
  - id: dca
    strategy: dca-swap
    schedule: { every: 1m }
    params: { inputMint: SOL, outputMint: USDC, amount: "1000000" }
`;

function problems(venue: string, api: string): string[] {
  try {
    parseConfig(config(venue, api), 'ultra.yaml', builtinStrategies, {});
    return [];
  } catch (err) {
    if (err instanceof ConfigError) return [err.file, ...err.issues.map((i) => `${i.path}: ${i.message}`)];
    throw err;
  }
}

describe('the config of Ultra\'s routes', () => {
  it('defaults to no excluded router, a 60 s maximum quote age and no extra program', () => {
    const c = parseConfig(config('', ''), 'ultra.yaml', builtinStrategies, {});
    expect(c.api.ultra).toEqual({ excludeRouters: [], maxQuoteAge: 60_000 });
    expect(c.venue.allowPrograms).toEqual({});
  });

  it('reads excluded routers, the quote age and reviewed programs per area', () => {
    const c = parseConfig(config(`, allowPrograms: { ultra: [${OKX_ROUTER}, ${DFLOW}] }`, 'ultra: { excludeRouters: [jupiterz, okx], maxQuoteAge: 45s }'), 'ultra.yaml', builtinStrategies, {});
    expect(c.api.ultra).toEqual({ excludeRouters: ['jupiterz', 'okx'], maxQuoteAge: 45_000 });
    expect(c.venue.allowPrograms).toEqual({ ultra: [OKX_ROUTER, DFLOW] });
  });

  it('names the file and each bad field: an unknown router, every router excluded, a bound out of range, a bad or repeated program, an unknown area', () => {
    expect(problems(`, allowPrograms: { ultra: [not-a-program, ${DFLOW}, ${DFLOW}], perps: [${DFLOW}] }`, 'ultra: { excludeRouters: [metis, jupiterz, dflow, okx], maxQuoteAge: 1s }')).toEqual([
      'ultra.yaml',
      'venue.allowPrograms.ultra[0]: expected a program id (base58 of 32 bytes)',
      'venue.allowPrograms.ultra: lists a program more than once',
      'venue.allowPrograms: unknown field "perps"',
      'api.ultra.excludeRouters: excludes every router (metis, jupiterz, dflow, okx): Ultra would have no route',
      'api.ultra.maxQuoteAge: must be between 5s and 2m, got 1s',
    ]);
    expect(problems('', 'ultra: { excludeRouters: [hashflow] }')[1]).toMatch(/^api\.ultra\.excludeRouters\[0\]: /);
  });
});
