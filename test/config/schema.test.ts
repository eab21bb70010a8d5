import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { CORE_SCHEMA, load } from 'js-yaml';
import { ROOT, runKeeperCli } from '../helpers/keeper.js';

const CONFIG = join(ROOT, 'config');
const committed = () => JSON.parse(readFileSync(join(CONFIG, 'schema.json'), 'utf8')) as Record<string, unknown>;
const validator = () => new Ajv2020({ strict: false, allErrors: true }).compile(committed());
// js-yaml on its YAML 1.2 core schema, not the loader's own reading.
const parse = (text: string): unknown => load(text, { schema: CORE_SCHEMA });
const yamlFiles = (dir: string) => readdirSync(dir).filter((f) => f.endsWith('.yaml')).map((f) => join(dir, f));

// `jup-keeper config schema` and config/schema.json, which the config files name for editors
// (`# yaml-language-server: $schema=...`): checked with a JSON Schema validator that knows nothing of our code.
describe('the config JSON Schema', () => {
  it('config schema prints config/schema.json as committed (regenerate: npx jup-keeper config schema > config/schema.json)', async () => {
    const r = await runKeeperCli(['config', 'schema']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual(committed());
  });

  it('accepts every config file shipped, and each top-level one names the schema for editors', () => {
    const check = validator();
    const files = [...yamlFiles(CONFIG), ...yamlFiles(join(CONFIG, 'examples'))];
    expect(files.length).toBeGreaterThan(2);
    for (const file of files) {
      const ok = check(parse(readFileSync(file, 'utf8')));
      expect(ok ? [] : check.errors, file).toEqual([]);
    }
    for (const file of yamlFiles(CONFIG)) expect(readFileSync(file, 'utf8'), file).toMatch(/^# yaml-language-server: \$schema=\.\/schema\.json$/m);
  });

  it('catches what an editor should flag: an unknown field, an unknown strategy, a strategy param of the wrong kind', () => {
    const check = validator();
    const base = parse(readFileSync(join(CONFIG, 'paper.yaml'), 'utf8')) as { risk?: Record<string, unknown>; strategies: Array<Record<string, unknown>> };
    const errorsOf = (doc: unknown) => (check(doc) ? [] : (check.errors ?? []).map((e) => `${e.instancePath} ${e.message ?? ''}`));
    expect(errorsOf({ ...base, risk: { ...base.risk, maxNotionalUSD: 5 } }).join('\n')).toMatch(/\/risk must NOT have additional properties/);
    expect(errorsOf({ ...base, strategies: [{ ...base.strategies[0], strategy: 'no-such-strategy' }] }).join('\n')).toMatch(/\/strategies\/0\/strategy must be equal to one of the allowed values/);
    const dca = base.strategies.find((s) => s.strategy === 'dca-swap')!;
    expect(errorsOf({ ...base, strategies: [{ ...dca, params: { ...(dca.params as object), via: 'teleport' } }] }).join('\n')).toMatch(/\/strategies\/0\/params\/via must be equal to one of the allowed values/);
    expect(errorsOf({ ...base, strategies: [{ ...dca, params: { ...(dca.params as object), amountt: '5' } }] }).join('\n')).toMatch(/\/strategies\/0\/params must NOT have additional properties/);
  });
});
