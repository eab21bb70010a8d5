import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { hasStackTrace, runCli } from '../cli/runCli.js';

const PAPER = fileURLToPath(new URL('../../config/paper.yaml', import.meta.url));
const SEVERAL = fileURLToPath(new URL('../fixtures/configs/bad/several-mistakes.yaml', import.meta.url));
// Empty values count as unset: a developer's own settings cannot change what the command reports.
const CLEAN_ENV = { SOLANA_RPC_URL: '', JUPKEEPER_KEYPAIR_PATH: '', JUPKEEPER_SECRET_KEY: '', REDIS_URL: '' };

describe.concurrent('jup-keeper config check', () => {
  describe('when the file is valid', () => {
    it('prints ok with the strategy ids and exits 0', async () => {
      const run = await runCli(['config', 'check', PAPER], CLEAN_ENV);
      expect(run.stderr).toBe('');
      // paper.yaml runs one instance of every built-in strategy: the ids in the order the file lists them.
      const ids = (load(readFileSync(PAPER, 'utf8')) as { strategies: Array<{ id: string }> }).strategies.map((s) => s.id);
      expect(ids.length).toBeGreaterThan(2);
      expect(run.stdout).toBe(`ok: ${PAPER} (${ids.length} strategies: ${ids.join(', ')})\n`);
      expect(run.code).toBe(0);
    });
  });

  describe('when the file has mistakes', () => {
    it('lists every problem with its path on stderr, exits 1, and prints no stack trace', async () => {
      const run = await runCli(['config', 'check', SEVERAL], CLEAN_ENV);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      // The file and the count first, one problem a line, and nothing after the last.
      expect(run.stderr.startsWith(`error: ${SEVERAL} is invalid (5 problems):\n`)).toBe(true);
      expect(run.stderr).toContain('  - venue.simulator.clockSpeed: Invalid input: expected number, received string\n');
      expect(run.stderr).toContain('  - risk: unknown field "maxSlippageBPS"; did you mean "maxSlippageBps"?\n');
      expect(run.stderr).toContain('  - strategies[0].params.amount: expected a positive integer amount');
      expect(run.stderr).toContain('  - strategies[1].id: duplicate id "dca"');
      expect(run.stderr.trimEnd().split('\n')).toHaveLength(6);
      expect(run.stderr.endsWith('\n')).toBe(true);
      expect(run.stderr).not.toMatch(/listed above|CONFIG_INVALID/);
      expect(hasStackTrace(run.stderr)).toBe(false);
    });

    it('says the same from run, one problem a line', async () => {
      const check = await runCli(['config', 'check', SEVERAL], CLEAN_ENV);
      const run = await runCli(['run', '--config', SEVERAL], CLEAN_ENV);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toBe(check.stderr);
    });

    it('reports a file that cannot be read the same way', async () => {
      const run = await runCli(['config', 'check', '/nonexistent/jup-keeper.yaml'], CLEAN_ENV);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('  - (file): cannot read it: ENOENT');
      expect(hasStackTrace(run.stderr)).toBe(false);
    });
  });
});
