// `jup-keeper config check` on configs whose params name symbols outside the SDK's table of twelve: they are looked
// up in the token list of the venue the config names (a running simulator, or the in-process one), the built-in
// strategies and a strategy of the user's own (whose params parse in its thread) alike.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../../src/sim/server.js';
import { scratchDir, writeConfig } from '../helpers/keeper.js';
import { startTestSim } from '../helpers/sim.js';
import { hasStackTrace, runCli } from './runCli.js';

const POPCAT = '7GCihgDB8fe6KNjn2MYtkzZcRjQy3t9GHdC8uHYmW2hr';
const BUY_THE_DIP = fileURLToPath(new URL('../../config/strategies/buy-the-dip.ts', import.meta.url));
// Empty values count as unset: a developer's own settings cannot change what the command reports.
const CLEAN_ENV = { SOLANA_RPC_URL: '', JUPKEEPER_KEYPAIR_PATH: '', JUPKEEPER_SECRET_KEY: '', REDIS_URL: '' };

/** A config on `venue` with a dca-swap buying `buy` and the README's buy-the-dip (in its thread) buying `dip`. */
function yaml(venue: string, buy: string, dip: string): string {
  return `venue: ${venue}
wallet: { paper: true }
strategies:
  - id: buy
    strategy: dca-swap
    schedule: { every: 10s }
    params: { inputMint: USDC, outputMint: ${buy}, amount: "1000000" }
  - id: dip
    strategy: ${BUY_THE_DIP}
    schedule: { every: 10s }
    params: { buy: ${dip}, amount: "25000000", dropPct: 10 }
`;
}

describe.concurrent('jup-keeper config check with symbols outside the known table', () => {
  let sim: RunningSimulator;
  const scratch = scratchDir('symbols-cli');
  beforeAll(async () => {
    sim = await startTestSim();
  });
  afterAll(async () => {
    await sim.close();
    scratch.cleanup();
  });
  const onSim = () => `{ kind: simulator, url: "${sim.url}" }`;

  it("resolves POPCAT through the running simulator's token list, prints its mint, and passes", async () => {
    const file = writeConfig(scratch.dir, yaml(onSim(), 'POPCAT', 'popcat'), 'popcat.yaml');
    const run = await runCli(['config', 'check', file], CLEAN_ENV);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(
      [
        `symbol POPCAT is ${POPCAT} (Popcat, 9 decimals, verified) in the venue's token list`,
        `symbol popcat is ${POPCAT} (Popcat, 9 decimals, verified) in the venue's token list`,
        `ok: ${file} (2 strategies: buy, dip)`,
        '',
      ].join('\n'),
    );
    expect(run.code).toBe(0);
  }, 60_000);

  it('refuses NEWT, which two unverified tokens share, listing both mints; and NOPE, naming the request it made', async () => {
    const newts = (await (await fetch(`${sim.url}/tokens/v2/search?query=NEWT`)).json()) as Array<{ id: string; symbol: string }>;
    const mints = newts.filter((t) => t.symbol === 'NEWT').map((t) => t.id);
    expect(mints).toHaveLength(2);
    const file = writeConfig(scratch.dir, yaml(onSim(), 'NEWT', 'NOPE'), 'ambiguous.yaml');
    const run = await runCli(['config', 'check', file], CLEAN_ENV);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const newt = /^ {2}- strategies\[0\]\.params\.outputMint: "NEWT" is neither a known symbol nor a mint address, and 2 tokens in the venue's token list have that symbol .*$/m.exec(run.stderr)?.[0];
    expect(newt).toBeDefined();
    for (const mint of mints) expect(newt).toContain(`${mint} (`);
    expect(newt).toContain('write the mint address of the one you mean');
    // NOPE is read in the buy-the-dip thread: the reason reaches it too.
    expect(run.stderr).toContain(`  - strategies[1].params.buy: "NOPE" is neither a known symbol nor a mint address, and no token in the venue's token list has that symbol (GET ${sim.url}/tokens/v2/search?query=NOPE)\n`);
    expect(run.stderr.startsWith(`error: ${file} is invalid (2 problems):\n`)).toBe(true);
    expect(run.stderr).not.toMatch(/listed above|CONFIG_INVALID/);
    expect(hasStackTrace(run.stderr)).toBe(false);
  }, 60_000);

  it('asks the in-process simulator when the config names no venue URL', async () => {
    const file = writeConfig(scratch.dir, yaml('{ kind: simulator }', 'POPCAT', 'SOL'), 'in-process.yaml');
    const run = await runCli(['config', 'check', file], CLEAN_ENV);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(`symbol POPCAT is ${POPCAT} (Popcat, 9 decimals, verified) in the venue's token list\nok: ${file} (2 strategies: buy, dip)\n`);
    expect(run.code).toBe(0);
  }, 60_000);

  it('is refused, saying where it would resolve, by a command that does not reach the venue', async () => {
    const file = writeConfig(scratch.dir, yaml(onSim(), 'POPCAT', 'SOL'), 'status.yaml');
    const run = await runCli(['status', '--config', file], { ...CLEAN_ENV, REDIS_URL: 'redis://127.0.0.1:1' });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('strategies[0].params.outputMint: "POPCAT" is neither a known symbol');
    expect(run.stderr).toContain("this command does not look symbols up in the venue's token list (`jup-keeper run` and `config check` do): write the mint address");
    expect(hasStackTrace(run.stderr)).toBe(false);
  }, 60_000);
});
