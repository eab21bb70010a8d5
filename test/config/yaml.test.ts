import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, MAX_ALIAS_USES, parseYaml } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';
import { ROOT, scratchDir } from '../helpers/keeper.js';

// One parser reads every config: js-yaml on the YAML 1.2 core schema, its errors placed by line and column.
function read(text: string): { data?: unknown; error?: string } {
  try {
    return { data: parseYaml(text, 'x.yaml') };
  } catch (err) {
    return { error: err instanceof ConfigError ? err.issues.map((i) => `${i.path}: ${i.message}`).join('; ') : String(err) };
  }
}

describe('reading config YAML', () => {
  it('reads scalars as the YAML 1.2 core schema does', () => {
    const cases: Array<[string, unknown]> = [
      ['a: 0o17', 15], ['a: 017', 17], ['a: 0x1F', 31], ['a: +12', 12], ['a: 1e3', 1000], ['a: 0.1', 0.1], ['a: .inf', Infinity],
      ['a: 9007199254740993', 9007199254740992],
      // Not numbers, booleans or dates in YAML 1.2: strings.
      ['a: 1_000', '1_000'], ['a: 0b101', '0b101'], ['a: yes', 'yes'], ['a: on', 'on'], ['a: 2026-01-01', '2026-01-01'], ['a: 12:30', '12:30'],
      ['a: ~', null], ['a: Null', null], ['a: True', true], ['a: FALSE', false], ['a:', null],
      ['\ufeffa: 1', 1], ['a: x # comment *not an alias', 'x'], ['a: "*quoted"', '*quoted'], ['a: !!str 1', '1'], ['a: .nan', NaN],
    ];
    for (const [text, value] of cases) expect({ text, ...read(text) }).toEqual({ text, data: { a: value } });
    for (const empty of ['', '# only a comment']) expect(read(empty)).toEqual({ data: null });
  });

  it('merges `<<` keys and shares anchored params', () => {
    expect(read('base: &b {x: 1, y: 3}\nc:\n  <<: *b\n  y: 2').data).toEqual({ base: { x: 1, y: 3 }, c: { x: 1, y: 2 } });
    expect(read('p: &p {k: v}\nl: [*p, *p]').data).toEqual({ p: { k: 'v' }, l: [{ k: 'v' }, { k: 'v' }] });
  });

  it('names the line and column of every syntax error', () => {
    expect(read('a: 1\na: 2').error).toBe('line 2, column 1: duplicated mapping key');
    expect(read('risk:\n  a: [1, 2\nb: 1').error).toBe('line 3, column 1: missed comma between flow collection entries');
    expect(read('a:\n\t- 1').error).toBe('line 2, column 1: tab characters must not be used in indentation');
    expect(read('a: !custom 1').error).toBe('line 1, column 13: unknown tag !<!custom>');
    expect(read('---\na: 1\n---\nb: 2').error).toBe('line 3, column 1: expected a single document in the stream, but found more');
  });

  it('refuses an alias bomb at once, and a collection that contains itself', () => {
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`)].join('\n');
    expect(read(bomb).error).toMatch(/^\(yaml\): an alias repeats a collection more than 100 times/);
    expect(read('a: &a [1, *a]').error).toBe('(yaml): an alias refers to a collection that contains it');
    // The anchor's own node counts as a use: MAX_ALIAS_USES - 1 aliases pass, one more does not.
    const uses = (n: number) => `p: &p {k: v}\nl: [${Array(n).fill('*p').join(', ')}]`;
    expect(read(uses(MAX_ALIAS_USES - 1)).error).toBeUndefined();
    expect(read(uses(MAX_ALIAS_USES)).error).toMatch(/more than 100 times/);
  });

  it('reads a text once and hands out frozen data', () => {
    const text = 'risk: { maxSlippageBps: 50 }\nstrategies: [{ id: a }]\n';
    const data = parseYaml(text, 'x.yaml') as { strategies: Array<{ id: string }> };
    expect(parseYaml(text, 'y.yaml')).toBe(data);
    expect(Object.isFrozen(data.strategies[0])).toBe(true);
  });

  it('loads a config of 10,000 strategy instances', () => {
    const scratch = scratchDir('yaml-10k');
    try {
      const head = readFileSync(join(ROOT, 'config/paper.yaml'), 'utf8').split('\nstrategies:')[0]!;
      const lines = Array.from({ length: 10_000 }, (_, i) => `  - { id: r-${i}, strategy: threshold-rebalance, schedule: { every: 5s }, params: { base: SOL, quote: USDC, targetBaseWeight: 0.5, bandPct: 50, maxSwapUsd: 10 } }`);
      const file = join(scratch.dir, 'big.yaml');
      writeFileSync(file, `${head}\nstrategies:\n${lines.join('\n')}\n`);
      const config = loadConfig(file, builtinStrategies, {});
      expect(config.strategies).toHaveLength(10_000);
      expect(config.strategies[9_999]).toMatchObject({ id: 'r-9999', schedule: { every: 5_000 } });
    } finally {
      scratch.cleanup();
    }
  });

  it('reports a syntax error of a file with the file name', () => {
    expect(() => loadConfig(join(ROOT, 'test/fixtures/configs/bad/invalid-yaml.yaml'), builtinStrategies, {})).toThrow(/invalid-yaml\.yaml is invalid \(1 problem\):\n {2}- line 5, column 8: bad indentation of a mapping entry/);
  });
});
