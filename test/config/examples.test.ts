import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseConfig } from '../../src/config/index.js';
import { builtinStrategies, dcaSwap, thresholdRebalance } from '../../strategies/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';

const PAPER = fileURLToPath(new URL('../../config/paper.yaml', import.meta.url));
const LIVE = fileURLToPath(new URL('../../config/live.example.yaml', import.meta.url));
const LIVE_ENV = { SOLANA_RPC_URL: 'https://rpc.example.com', JUPKEEPER_KEYPAIR_PATH: '/etc/jup-keeper/keeper.json' };
const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;

function problems(run: () => unknown): string[] {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err.issues.map((i) => `${i.path}: ${i.message}`);
    throw err;
  }
  return [];
}

describe('config/paper.yaml', () => {
  it('loads with no environment at all: the simulator, a funded paper wallet and one instance of every built-in strategy', () => {
    const config = loadConfig(PAPER, builtinStrategies, {});
    expect(config.venue.kind).toBe('simulator');
    expect(config.venue.url).toBeUndefined();
    expect(config.redis.url).toBeUndefined();
    expect(config.wallet.paper).toBe(true);
    expect(config.wallet.fund).toMatchObject({ SOL: 10_000_000_000n, USDC: 1_000_000_000n });
    expect(config.strategies.map((s) => s.definition.name).sort()).toEqual([...builtinStrategies.names()]);
    expect(config.strategies.slice(0, 2).map((s) => [s.id, s.definition, s.schedule])).toEqual([
      ['dca-sol-usdc', dcaSwap, { every: 15_000 }],
      ['rebalance-sol-usdc', thresholdRebalance, { every: 20_000 }],
    ]);
    expect(config.strategies[0]!.params).toMatchObject({ inputMint: SOL, outputMint: USDC, amount: 10_000_000n, via: 'ultra' });
  });

  it('is frozen, and keeps the environment out of its enumerable fields', () => {
    const config = loadConfig(PAPER, builtinStrategies, { JUPITER_API_KEY: 'jup_not_a_real_key_123' });
    expect(Object.isFrozen(config) && Object.isFrozen(config.strategies[0]!.params)).toBe(true);
    expect(config.env.JUPITER_API_KEY).toBe('jup_not_a_real_key_123');
    expect(Object.keys(config)).not.toContain('env');
  });
});

describe('config/live.example.yaml', () => {
  it('loads once SOLANA_RPC_URL and JUPKEEPER_KEYPAIR_PATH are set', () => {
    const config = loadConfig(LIVE, builtinStrategies, LIVE_ENV);
    expect(config.venue).toMatchObject({ kind: 'live', url: 'https://api.jup.ag' });
    expect(config.venue.rpcUrl).toBeUndefined();
    expect(config.wallet.keypairPath).toBeUndefined();
    expect(config.risk).toMatchObject({ maxNotionalUsdPerIntent: 25, maxDailyNotionalUsd: 100, maxSlippageBps: 50 });
    expect(config.strategies.map((s) => [s.id, s.schedule])).toEqual([['dca-usdc-sol', { cron: '0 14 * * *', tz: 'UTC' }]]);
  });

  it('without that environment names both missing settings', () => {
    expect(problems(() => loadConfig(LIVE, builtinStrategies, {}))).toEqual([
      'venue.rpcUrl: a live venue needs a Solana RPC endpoint: set venue.rpcUrl or SOLANA_RPC_URL',
      'wallet: no wallet: set wallet.keypairPath, JUPKEEPER_KEYPAIR_PATH or JUPKEEPER_SECRET_KEY (or wallet.paper: true on the simulator)',
    ]);
  });
});

describe('parseConfig', () => {
  const MINIMAL = 'venue: { kind: simulator }\nwallet: { paper: true }\n';

  it('reports a malformed environment variable under (env), with the file problems', () => {
    const text = `${MINIMAL}strategies: []\n`;
    expect(problems(() => parseConfig(text, 'x.yaml', builtinStrategies, { SOLANA_RPC_URL: 'not a url' }))).toEqual([
      '(env).SOLANA_RPC_URL: Invalid URL',
      'strategies: at least one strategy instance is required',
    ]);
  });

  it('lets strategies share params through YAML merge keys', () => {
    const text = `${MINIMAL}strategies:
  - { id: a, strategy: dca-swap, schedule: { every: 15s }, params: &sol-usdc { inputMint: SOL, outputMint: USDC, amount: "1000" } }
  - { id: b, strategy: dca-swap, schedule: { every: 1m }, params: { <<: *sol-usdc, amount: "2000" } }
`;
    const config = parseConfig(text, 'x.yaml', builtinStrategies, {});
    expect(config.strategies[1]!.params).toMatchObject({ inputMint: SOL, outputMint: USDC, amount: 2_000n });
  });

  it('refuses an alias bomb as a config error rather than crashing', () => {
    const text = `a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n`;
    expect(problems(() => parseConfig(text, 'x.yaml', builtinStrategies, {}))[0]).toMatch(/^\(yaml\): /);
  });

  it('refuses a redis URL with a password without repeating it', () => {
    const text = `${MINIMAL}redis: { url: "redis://:hunter2hunter2@redis.internal:6379" }\nstrategies:\n  - { id: a, strategy: dca-swap, schedule: { every: 15s }, params: { inputMint: SOL, outputMint: USDC, amount: "1000" } }\n`;
    const found = problems(() => parseConfig(text, 'x.yaml', builtinStrategies, {}));
    expect(found).toEqual([expect.stringMatching(/^redis\.url: this URL carries a credential/)]);
    expect(found.join('\n')).not.toContain('hunter2');
  });
});
