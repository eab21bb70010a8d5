// Issue 21, item 5: the table of what is proven on the live service (docs/going-live.md) is src/execution/liveRoutes.ts, and that
// table is held to the tests: a proven route names corpus transactions that exist and are not waiting on a feature
// (test/solana/corpus.test.ts runs each through the guard), every route names test files that exist, and every intent
// kind has at least one route. `config check` on a live config prints the rows of the routes its enabled strategies
// declare, a route whose routers api.ultra.excludeRouters all excludes left out, and a strategy of the user's own as
// undeclared.
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import { LIVE_ROUTES, liveTableMarkdown } from '../../src/execution/liveRoutes.js';
import { INTENT_KINDS } from '../../src/sdk/intents.js';
import { fixtureIds } from '../helpers/corpusFixture.js';
import { runCli } from '../cli/runCli.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CORPUS_TEST = readFileSync(join(ROOT, 'test/solana/corpus.test.ts'), 'utf8');

describe('what docs/going-live.md says is proven on the live service', () => {
  it('is the table of src/execution/liveRoutes.ts, word for word', () => {
    const readme = readFileSync(join(ROOT, 'docs/going-live.md'), 'utf8');
    const start = readme.indexOf('<!-- live-routes:start');
    const end = readme.indexOf('<!-- live-routes:end -->');
    expect(start).toBeGreaterThan(0);
    expect(readme.slice(readme.indexOf('\n', start) + 1, end).trim()).toBe(liveTableMarkdown());
  });

  it('calls a route proven only with corpus transactions that exist and are run, and names tests that exist for every route', () => {
    const corpus = new Set(fixtureIds());
    for (const r of LIVE_ROUTES) {
      const where = `${r.product}: ${r.route}`;
      if (r.status === 'proven') expect(r.fixtures.length, where).toBeGreaterThan(0);
      for (const id of r.fixtures) {
        expect(corpus.has(id), `${where}: fixture ${id}`).toBe(true);
        // A fixture the corpus test still skips (its AWAITING map) proves nothing yet.
        expect(CORPUS_TEST.includes(`'${id}':`), `${where}: fixture ${id} is awaiting a feature`).toBe(false);
      }
      expect(r.tests.length, where).toBeGreaterThan(0);
      for (const t of r.tests) expect(existsSync(join(ROOT, t)), `${where}: ${t}`).toBe(true);
    }
  });

  it('has a route for every intent kind', () => {
    for (const kind of INTENT_KINDS) expect(LIVE_ROUTES.some((r) => r.kinds.includes(kind)), kind).toBe(true);
  });
});

describe('config check on a live config', () => {
  const dir = mkdtempSync(join(tmpdir(), 'jk-live-routes-'));
  const keypair = join(dir, 'keeper.json');
  writeFileSync(keypair, JSON.stringify(Array.from(Keypair.generate().secretKey)));
  // The README's example of a strategy of the user's own.
  const userStrategy = fileURLToPath(new URL('../../config/strategies/buy-the-dip.ts', import.meta.url));
  const config = (extra: string) => {
    const file = join(dir, `live-${Math.random().toString(36).slice(2)}.yaml`);
    writeFileSync(file, `venue: { kind: live, url: https://api.jup.ag }
wallet: { paper: false, keypairPath: ${keypair} }
${extra}
strategies:
  - { id: dip, strategy: dca-swap, schedule: { every: 1h }, params: { inputMint: USDC, outputMint: SOL, amount: "5000000", via: metis } }
  - { id: yes, strategy: prediction-edge, schedule: { every: 1m }, params: { fair: { POLY-1: 0.6 }, orderUsd: 5, maxEventUsd: 20 } }
  - { id: mine, strategy: ${userStrategy}, schedule: { every: 1m }, params: { buy: SOL, amount: "25000000", dropPct: 8 } }
`);
    return file;
  };
  const env = { SOLANA_RPC_URL: 'https://rpc.example.com', JUPITER_API_KEY: 'k', JUPKEEPER_KEYPAIR_PATH: '', JUPKEEPER_SECRET_KEY: '', REDIS_URL: '' };
  const line = (r: (typeof LIVE_ROUTES)[number]) => `    ${r.status.padEnd(8)} ${r.product}: ${r.route} (${r.note})`;
  const route = (product: string, part: string) => LIVE_ROUTES.find((r) => r.product === product && r.route.includes(part))!;

  it('prints the routes each enabled strategy declares, the keeper\'s own jobs, and a strategy of the user\'s own as undeclared', async () => {
    const run = await runCli(['config', 'check', config('')], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const out = run.stdout;
    expect(out).toContain('  dip (dca-swap):\n');
    expect(out).toContain(`${line(route('Swap (Metis)', 'ExactIn'))}\n`);
    // A Metis swap takes none of Ultra's routes.
    expect(out).not.toContain('Swap (Ultra)');
    expect(out).toContain('  yes (prediction-edge):\n');
    expect(out).toContain(`${line(route('Prediction', 'buy'))}\n`);
    expect(out).toContain('  keeper jobs (claims, stale orders):\n');
    expect(out).toContain(`${line(route('Prediction', 'claim'))}\n`);
    expect(out).toContain('  mine (');
    expect(out).toMatch(/mine \(.*\): undeclared/);
  });

  it('leaves out an Ultra route whose routers are all excluded', async () => {
    const ultra = (excluded: string) => config(`api: { ultra: { excludeRouters: [${excluded}] } }`);
    const swapUltra = (file: string) => writeFileSync(file, readFileSync(file, 'utf8').replace('via: metis', 'via: ultra'));
    const both = ultra('dflow, okx');
    swapUltra(both);
    const a = await runCli(['config', 'check', both], env);
    expect(a.stdout).toContain(`${line(route('Swap (Ultra)', 'JupiterZ'))}\n`);
    expect(a.stdout).not.toContain('DFlow and OKX');
    const rfq = ultra('jupiterz');
    swapUltra(rfq);
    const b = await runCli(['config', 'check', rfq], env);
    expect(b.stdout).not.toContain('JupiterZ');
    expect(b.stdout).toContain(`${line(route('Swap (Ultra)', 'DFlow'))}\n`);
  });
});
