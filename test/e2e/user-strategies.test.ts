import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { intentKeys } from '../../src/store/intentLayout.js';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { sleep, startHarness, withTimeout, type Harness } from '../helpers/exactlyOnce.js';
import { writeConfig } from '../helpers/keeper.js';
import { airdrop, control, SOL, USDC } from '../helpers/sim.js';
import { runCli } from '../cli/runCli.js';

// Strategies of the user's own, named by path in the config, in a running keeper against the venue: the guide's
// example buys the dip; four broken ones (a throw, bad intents, an endless loop, a memory hog) are each stopped and
// reported with their cause, in the log and in `jup-keeper status`; a built-in beside them keeps every window.

const file = (rel: string): string => fileURLToPath(new URL(rel, import.meta.url));
const EXAMPLE = file('../../config/strategies/buy-the-dip.ts');
const broken = (name: string): string => file(`../fixtures/user-strategies/${name}.ts`);
const DCA_RUNS = 5;
const DCA_EVERY_MS = 2_000;

describe('strategies of the user\'s own in a running keeper', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness('user-strategies');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('runs the example from a file outside src/, and four broken ones are stopped and reported while the others keep their cadence', async ({ onTestFailed }) => {
    const c = await h.newCase('user');
    c.dumpOnFailure(onTestFailed);
    await airdrop(h.sim, c.keypair, USDC, 100_000_000n);
    const config = writeConfig(
      h.dir,
      `venue:
  kind: simulator
  url: ${h.sim.url}
wallet: {}
redis:
  prefix: ${c.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  minSolReserveLamports: "10000000"
execution:
  reconcileEvery: 2s
feeds:
  prices: 1s
  wallet: 1s
isolation:
  # Long enough for the hog to reach its memory limit first on a loaded machine: the limit is wall time, and under
  # CI load the hog's thread twice ran 3 s without reaching 64 MB (idle, it takes 0.4 s).
  decisionTimeout: 10s
  memoryLimitMb: 64
strategies:
  - id: dip
    strategy: ${EXAMPLE}
    schedule: { every: 2s }
    params: { buy: SOL, amount: "5000000", dropPct: 10 }
  - id: dca
    strategy: dca-swap
    schedule: { every: 2s }
    # USDC to USDT: a pair the dip (SOL's price halved) does not move (a swap quoted before a move fails after it)
    params: { inputMint: USDC, outputMint: USDT, amount: "1000000", maxRuns: ${DCA_RUNS} }
  - id: throws
    strategy: ${broken('throws')}
    schedule: { every: 2s }
  - id: bad
    strategy: ${broken('bad-intents')}
    schedule: { every: 2s }
  - id: endless
    strategy: ${broken('endless')}
    schedule: { every: 2s }
  - id: hog
    strategy: ${broken('memory-hog')}
    schedule: { every: 2s }
`,
      `${c.prefix}.yaml`,
    );
    const k = c.spawn({ config, durationSeconds: 140 });
    const states = new StrategyStateStore(h.redis.client(), c.prefix);
    // Once the example has seen SOL's price (its high), SOL falls by half: the dip.
    await withTimeout(
      (async () => {
        while ((await states.lastDecision('dip'))?.outcome !== 'nothing') await sleep(100);
      })(),
      60_000,
      'the example did not decide',
    );
    const prices = (await (await fetch(`${h.sim.url}/price/v3?ids=${SOL}`)).json()) as Record<string, { usdPrice: number }>;
    await control(h.sim, '/price', { mint: SOL, usd: prices[SOL]!.usdPrice / 2 });
    const causes: Record<string, RegExp> = {
      throws: /decide\(\) threw: division by zero in my model/,
      bad: /intent 0 is invalid: outputMint/,
      endless: /decide\(\) ran longer than 10000 ms and was stopped/,
      hog: /ran out of memory \(the limit is 64 MB\)/,
    };
    await withTimeout(
      (async () => {
        for (;;) {
          const intents = await c.intents();
          const landed = (id: string) => intents.filter((r) => r.instance === id && r.state === 'landed').length;
          const decisions = await Promise.all(Object.keys(causes).map((id) => states.lastDecision(id)));
          if (landed('dca') >= DCA_RUNS && landed('dip') >= 1 && decisions.every((d) => d?.outcome === 'error')) return;
          await sleep(250);
        }
      })(),
      90_000,
      'the example and the built-in did not land, or a broken strategy was not reported',
    );

    // In status, each broken instance's last decision is an error with its cause.
    const status = await runCli(['status', '--json', '--prefix', c.prefix, '--redis-url', h.redis.url]);
    expect(status.code, status.stderr).toBe(0);
    const shown = (JSON.parse(status.stdout) as { strategies: Array<{ id: string; lastDecision: { outcome: string; message?: string } | null }> }).strategies;
    for (const [id, cause] of Object.entries(causes)) {
      const s = shown.find((x) => x.id === id);
      expect(s?.lastDecision?.outcome, id).toBe('error');
      expect(s?.lastDecision?.message, id).toMatch(cause);
    }
    // And in the log, each with its instance and cause.
    const failures = k.logs().filter((l) => l.msg === 'strategy failed; its decision is discarded and the bot keeps running');
    for (const [id, cause] of Object.entries(causes)) {
      expect(failures.some((l) => l.instance === id && cause.test(String((l.err as { message?: string } | undefined)?.message))), `a log line for ${id}`).toBe(true);
    }

    const intents = await c.intents();
    // The example: one buy of the dip (its cooldown is a day), paid in USDC, with its reason.
    const dip = intents.filter((r) => r.instance === 'dip');
    expect(dip.map((r) => [r.state, r.intent.kind, r.intent.reason])).toEqual([['landed', 'swap', expect.stringMatching(/^\d+\.\d % below its high of \$\d+\.\d\d$/)]]);
    expect(dip[0]!.intent).toMatchObject({ inputMint: USDC, outputMint: SOL, amount: 5_000_000n });
    expect(dip[0]!.strategy).toBe('buy-the-dip@1.0.0');
    // Nothing from the broken ones reached the ledger.
    expect(intents.filter((r) => r.instance in causes)).toEqual([]);
    // The built-in decided in consecutive windows, none skipped while the broken ones were being stopped.
    const dca = intents.filter((r) => r.instance === 'dca');
    expect(dca.map((r) => r.state)).toEqual(Array<string>(DCA_RUNS).fill('landed'));
    const windows = await Promise.all(dca.map(async (r) => Number(await h.redis.client().hget(intentKeys(c.prefix).record(r.id), 'windowStart'))));
    windows.sort((a, b) => a - b);
    expect(windows.slice(1).map((w, i) => w - windows[i]!)).toEqual(Array<number>(DCA_RUNS - 1).fill(DCA_EVERY_MS));
    expect(await c.stop(k)).toBe(0);
  }, 150_000);

  it('refuses to start on a strategy module that does not load or params its schema refuses, naming each', async () => {
    const config = writeConfig(
      h.dir,
      `venue:
  kind: simulator
  url: ${h.sim.url}
wallet: { paper: true }
strategies:
  - id: dip
    strategy: ${EXAMPLE}
    schedule: { every: 2s }
    params: { buy: DOGE, amount: "0", dropPct: 10 }
  - id: future
    strategy: ${broken('wrong-sdk')}
    schedule: { every: 2s }
  - id: gone
    strategy: ./nowhere/mine.ts
    schedule: { every: 2s }
`,
      'broken-user.yaml',
    );
    const out = await runCli(['config', 'check', config]);
    expect(out.code).toBe(1);
    expect(out.stderr).toMatch(/strategies\[0\]\.params\.buy: "DOGE" is neither a known symbol/);
    expect(out.stderr).toMatch(/strategies\[0\]\.params\.amount: expected a positive integer amount/);
    expect(out.stderr).toMatch(/strategies\[1\]\.strategy: the strategy module .*wrong-sdk\.ts: written for SDK 2; this keeper's SDK is 1/);
    expect(out.stderr).toMatch(/strategies\[2\]\.strategy: the strategy module .*nowhere\/mine\.ts does not load/);
    expect(out.stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('the strategy guide (docs/strategies.md) shows that example exactly as the file this test runs', () => {
    const guide = readFileSync(file('../../docs/strategies.md'), 'utf8');
    const section = guide.slice(guide.indexOf('## Write your own strategy'));
    const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(readFileSync(EXAMPLE, 'utf8'));
  });
});
