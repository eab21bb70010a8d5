import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';

const BAD = fileURLToPath(new URL('../fixtures/configs/bad/', import.meta.url));
// An explicit, empty environment: a developer's SOLANA_RPC_URL or JUPKEEPER_KEYPAIR_PATH must not change results.
const NO_ENV = {};

interface Case {
  /** Substrings the error must contain, each naming the field (path) and the reason. */
  expect: string[];
  /** How many problems the error lists. */
  problems: number;
  /** Text that must never appear in the error (secrets from the file). */
  secret?: string;
}

const CASES: Record<string, Case> = {
  'amount-object.yaml': { problems: 1, expect: ['strategies[0].params.amount: expected an integer amount in base units'] },
  'clock-speed-word.yaml': { problems: 1, expect: ['venue.simulator.clockSpeed: Invalid input: expected number, received string'] },
  'typo-stratgies.yaml': { problems: 2, expect: ['(root): unknown field "stratgies"; did you mean "strategies"?', 'strategies: missing (expected array)\n'] },
  // A typo is answered with the nearest known name of that object: here the one it is a prefix of.
  'risk-unknown-field.yaml': { problems: 1, expect: ['risk: unknown field "maxNotionalUSD"; did you mean "maxNotionalUsdPerIntent"?'] },
  'typo-strategy-name.yaml': { problems: 1, expect: ['strategies[0].strategy: unknown strategy "dca-swp" (did you mean "dca-swap"?); known: dca, dca-swap, '] },
  // A field left out or left empty is missing, whatever its schema says of a wrong value.
  'dca-amount-missing.yaml': {
    problems: 2,
    expect: ['risk.maxSlippageBps: missing (expected number)\n', 'strategies[0].params.amount: missing (expected an integer amount in base units, as a string such as "1000000")'],
  },
  // The known names are checked one by one: the list grows as built-in strategies are added.
  'unknown-strategy.yaml': { problems: 1, expect: ['strategies[0].strategy: unknown strategy "grid"; known: dca, dca-swap, ', 'idle-yield', 'prediction-edge', 'threshold-rebalance'] },
  'cron-minute-61.yaml': { problems: 1, expect: ['strategies[0].schedule.cron: invalid cron expression "61 * * * *": 61 is a invalid expression for minute'] },
  'cron-in-words.yaml': { problems: 1, expect: ['strategies[0].schedule.cron: invalid cron expression "every 5 min": expected 5 or 6 fields'] },
  'bad-durations.yaml': {
    problems: 2,
    expect: ['strategies[0].schedule.every: expected a duration such as "500ms", "10s", "5m" or "1h", got "5 mins"', 'feeds.prices: must be between 1s and 1h, got 100ms'],
  },
  'bad-timezone.yaml': { problems: 1, expect: ['strategies[0].schedule.tz: unknown time zone'] },
  'schedule-both.yaml': { problems: 1, expect: ['strategies[0].schedule: set either "every" or "cron", not both'] },
  'duplicate-ids.yaml': { problems: 1, expect: ['strategies[1].id: duplicate id "dca" (also strategies[0])'] },
  'missing-wallet.yaml': { problems: 1, expect: ['wallet: no wallet: set wallet.keypairPath, JUPKEEPER_KEYPAIR_PATH or JUPKEEPER_SECRET_KEY'] },
  'fund-unknown-symbol.yaml': { problems: 1, expect: ['wallet.fund.USCD: not a known symbol'] },
  'slippage-zero.yaml': { problems: 1, expect: ['risk.maxSlippageBps: Too small: expected number to be >=1'] },
  'slippage-9000.yaml': { problems: 1, expect: ['risk.maxSlippageBps: Too big: expected number to be <=5000'] },
  'intents-zero.yaml': { problems: 1, expect: ['risk.maxIntentsPerEvaluation: Too small: expected number to be >=1'] },
  'notional-negative.yaml': { problems: 1, expect: ['risk.maxNotionalUsdPerIntent: Too small: expected number to be >0'] },
  'secret-api-key-field.yaml': {
    problems: 1,
    expect: ['api.apiKey: secrets must not be written in the config file'],
    secret: '3f9c2a41-0d7e-4b8a-9c55-ab12cd34ef56',
  },
  'secret-secret-key-field.yaml': {
    problems: 1,
    expect: ['wallet.secretKey: secrets must not be written in the config file'],
    secret: '4wBqpZM9xaSheZzJSMawUKKwhdpChKbZ5eu5ky4Vigw9UmZnU8kHiP1XxwxR4KzQXkH6J5Jf3SEU4M3vQnLdtPmZ',
  },
  'secret-byte-array.yaml': { problems: 1, expect: ['wallet.keypairPath: looks like a secret key (64 bytes)'], secret: '11, 48, 85, 122' },
  'secret-jup-value.yaml': { problems: 1, expect: ['api.key: looks like an API key or a secret key'], secret: 'jup_9f8e7d6c5b4a3f2e1d0c' },
  'secret-rpc-url.yaml': { problems: 1, expect: ['venue.rpcUrl: this URL carries a credential'], secret: '0b7f3c2e-91aa-4d1e-b3c5-7d9e2f1a6c48' },
  'invalid-yaml.yaml': { problems: 1, expect: ['line 5, column 8: bad indentation of a mapping entry'] },
  'live-without-rpc.yaml': { problems: 1, expect: ['venue.rpcUrl: a live venue needs a Solana RPC endpoint: set venue.rpcUrl or SOLANA_RPC_URL'] },
  'dca-amount-decimal.yaml': { problems: 1, expect: ['strategies[0].params.amount: expected a positive integer amount in base units (e.g. "1000000"), got "1.5"'] },
  'rebalance-weight-percent.yaml': { problems: 1, expect: ['strategies[0].params.targetBaseWeight: Too big: expected number to be <=1'] },
  'empty.yaml': { problems: 3, expect: ['venue: missing (expected object)\n', 'wallet: missing (expected object)\n', 'strategies: missing (expected array)'] },
  'several-mistakes.yaml': {
    problems: 5,
    expect: [
      'venue.simulator.clockSpeed: Invalid input: expected number',
      'risk: unknown field "maxSlippageBPS"; did you mean "maxSlippageBps"?',
      'strategies[0].schedule.cron: invalid cron expression "61 * * * *"',
      'strategies[0].params.amount: expected a positive integer amount',
      'strategies[1].id: duplicate id "dca"',
    ],
  },
};

function rejection(file: string): ConfigError {
  try {
    loadConfig(`${BAD}${file}`, builtinStrategies, NO_ENV);
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`${file} was accepted`);
}

describe('the corpus of bad configs', () => {
  it('has an expectation for every file in the folder, and a file for every expectation', () => {
    expect(readdirSync(BAD).filter((f) => f.endsWith('.yaml')).sort()).toEqual(Object.keys(CASES).sort());
  });

  describe.each(Object.entries(CASES))('%s', (file, c) => {
    it('is rejected with every problem named by its path', () => {
      const err = rejection(file);
      expect(err.code).toBe('CONFIG_INVALID');
      expect(err.action).toBe('halt');
      expect(err.file).toBe(`${BAD}${file}`);
      expect(err.message.startsWith(`${BAD}${file} is invalid (${c.problems} problem`)).toBe(true);
      expect(err.issues).toHaveLength(c.problems);
      for (const text of c.expect) expect(err.message).toContain(text);
    });

    if (c.secret !== undefined) {
      it('never repeats the secret it found', () => {
        expect(readFileSync(`${BAD}${file}`, 'utf8')).toContain(c.secret);
        const err = rejection(file);
        expect(err.message).not.toContain(c.secret);
        expect(JSON.stringify(err.toJSON())).not.toContain(c.secret);
      });
    }
  });
});
