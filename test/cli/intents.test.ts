import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore } from '../../src/store/intents.js';
import { beginSession } from '../../src/store/sessions.js';
import { dcaConfig, runKeeperCli, scratchDir, startTestRedis, writeConfig, type TestRedis } from '../helpers/keeper.js';
import { hasStackTrace } from './runCli.js';
import { SOL, USDC } from './fixtures.js';

const PREFIX = 'intents-cli';
const REQUIRED_KEYS = ['id', 'strategy', 'kind', 'state', 'signatures', 'requestId'];
const sig = (): string => bs58.encode(randomBytes(64));
const swap = (reason: string): Intent => ({ kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, reason });

describe.concurrent('jup-keeper intents', () => {
  let redis: TestRedis;
  const scratch = scratchDir('intents-cli');
  const sigs = { first: sig(), retry: sig(), other: sig() };
  let t0 = 0;
  const cli = (...args: string[]) => runKeeperCli(['intents', '--redis-url', redis.url, ...args]);

  beforeAll(async () => {
    redis = await startTestRedis();
    const store = new IntentStore(redis.client(), PREFIX);
    t0 = Date.now() - 60_000;
    const create = (id: string, instance: string, reason: string, at: number) => store.create({ id, instance, strategy: `${instance === 'dca' ? 'dca-swap' : 'threshold-rebalance'}@1.0.0`, intent: swap(reason), createdAt: at, deadline: at + 600_000 });
    // 1. landed on its second attempt: the first signature's blockhash expired, the intent was rebuilt and re-signed.
    await create('dca.swap.aaa', 'dca', 'dca run 1', t0);
    await store.move('dca.swap.aaa', null, 'built', { requestId: 'req-1' });
    await store.move('dca.swap.aaa', null, 'guarded');
    await store.move('dca.swap.aaa', null, 'signed', { signature: sigs.first, signatures: [sigs.first] });
    await store.move('dca.swap.aaa', null, 'planned', { attempt: 2 });
    await store.move('dca.swap.aaa', null, 'built', { requestId: 'req-2' });
    await store.move('dca.swap.aaa', null, 'guarded');
    await store.move('dca.swap.aaa', null, 'signed', { signature: sigs.retry, signatures: [sigs.first, sigs.retry] });
    await store.move('dca.swap.aaa', null, 'submitted');
    await store.move('dca.swap.aaa', null, 'landed', { result: { outAmount: '1500000' } });
    // 2. refused by the pre-sign guard.
    await create('rebal.swap.bbb', 'rebal', 'rebalance to 50/50', t0 + 1000);
    await store.move('rebal.swap.bbb', null, 'built', { requestId: 'req-3' });
    await store.move('rebal.swap.bbb', null, 'rejected', { error: { code: 'GUARD_REFUSED', message: 'outflow: 2 SOL leave the wallet, at most 0.01 allowed' } });
    // 3. landed on the first attempt, through RPC (no requestId).
    await create('dca.swap.ccc', 'dca', 'dca run 2', t0 + 2000);
    await store.move('dca.swap.ccc', null, 'built');
    await store.move('dca.swap.ccc', null, 'guarded');
    await store.move('dca.swap.ccc', null, 'signed', { signature: sigs.other, signatures: [sigs.other] });
    await store.move('dca.swap.ccc', null, 'landed');
    // 4. just planned.
    await create('dca.swap.ddd', 'dca', 'dca run 3', t0 + 3000);
  });
  afterAll(async () => {
    await redis.stop();
    scratch.cleanup();
  });

  describe('with --json', () => {
    it('prints every intent oldest first, each starting with exactly id, strategy, kind, state, signatures, requestId', async () => {
      const run = await cli('--json', '--prefix', PREFIX);
      expect(run.code).toBe(0);
      const rows = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
      expect(rows.map((r) => r.id)).toEqual(['dca.swap.aaa', 'rebal.swap.bbb', 'dca.swap.ccc', 'dca.swap.ddd']);
      for (const r of rows) expect(Object.keys(r).slice(0, REQUIRED_KEYS.length)).toEqual(REQUIRED_KEYS);
      expect(rows[0]).toMatchObject({ id: 'dca.swap.aaa', strategy: 'dca', kind: 'swap', state: 'landed', signatures: [sigs.first, sigs.retry], requestId: 'req-2', attempt: 2, error: null, reason: 'dca run 1', createdAt: t0 });
      expect(rows[1]).toMatchObject({ strategy: 'rebal', state: 'rejected', signatures: [], requestId: 'req-3', error: { code: 'GUARD_REFUSED', message: expect.stringContaining('outflow') } });
      expect(rows[2]).toMatchObject({ state: 'landed', signatures: [sigs.other], requestId: null });
      expect(rows[3]).toMatchObject({ state: 'planned', signatures: [], requestId: null, attempt: 1 });
    });

    it('keeps only one state with --state', async () => {
      const run = await cli('--json', '--prefix', PREFIX, '--state', 'landed');
      expect((JSON.parse(run.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(['dca.swap.aaa', 'dca.swap.ccc']);
    });

    it('keeps only one strategy instance with --strategy', async () => {
      const run = await cli('--json', '--prefix', PREFIX, '--strategy', 'rebal');
      expect((JSON.parse(run.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(['rebal.swap.bbb']);
    });

    it('keeps the latest n matching intents with --limit, still oldest first', async () => {
      const run = await cli('--json', '--prefix', PREFIX, '--strategy', 'dca', '--limit', '2');
      expect((JSON.parse(run.stdout) as Array<{ id: string }>).map((r) => r.id)).toEqual(['dca.swap.ccc', 'dca.swap.ddd']);
    });

    it('takes the prefix from a config file with --config', async () => {
      const config = writeConfig(scratch.dir, dcaConfig({ venueUrl: 'http://127.0.0.1:9', prefix: PREFIX }));
      const run = await cli('--json', '--config', config);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toHaveLength(4);
    });
  });

  describe('as a table', () => {
    it('shows one line per intent with its attempt, short signature, age and error or reason', async () => {
      const run = await cli('--prefix', PREFIX);
      expect(run.code).toBe(0);
      const lines = run.stdout.trimEnd().split('\n');
      expect(lines[0]).toMatch(/^ID\s+STRATEGY\s+KIND\s+STATE\s+ATTEMPT\s+SIGNATURE\s+AGE\s+ERROR \/ REASON$/);
      expect(lines).toHaveLength(2 + 4 + 1);
      // The last line says the scope: no keeper started a session under this prefix, so every intent.
      expect(lines[6]).toBe('4 intents, every intent (no session recorded)');
      expect(lines[2]).toMatch(new RegExp(`^dca\\.swap\\.aaa\\s+dca\\s+swap\\s+landed\\s+2\\s+${sigs.retry.slice(0, 4)}…${sigs.retry.slice(-4)}\\s+1m\\s+dca run 1$`));
      expect(lines[3]).toContain('GUARD_REFUSED: outflow');
    });
  });

  describe('scoped by session', () => {
    const SESSIONS = 'intents-cli-sessions';
    beforeAll(async () => {
      // Session 1 lands one intent and leaves one in flight; session 2 (a restart) plans one of its own.
      const r = redis.client();
      const store = new IntentStore(r, SESSIONS);
      const create = (id: string, reason: string, at: number) => store.create({ id, instance: 'dca', strategy: 'dca-swap@1.0.0', intent: swap(reason), createdAt: at, deadline: at + 600_000 });
      await beginSession(r, SESSIONS, t0 - 1_000);
      await create('dca.swap.s1-landed', 'dca run 1', t0);
      await store.move('dca.swap.s1-landed', null, 'built');
      await store.move('dca.swap.s1-landed', null, 'guarded');
      await store.move('dca.swap.s1-landed', null, 'signed', { signature: sig(), signatures: [] });
      await store.move('dca.swap.s1-landed', null, 'landed');
      await create('dca.swap.s1-inflight', 'dca run 2', t0 + 1_000);
      await beginSession(r, SESSIONS, t0 + 10_000);
      await create('dca.swap.s2', 'dca run 3', t0 + 11_000);
    });

    it("lists the current session's intents and those still in flight, and every session's with --all", async () => {
      const ids = async (...args: string[]) => (JSON.parse((await cli('--json', '--prefix', SESSIONS, ...args)).stdout) as Array<{ id: string }>).map((r) => r.id);
      expect(await ids()).toEqual(['dca.swap.s1-inflight', 'dca.swap.s2']);
      expect(await ids('--all')).toEqual(['dca.swap.s1-landed', 'dca.swap.s1-inflight', 'dca.swap.s2']);
      const table = (await cli('--prefix', SESSIONS)).stdout.trimEnd().split('\n');
      expect(table.at(-1)).toMatch(/^2 intents, session 2 \(started \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\) and any still in flight; --all for every session$/);
      expect((await cli('--prefix', SESSIONS, '--all')).stdout.trimEnd().split('\n').at(-1)).toBe('3 intents, every session (2)');
    });
  });

  describe('when nothing was recorded under the prefix', () => {
    it('says so and exits 0; --json still prints an empty array', async () => {
      const human = await cli('--prefix', 'never-used');
      expect(human.code).toBe(0);
      expect(human.stdout).toBe(`no keeper has run with prefix never-used on ${redis.url}\n`);
      const json = await cli('--json', '--prefix', 'never-used');
      expect(json.code).toBe(0);
      expect(JSON.parse(json.stdout)).toEqual([]);
      expect(json.stderr).toContain('no keeper has run with prefix never-used');
    });
  });

  describe('when the command line or Redis is wrong', () => {
    it('exits 1 with one line and no stack trace when Redis does not answer', async () => {
      const run = await runKeeperCli(['intents', '--json', '--redis-url', 'redis://127.0.0.1:1', '--prefix', PREFIX]);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: no Redis answers at redis:\/\/127\.0\.0\.1:1: .*\(REDIS_DOWN\)$/m);
      expect(hasStackTrace(run.stderr)).toBe(false);
    });

    it('never prints the password of a Redis URL', async () => {
      const run = await runKeeperCli(['intents', '--redis-url', 'redis://user:hunter2secret@127.0.0.1:1']);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('redis://***@127.0.0.1:1');
      expect(run.stderr).not.toContain('hunter2secret');
    });

    it('exits 2 for an unknown --state', async () => {
      const run = await cli('--prefix', PREFIX, '--state', 'done');
      expect(run.code).toBe(2);
      expect(run.stderr).toContain('--state');
    });
  });
});
