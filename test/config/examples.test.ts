// Issue 23, item 11: the README and docs/strategies.md promise a commented example in config/examples/ for every
// built-in strategy. Each is named after its strategy, runs an instance of it, and passes `config check` as shipped.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CORE_SCHEMA, load } from 'js-yaml';
import { builtinStrategies } from '../../strategies/index.js';
import { ROOT, runKeeperCli } from '../helpers/keeper.js';

const example = (name: string) => join(ROOT, 'config', 'examples', `${name}.yaml`);

describe('the example configs', () => {
  it('name every built-in strategy, each in config/examples/<strategy>.yaml running an instance of it', () => {
    const missing = builtinStrategies.names().filter((name) => !existsSync(example(name)));
    expect(missing).toEqual([]);
    for (const name of builtinStrategies.names()) {
      const doc = load(readFileSync(example(name), 'utf8'), { schema: CORE_SCHEMA }) as { strategies?: Array<{ strategy?: unknown }> };
      expect(doc.strategies?.map((s) => s.strategy), name).toContain(name);
    }
  });

  it('each passes `config check` as shipped', async () => {
    for (const name of builtinStrategies.names()) {
      const r = await runKeeperCli(['config', 'check', `config/examples/${name}.yaml`]);
      expect({ code: r.code, stderr: r.stderr }, name).toEqual({ code: 0, stderr: '' });
      expect(r.stdout, name).toMatch(new RegExp(`^ok: config/examples/${name}\\.yaml `, 'm'));
    }
  }, 120_000);
});
