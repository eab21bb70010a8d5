import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { IsolationLimits } from '../../src/engine/isolation/host.js';
import { foreignImports } from '../../src/engine/isolation/imports.js';
import { loadUserStrategies } from '../../src/engine/isolation/load.js';

// The SDK-only rule for strategies of the user's own, read from the file before it runs; and how a module's params
// problems are worded (missing, did you mean), as for a built-in's.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Inside the repository (tmp/ is ignored by git), so that `jup-keeper/sdk` resolves as it does for config/strategies/.
mkdirSync(join(ROOT, 'tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'tmp', 'user-imports-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const LIMITS: IsolationLimits = { decisionTimeoutMs: 1_500, memoryLimitMb: 64, loadTimeoutMs: 30_000, suspendMs: 60_000 };

function module(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const STRATEGY = `export default defineStrategy({
  name: 'tidy',
  version: '1.0.0',
  params: z.strictObject({ maxNotionalUsdPerIntent: z.number(), amount: baseUnitsParam }),
  watches: () => ({}),
  decide: () => [],
});
`;

describe('what a strategy of the user\'s own may import', () => {
  it('allows the SDK by its package name or by a relative path into src/sdk, and zod', async () => {
    const file = module(
      'allowed.ts',
      `import { baseUnitsParam, defineStrategy } from 'jup-keeper/sdk';
import type { Intent } from '../../src/sdk/intents.js';
import { z } from 'zod';
export type { StrategyContext } from '../../src/sdk/index.js';
type Kept = import('jup-keeper/sdk').Watches;
const x: Intent[] = [];
void x;
${STRATEGY}`,
    );
    expect(await foreignImports(file)).toEqual([]);
  });

  it('names every other import with its line: static, type-only, re-exported, import = require, import() and require()', async () => {
    const file = module(
      'foreign.ts',
      `import { defineStrategy } from 'jup-keeper/sdk';
import { readFileSync } from 'node:fs';
import type { Agent } from 'node:http';
export * from './mine.js';
import cp = require('child_process');
const later = await import('jup-keeper/sdk');
const name = 'node:net';
const net = require(name);
type Os = import('os').CpuInfo;
import { Connection } from '@solana/web3.js';
`,
    );
    expect(await foreignImports(file)).toEqual([
      { name: 'node:fs', line: 2 },
      { name: 'node:http', line: 3 },
      { name: './mine.js', line: 4 },
      { name: "require('child_process')", line: 5 },
      { name: "import('jup-keeper/sdk')", line: 6 },
      { name: 'require(name)', line: 8 },
      { name: 'os', line: 9 },
      { name: '@solana/web3.js', line: 10 },
    ]);
  });

  it('reads JavaScript modules too', async () => {
    const file = module('plain.mjs', "import { defineStrategy, z } from 'jup-keeper/sdk';\nimport fs from 'fs';\n");
    expect(await foreignImports(file)).toEqual([{ name: 'fs', line: 2 }]);
  });

  it('refuses such a module at load without starting its thread, naming the file, the line and the import', async () => {
    const file = module('reads.ts', `import { baseUnitsParam, defineStrategy, z } from 'jup-keeper/sdk';\nimport { readFileSync } from 'node:fs';\n${STRATEGY}`);
    const { checks, hosts } = await loadUserStrategies([{ index: 2, file, params: {} }], LIMITS);
    expect(hosts.size).toBe(0);
    expect(checks.get(2)).toEqual({
      ok: false,
      issues: [{ path: ['strategy'], message: `the strategy module ${file} imports "node:fs" (line 2); a strategy of your own may import only jup-keeper/sdk (and zod), and nothing at run time` }],
    });
  });
});

describe('the params of a strategy of the user\'s own', () => {
  it('are said to be missing when left out, and a misspelt one gets the nearest known name', async () => {
    const file = module('tidy.ts', `import { baseUnitsParam, defineStrategy, z } from 'jup-keeper/sdk';\n${STRATEGY}`);
    const { checks, hosts } = await loadUserStrategies([{ index: 0, file, params: { maxNotionalUSD: 5 } }], LIMITS);
    try {
      const c = checks.get(0);
      expect(c?.ok).toBe(false);
      if (c?.ok !== false) return;
      expect(c.issues.map((i) => `${i.path.join('.')}: ${i.message}`).sort()).toEqual([
        ': unknown field "maxNotionalUSD"; did you mean "maxNotionalUsdPerIntent"?',
        'amount: missing (expected an integer amount in base units, as a string such as "1000000")',
        'maxNotionalUsdPerIntent: missing (expected number)',
      ]);
    } finally {
      await Promise.all([...hosts.values()].map((h) => h.close()));
    }
  }, 60_000);
});
