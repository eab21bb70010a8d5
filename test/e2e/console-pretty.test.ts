// Acceptance (issue 13, item 3), end to end: `jup-keeper run --log-format pretty` on the simulator prints a banner
// (venue, wallet, strategies with their schedules, the risk limits), one human line per fill with its amounts and
// price, and a summary line at stop; `--log-format json` keeps the JSON lines whatever the config says.
import { afterAll, describe, expect, it } from 'vitest';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';
import { dcaSwapsConfig, spawnKeeper, useKeeperEnv, writeConfig, writeKeypair, type KeeperProcess } from '../helpers/keeper.js';
import { airdrop, SOL } from '../helpers/sim.js';

describe('the human console of a paper run', () => {
  const env = useKeeperEnv('console-pretty');
  const keepers: KeeperProcess[] = [];
  afterAll(() => {
    for (const k of keepers) if (k.proc.exitCode === null && k.proc.signalCode === null) k.kill('SIGKILL');
  });

  const setUp = async (name: string, extra = '') => {
    const wallet = writeKeypair(env.dir, `${name}.json`);
    await airdrop(env.sim, wallet.keypair, SOL, 2_000_000_000n);
    const config = writeConfig(
      env.dir,
      dcaSwapsConfig({ venueUrl: env.sim.url, prefix: `e2e-${name}`, logLevel: 'info', instances: [{ id: 'dca-sol-usdc', inputMint: 'SOL', outputMint: 'USDC', amount: 50_000_000n, everySeconds: 1, maxRuns: 2 }], extra }),
      `${name}.yaml`,
    );
    return { wallet, config };
  };

  it('shows the banner, a line per fill with amounts and price, and the summary at stop', { timeout: 120_000 }, async () => {
    const { wallet, config } = await setUp('pretty');
    const k = spawnKeeper(['run', '--config', config, '--wallet', wallet.path, '--redis-url', env.redis.url, '--log-format', 'pretty']);
    keepers.push(k);
    const text = () => k.stderr.join('');
    const fills = () => text().match(/^\d\d:\d\d:\d\d filled {2}dca-sol-usdc {2}swap 0\.05 SOL → [\d,.]+ USDC @ [\d,.]+ USD\/SOL {2}fee [\d.e-]+ SOL {2}sig \w{4}…\w{4}$/gm) ?? [];
    await waitUntil(`two fill lines; stderr:\n${text().slice(-3000)}`, () => fills().length >= 2 || undefined, 90_000);
    expect(await stopKeeper(k)).toBe(0);
    const out = text();

    // The banner: paper, unmistakably; the wallet; each strategy with its schedule; the limits of the config.
    const rule = '='.repeat(78);
    const banner = out.slice(out.indexOf(rule), out.indexOf(rule, out.indexOf(rule) + 1) + rule.length);
    expect(banner).toContain(' jup-keeper  PAPER TRADING on the simulator (no real money)');
    expect(banner).toContain(` venue      simulator at ${env.sim.url}`);
    expect(banner).toContain(` wallet     ${wallet.keypair.publicKey.toBase58()}`);
    expect(banner).toMatch(/ strategies 1\n {3}dca-sol-usdc {2}dca-swap {2}every 1s\n/);
    expect(banner).toMatch(/ limits\n {3}per intent {12}\$1,000\.00 max\n {3}per UTC day {11}\$100,000\.00 max\n/);
    expect(banner).toContain('   SOL reserve           0.01 SOL kept');

    // One line per trade: the three JSON lines of each are folded into the fill line.
    expect(fills()).toHaveLength(2);
    expect(out).not.toMatch(/intent planned|signature persisted|"msg"/);
    // The summary at stop, before the last line.
    const lines = out.trimEnd().split('\n');
    expect(lines.at(-1)).toMatch(/INFO {3}keeper stopped$/);
    // Its scope (the session: this run of the keeper), its trades as `trades` counts them, realised and unrealised P&L.
    expect(lines.at(-2)).toMatch(/^\d\d:\d\d:\d\d summary {2}session \d+ \(\d+[smh]\w*\): 2 trades, \$[\d,.]+ volume, [\d.e-]+ SOL fees, P&L realised -?\$[\d,.]+, unrealised (-?\$[\d,.]+|unknown), 0 refusals$/);
  });

  it('keeps JSON lines with --log-format json, even when the config asks for pretty', { timeout: 120_000 }, async () => {
    const { wallet, config } = await setUp('json', '');
    const pretty = config.replace(/\.yaml$/, '-pretty.yaml');
    const { readFileSync, writeFileSync } = await import('node:fs');
    writeFileSync(pretty, readFileSync(config, 'utf8').replace('logging:\n  level: info', 'logging:\n  level: info\n  format: pretty\n  summaryEvery: 10s'));
    const k = spawnKeeper(['run', '--config', pretty, '--wallet', wallet.path, '--redis-url', env.redis.url, '--log-format', 'json']);
    keepers.push(k);
    const filled = await k.waitForLog((l) => l.msg === 'filled', 90_000);
    // The JSON of a fill: amounts in base units with their symbols and decimals, and the price.
    expect(filled).toMatchObject({ instance: 'dca-sol-usdc', kind: 'swap', in: { symbol: 'SOL', amount: '50000000', decimals: 9 }, out: { symbol: 'USDC', decimals: 6 }, priceUnit: 'USD/SOL', price: expect.any(Number), signature: expect.any(String) });
    expect(k.logs().find((l) => l.msg === 'keeper started')).toMatchObject({ instances: [{ id: 'dca-sol-usdc', strategy: 'dca-swap', schedule: 'every 1s' }], limits: { maxNotionalUsdPerIntent: 1000, minSolReserveLamports: '10000000' } });
    expect(await stopKeeper(k)).toBe(0);
    expect(k.logs().at(-2)).toMatchObject({ msg: 'summary', period: expect.stringMatching(/^session \d+$/), session: expect.any(Number), trades: expect.any(Number), volumeUsd: expect.any(Number), feesLamports: expect.any(String), refusals: 0 });
    expect(k.logs().at(-1)?.msg).toBe('keeper stopped');
  });
});
