import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config/index.js';
import { parseYaml, parseYamlThoroughly } from '../../src/config/load.js';
import { builtinStrategies } from '../../strategies/index.js';
import { ROOT, scratchDir } from '../helpers/keeper.js';

// A config without aliases or tags is read by js-yaml (fast), anything else by `yaml` (positions in errors, bounded
// aliases). Both must read every document alike: same data, or both refusing it.
const SNIPPETS = [
  'a: 1_000', 'a: 0o17', 'a: 017', 'a: 0x1F', 'a: 0b101', 'a: yes', 'a: no', 'a: on', 'a: ~', 'a: null', 'a: Null', 'a: True', 'a: FALSE',
  'a: 2026-01-01', 'a: 2026-01-01T00:00:00Z', 'a: 12:30', 'a: 1:20:30', 'a: .inf', 'a: -.inf', 'a: .nan', 'a: 1e3', 'a: 1.5e-3', 'a: +12', 'a: 0.1', 'a: 00',
  'a: 9007199254740993', 'a: "x"', "a: 'x'", 'a: "\\u00e9"', 'a: |\n  x\n  y\n', 'a: >\n  x\n  y\n', 'a: [1, 2, {b: c}]', '- a\n- b', '? complex\n: v',
  'a:', '', '# only a comment', '\ufeffa: 1', 'a: x # comment *not an alias', 'a: "*quoted"', 'base: {x: 1}\nc:\n  <<: {x: 1, y: 3}\n  y: 2',
  'a: 1\na: 2', '{a: 1, a: 2}', 'a:\n\t- 1', 'a: b: c', 'a: "unterminated', 'a: [1, 2', '---\na: 1\n---\nb: 2',
];

function read(f: (text: string, file: string) => unknown, text: string): { data?: unknown; error?: string } {
  try {
    return { data: f(text, 'x.yaml') };
  } catch (err) {
    return { error: err instanceof Error ? err.message : String(err) };
  }
}

describe('reading config YAML', () => {
  const files = [
    ...['config', 'config/examples', 'test/fixtures/configs/bad'].flatMap((d) => readdirSync(join(ROOT, d)).filter((f) => f.endsWith('.yaml')).map((f) => join(ROOT, d, f))),
  ];

  it('reads every document alike on the fast path and the thorough one', () => {
    const docs = [...SNIPPETS.map((t) => [JSON.stringify(t), t] as const), ...files.map((f) => [f, readFileSync(f, 'utf8')] as const)];
    const differ: string[] = [];
    for (const [name, text] of docs) {
      const fast = read(parseYaml, text);
      const slow = read(parseYamlThoroughly, text);
      if ((fast.error === undefined) !== (slow.error === undefined) || !isDeepStrictEqual(fast.data, slow.data)) differ.push(`${name}: ${JSON.stringify(fast)} vs ${JSON.stringify(slow)}`);
    }
    expect(differ).toEqual([]);
  });

  it('still names the line and column of a syntax error, and bounds aliases', () => {
    expect(read(parseYaml, 'risk:\n  a: [1, 2\nb: 1').error).toMatch(/line \d+, column \d+/);
    const bomb = ['a: &a [x, x, x, x, x, x, x, x, x]', ...Array.from({ length: 8 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(', ')}]`)].join('\n');
    expect(read(parseYaml, bomb).error).toMatch(/alias/i);
  });

  it('loads a config of 10,000 strategy instances to the same result as the thorough path', () => {
    const scratch = scratchDir('yaml-10k');
    try {
      const head = readFileSync(join(ROOT, 'config/paper.yaml'), 'utf8').split('\nstrategies:')[0]!;
      const lines = Array.from({ length: 10_000 }, (_, i) => `  - { id: r-${i}, strategy: threshold-rebalance, schedule: { every: 5s }, params: { base: SOL, quote: USDC, targetBaseWeight: 0.5, bandPct: 50, maxSwapUsd: 10 } }`);
      const text = `${head}\nstrategies:\n${lines.join('\n')}\n`;
      const file = join(scratch.dir, 'big.yaml');
      writeFileSync(file, text);
      expect(isDeepStrictEqual(parseYaml(text, file), parseYamlThoroughly(text, file))).toBe(true);
      const config = loadConfig(file, builtinStrategies, {});
      expect(config.strategies).toHaveLength(10_000);
      expect(config.strategies[9_999]).toMatchObject({ id: 'r-9999', schedule: { every: 5_000 } });
    } finally {
      scratch.cleanup();
    }
  });

  it('refuses on the fast path what the thorough one refuses, with the thorough one\'s message', () => {
    expect(() => loadConfig(join(ROOT, 'test/fixtures/configs/bad/unknown-strategy.yaml'), builtinStrategies, {})).toThrow(ConfigError);
    expect(read(parseYaml, 'a: 1\na: 2').error).toBe(read(parseYamlThoroughly, 'a: 1\na: 2').error);
  });
});
