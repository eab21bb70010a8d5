import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { StrategyStateStore } from '../../src/store/engineStore.js';
import { clearNamespace } from '../../src/store/redis.js';
import { runCli } from '../cli/runCli.js';
import { stopKeeper, waitUntil } from '../helpers/e2e.js';
import { ROOT, spawnKeeper } from '../helpers/keeper.js';

// The strategy guide as a new user follows it (docs/strategies.md, "Write your own strategy", linked from the
// README): its example and its config, copied into files as written, pass `config check`
// and run on paper; the SDK-only rule refuses a file that imports anything else, naming the import; the example
// type-checks against the SDK as `npm run typecheck` checks config/strategies/, and a mistake in it does not.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const CLEAN_ENV = { SOLANA_RPC_URL: '', JUPKEEPER_KEYPAIR_PATH: '', JUPKEEPER_SECRET_KEY: '', REDIS_URL };

/** The guide: the section "Write your own strategy" of docs/strategies.md, which the README points to. */
function guide(): string {
  const text = readFileSync(join(ROOT, 'docs/strategies.md'), 'utf8');
  const at = text.indexOf('## Write your own strategy');
  expect(at, 'docs/strategies.md has the guide').toBeGreaterThan(-1);
  return text.slice(at);
}

/** The first fenced block of a language after a marker (or from the start). */
function block(text: string, lang: string, marker?: string): string {
  const from = marker === undefined ? text : text.slice(text.indexOf(marker));
  const found = new RegExp('```' + lang + '\\n([\\s\\S]*?)```').exec(from)?.[1];
  if (found === undefined) throw new Error(`no \`\`\`${lang} block${marker === undefined ? '' : ` after ${marker}`} in the guide`);
  return found;
}

// Inside the jup-keeper folder, as the guide says (where `jup-keeper/sdk` resolves); tmp/ is ignored by git.
mkdirSync(join(ROOT, 'tmp'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'tmp', 'strategy-guide-'));
const prefix = `jk-guide-${process.pid}`;
const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });

afterAll(async () => {
  await clearNamespace(redis, prefix);
  redis.disconnect();
  rmSync(dir, { recursive: true, force: true });
});

/** The guide's config and its strategy, as `config/mine.yaml` and `config/strategies/buy-the-dip.ts` would be. */
function copyTheGuide(into: string): string {
  const text = guide();
  const config = block(text, 'yaml', '<!-- strategy-guide:config -->');
  const strategy = /strategy: (\.\/\S+)/.exec(config)?.[1];
  expect(strategy).toBe('./strategies/buy-the-dip.ts');
  mkdirSync(join(into, 'strategies'), { recursive: true });
  writeFileSync(join(into, strategy!), block(text, 'ts'));
  const file = join(into, 'mine.yaml');
  writeFileSync(file, config);
  return file;
}

/** `tsc` with the project's compiler options on the files of one folder, as `npm run typecheck` reads config/strategies/. */
function typecheck(folder: string): Promise<{ code: number; output: string }> {
  writeFileSync(join(folder, 'tsconfig.json'), JSON.stringify({ extends: join(ROOT, 'tsconfig.json'), include: ['strategies/*.ts'] }));
  return new Promise((resolve) => {
    execFile(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '--noEmit', '-p', join(folder, 'tsconfig.json')], { cwd: folder, timeout: 120_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, output: stdout + stderr });
    });
  });
}

describe('the strategy guide, followed as written', () => {
  it('its config and strategy pass config check and run on paper', async () => {
    const file = copyTheGuide(join(dir, 'as-written'));
    const check = await runCli(['config', 'check', file], CLEAN_ENV);
    expect(check.stderr).toBe('');
    expect(check.stdout).toBe(`ok: ${file} (1 strategy: dip-sol)\n`);
    expect(check.code).toBe(0);

    const k = spawnKeeper(['run', '--config', file, '--prefix', prefix, '--fresh', '--dashboard-port', '0', '--log-format', 'json'], { REDIS_URL });
    try {
      await k.waitForLog((l) => l.msg === 'keeper started', 60_000);
      // The example decides on its schedule: the first decision with prices and a wallet keeps the high, no intent.
      const states = new StrategyStateStore(redis, prefix);
      const decided = await waitUntil('the example decided', async () => {
        const d = await states.lastDecision('dip-sol');
        return d !== undefined && d.outcome !== 'skipped' ? d : undefined;
      }, 60_000);
      expect(decided.outcome, decided.message).toBe('nothing');
      expect(k.logs().filter((l) => l.msg === 'strategy failed; its decision is discarded and the bot keeps running')).toEqual([]);
    } finally {
      expect(await stopKeeper(k)).toBe(0);
    }
  }, 150_000);

  it('refuses a strategy that imports node:fs before it runs, naming the file, the line and the import', async () => {
    const into = join(dir, 'reads-files');
    const config = copyTheGuide(into);
    const example = readFileSync(join(into, 'strategies/buy-the-dip.ts'), 'utf8');
    // The example, plus a read of a file in decide(): the kind of I/O a strategy may not do.
    const sdkImport = "import { baseUnitsParam, defineStrategy, mintParam, z } from 'jup-keeper/sdk';\n";
    expect(example).toContain(sdkImport);
    const module = join(into, 'strategies/reads-files.ts');
    const marker = join(into, 'ran');
    writeFileSync(module, example.replace(sdkImport, `${sdkImport}import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker)}, 'the module ran');\n`));
    const line = example.split('\n').indexOf(sdkImport.trimEnd()) + 2;
    writeFileSync(config, readFileSync(config, 'utf8').replace('./strategies/buy-the-dip.ts', './strategies/reads-files.ts'));

    const check = await runCli(['config', 'check', config], CLEAN_ENV);
    expect(check.code).toBe(1);
    expect(check.stdout).toBe('');
    expect(check.stderr).toBe(
      `error: ${config} is invalid (1 problem):\n` +
        `  - strategies[0].strategy: the strategy module ${module} imports "node:fs" (line ${line}); a strategy of your own may import only jup-keeper/sdk (and zod), and nothing at run time\n`,
    );
    const run = await runCli(['run', '--config', config, '--prefix', `${prefix}-refused`], CLEAN_ENV);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the strategy module ${module} imports "node:fs" (line ${line})`);
    // Refused on its text: none of its code ran.
    expect(existsSync(marker)).toBe(false);
  }, 60_000);

  it('refuses import() and require() whatever they name, and a file of the user\'s own beside it', async () => {
    const into = join(dir, 'dynamic');
    const config = copyTheGuide(into);
    const module = join(into, 'strategies/buy-the-dip.ts');
    const example = readFileSync(module, 'utf8');
    writeFileSync(join(into, 'strategies/helper.ts'), 'export const dropPct = 8;\n');
    writeFileSync(module, `import { dropPct } from './helper.js';\n${example}\nconst sdk = await import('jup-keeper/sdk');\nconst fs = require('node:fs');\nvoid [dropPct, sdk, fs];\n`);
    const lines = `import { dropPct } from './helper.js';\n${example}`.split('\n').length;
    const check = await runCli(['config', 'check', config], CLEAN_ENV);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(`the strategy module ${module} imports "./helper.js" (line 1), import('jup-keeper/sdk') (line ${lines + 1}), require('node:fs') (line ${lines + 2});`);
  }, 60_000);

  it('type-checks the example against the SDK, and a mistake in it is an error', async () => {
    // `npm run typecheck` reads config/strategies/, where the guide puts a strategy of your own.
    const project = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { include: string[] };
    expect(project.include).toContain('config/strategies');

    const good = join(dir, 'typed');
    copyTheGuide(good);
    const ok = await typecheck(good);
    expect(ok.output).toBe('');
    expect(ok.code).toBe(0);

    const bad = join(dir, 'mistyped');
    copyTheGuide(bad);
    const module = join(bad, 'strategies/buy-the-dip.ts');
    // An amount in whole tokens as a number, where the SDK's intents take base units as a bigint.
    writeFileSync(module, readFileSync(module, 'utf8').replace('amount: p.amount, reason:', 'amount: 25, reason:'));
    const failed = await typecheck(bad);
    expect(failed.code).not.toBe(0);
    expect(failed.output).toMatch(/strategies\/buy-the-dip\.ts\(\d+,\d+\): error TS\d+: .*number.*bigint/);
  }, 180_000);
});
