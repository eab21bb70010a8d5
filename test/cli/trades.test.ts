import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { IntentStore, type IntentPatch } from '../../src/store/intents.js';
import { KeeperStore } from '../../src/store/keeperStore.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { beginSession } from '../../src/store/sessions.js';
import { noteTradeFee } from '../../src/store/trades.js';
import { runKeeperCli, startTestRedis, type TestRedis } from '../helpers/keeper.js';
import { SOL, USDC } from './fixtures.js';

const PREFIX = 'trades-cli';
const JUPUSD = 'JuprjznTrTSp2UFa3ZBUFgwdAmtZCq4MQCwysN55USD';
const JL_JUPUSD = '7GxATsNMnaC88vdwd2t3mwrFuQwwGvmYPrUQ4D6FotXk';
const POSITION = 'BATA498LwbyBddfBHHryZfbvQsPYMxQAEbksfFBdzCuN';
const ORDER = 'FYXvA9zr65eKumdxjuMw6eS1BfJAs5M9rfno2h1muCGN';
/** The keys an outside tool relies on, in this order. */
const KEYS = ['intent', 'strategy', 'kind', 'signature', 'at', 'inputMint', 'inAmount', 'outputMint', 'outAmount', 'priceUsd', 'feeLamports', 'session'];

const sig = () => bs58.encode(randomBytes(64));

// Each test runs the CLI: on a loaded machine a run can take many seconds.
describe.concurrent('jup-keeper trades', { timeout: 120_000 }, () => {
  let redis: TestRedis;
  const t0 = Date.UTC(2026, 0, 15, 5, 0, 0);
  const sigs = { swap: sig(), ladder: sig(), resting: sig(), buy: sig(), claim: sig(), deposit: sig(), cancel: sig() };
  const cli = (...args: string[]) => runKeeperCli(['trades', '--redis-url', redis.url, '--prefix', PREFIX, ...args]);

  beforeAll(async () => {
    redis = await startTestRedis();
    const r = redis.client();
    const intents = new IntentStore(r, PREFIX);
    const keeper = new KeeperStore(r, PREFIX, intents);
    /** Records an intent and moves it to landed at `at`, with what the execution wrote on the way. */
    const land = async (id: string, instance: string, intent: Intent, at: number, signature: string, patch: IntentPatch = {}) => {
      await intents.create({ id, instance, strategy: `${instance}@1.0.0`, intent, createdAt: at - 1_000, deadline: at + 600_000 });
      await intents.move(id, null, 'built', patch.quote ? { quote: patch.quote } : {}, at - 900);
      await intents.move(id, null, 'guarded', {}, at - 800);
      await intents.move(id, null, 'signed', { signature, signatures: [signature] }, at - 700);
      await intents.move(id, null, 'landed', { result: patch.result ?? { slot: 1 } }, at);
    };
    // A swap: 0.05 SOL for 9.012345 USDC, executed amounts in the result; its fee noted on the record.
    await land('dca.swap.1', 'dca', { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 50_000_000n }, t0, sigs.swap, { quote: { inAmount: 50_000_000n, outAmount: 9_000_000n }, result: { slot: 2, inAmount: 50_000_000n, outAmount: 9_012_345n } });
    await noteTradeFee(r, PREFIX, 'dca.swap.1', 12_500n);
    // A limit order the venue filled (its fee in the risk gate's day record only), and one still resting.
    await land('ladder.trigger.create.1', 'ladder', { kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 10_000_000n, takingAmount: 55_617_629n }, t0 + 1_000, sigs.ladder, { quote: { order: ORDER } });
    await keeper.setVenueOrder('ladder.trigger.create.1', { product: 'trigger', order: ORDER, position: null, status: 'filled', checkedAt: t0 + 30_000, changedAt: t0 + 30_000 });
    await new RiskStore(r, PREFIX).recordFee('ladder.trigger.create.1', 6_980n, t0 + 1_000);
    await land('ladder.trigger.create.2', 'ladder', { kind: 'trigger.create', inputMint: SOL, outputMint: USDC, makingAmount: 100_000_000n, takingAmount: 18_000_000n }, t0 + 2_000, sigs.resting);
    await keeper.setVenueOrder('ladder.trigger.create.2', { product: 'trigger', order: ORDER, position: null, status: 'open', checkedAt: t0 + 30_000, changedAt: t0 + 30_000 });
    // A prediction buy filled: $5 for 6.71 NO contracts at $0.73 (4.8983 of cost), then the keeper's claim of them.
    await land('edge.prediction.buy.1', 'edge', { kind: 'prediction.buy', marketId: 'KXSOL5M-4032-UP', side: 'no', depositAmount: 5_000_000n, depositMint: USDC, maxPriceMicroUsd: 980_000n }, t0 + 3_000, sigs.buy, {
      quote: { order: ORDER, position: POSITION, contractsMicro: 6_710_000n, orderCostMicroUsd: 4_898_300n, feeMicroUsd: 100_000n },
    });
    await keeper.setVenueOrder('edge.prediction.buy.1', { product: 'prediction', order: ORDER, position: POSITION, status: 'filled', checkedAt: t0 + 40_000, changedAt: t0 + 40_000 });
    await land('_keeper.prediction.claim.1', '_keeper', { kind: 'prediction.claim', positionPubkey: POSITION }, t0 + 60_000, sigs.claim, {
      quote: { position: POSITION, payoutMicroUsd: 6_710_000n, contractsMicro: 6_710_000n, expectedChanges: { lamports: -12_000n, tokens: [{ mint: USDC, delta: 6_710_000n }] } },
    });
    // A lend deposit: 100 JupUSD for 99.999988 jlJupUSD (as simulated before signing).
    await land('idle.lend.deposit.1', 'idle', { kind: 'lend.deposit', asset: JUPUSD, amount: 100_000_000n }, t0 + 70_000, sigs.deposit, {
      quote: { expectedChanges: { lamports: -12_000n, tokens: [{ mint: JL_JUPUSD, delta: 99_999_988n }, { mint: JUPUSD, delta: -100_000_000n }] } },
    });
    // A cancel moved no money; a planned swap has not settled.
    await land('ladder.trigger.cancel.1', 'ladder', { kind: 'trigger.cancel', order: ORDER }, t0 + 80_000, sigs.cancel);
    await intents.create({ id: 'dca.swap.2', instance: 'dca', strategy: 'dca@1.0.0', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 50_000_000n }, createdAt: t0 + 90_000, deadline: t0 + 600_000 });
  });
  afterAll(async () => {
    await redis.stop();
  });

  describe('with --json', () => {
    it('prints every settled trade and claim, oldest first, with exactly the interface keys and amounts as decimal strings in token units', async () => {
      const run = await cli('--json');
      expect(run.code, run.stderr).toBe(0);
      const rows = JSON.parse(run.stdout) as Array<Record<string, unknown>>;
      for (const row of rows) expect(Object.keys(row)).toEqual(KEYS);
      expect(rows).toEqual([
        { intent: 'dca.swap.1', strategy: 'dca', kind: 'swap', signature: sigs.swap, at: new Date(t0).toISOString(), inputMint: SOL, inAmount: '0.05', outputMint: USDC, outAmount: '9.012345', priceUsd: '180.2469', feeLamports: '12500', session: null },
        { intent: 'ladder.trigger.create.1', strategy: 'ladder', kind: 'trigger.fill', signature: sigs.ladder, at: new Date(t0 + 30_000).toISOString(), inputMint: USDC, inAmount: '10', outputMint: SOL, outAmount: '0.055617629', priceUsd: '179.799106', feeLamports: '6980', session: null },
        { intent: 'edge.prediction.buy.1', strategy: 'edge', kind: 'prediction.fill', signature: sigs.buy, at: new Date(t0 + 40_000).toISOString(), inputMint: USDC, inAmount: '5', outputMint: null, outAmount: '6.71', priceUsd: '0.73', feeLamports: null, session: null },
        { intent: '_keeper.prediction.claim.1', strategy: '_keeper', kind: 'prediction.claim', signature: sigs.claim, at: new Date(t0 + 60_000).toISOString(), inputMint: null, inAmount: '6.71', outputMint: USDC, outAmount: '6.71', priceUsd: '1', feeLamports: null, session: null },
        { intent: 'idle.lend.deposit.1', strategy: 'idle', kind: 'lend.deposit', signature: sigs.deposit, at: new Date(t0 + 70_000).toISOString(), inputMint: JUPUSD, inAmount: '100', outputMint: JL_JUPUSD, outAmount: '99.999988', priceUsd: '1', feeLamports: null, session: null },
      ]);
      for (const row of rows) for (const k of ['inAmount', 'outAmount', 'priceUsd', 'feeLamports']) expect(row[k] === null || typeof row[k] === 'string').toBe(true);
    });

    it('--since keeps what settled at or after a time (ISO) or within a duration back from now', async () => {
      const iso = JSON.parse((await cli('--json', '--since', new Date(t0 + 40_000).toISOString())).stdout) as Array<{ intent: string }>;
      expect(iso.map((r) => r.intent)).toEqual(['edge.prediction.buy.1', '_keeper.prediction.claim.1', 'idle.lend.deposit.1']);
      const recent = JSON.parse((await cli('--json', '--since', '1h')).stdout) as unknown[];
      expect(recent).toEqual([]);
      const bad = await cli('--since', 'yesterday');
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('neither a duration');
    });

    it('prints an empty array (and says why on stderr) when nothing was recorded under the prefix', async () => {
      const run = await runKeeperCli(['trades', '--json', '--redis-url', redis.url, '--prefix', 'nobody']);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toEqual([]);
      expect(run.stderr).toContain('no keeper has run with prefix nobody');
    });
  });

  describe('when the keeper ran twice (two sessions)', () => {
    const P2 = 'trades-cli-sessions';
    const s1 = t0 + 1_000_000;
    const s2 = s1 + 60_000;
    const two = (...args: string[]) => runKeeperCli(['trades', '--redis-url', redis.url, '--prefix', P2, ...args]);

    beforeAll(async () => {
      const r = redis.client();
      const intents = new IntentStore(r, P2);
      const swap = async (id: string, at: number) => {
        await intents.create({ id, instance: 'dca', strategy: 'dca@1.0.0', intent: { kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 50_000_000n }, createdAt: at - 1_000, deadline: at + 600_000 });
        for (const to of ['built', 'guarded'] as const) await intents.move(id, null, to, {}, at - 500);
        await intents.move(id, null, 'signed', { signature: sig(), signatures: [] }, at - 200);
        await intents.move(id, null, 'landed', { result: { slot: 1, inAmount: 50_000_000n, outAmount: 9_000_000n } }, at);
      };
      await beginSession(r, P2, s1);
      await swap('dca.swap.first', s1 + 5_000);
      await beginSession(r, P2, s2);
      await swap('dca.swap.second', s2 + 5_000);
    });

    it('lists the last session only by default and says which', async () => {
      const run = await two();
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^trades of prefix trades-cli-sessions, session 2 \(started 2026-01-15 05:17:40 UTC, the last one; --all for every session\): 1 trade\(s\)$/m);
      expect(run.stdout).toMatch(/^2026-01-15 05:17:45\s+dca\s+swap\s/m);
      expect(run.stdout).not.toMatch(/^2026-01-15 05:16:45/m);
      const rows = JSON.parse((await two('--json')).stdout) as Array<{ intent: string; session: number }>;
      expect(rows.map((x) => [x.intent, x.session])).toEqual([['dca.swap.second', 2]]);
    });

    it('--all lists every session, each trade naming its own', async () => {
      const run = await two('--all');
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/^trades of prefix trades-cli-sessions, every session \(2\): 2 trade\(s\)$/m);
      expect(run.stdout).toMatch(/^SESSION\s+TIME \(UTC\)/m);
      expect(run.stdout).toMatch(/^\s*1\s+2026-01-15 05:16:45\s+dca\s+swap\s/m);
      expect(run.stdout).toMatch(/^\s*2\s+2026-01-15 05:17:45\s+dca\s+swap\s/m);
      const rows = JSON.parse((await two('--json', '--all')).stdout) as Array<{ intent: string; session: number }>;
      expect(rows.map((x) => [x.intent, x.session])).toEqual([['dca.swap.first', 1], ['dca.swap.second', 2]]);
    });
  });

  describe('as a table', () => {
    it('shows one line per trade with its pair, amounts with symbols, price, fee and signature', async () => {
      const run = await cli();
      expect(run.code, run.stderr).toBe(0);
      const out = run.stdout;
      // No keeper of this version started here: no session is recorded, so every trade is listed, and it says so.
      expect(out).toMatch(/^trades of prefix trades-cli, every trade \(no session recorded\): 5 trade\(s\)$/m);
      expect(out).toMatch(/^2026-01-15 05:00:00\s+dca\s+swap\s+SOL → USDC\s+0\.05 SOL\s+9\.012345 USDC\s+\$180\.25\s+0\.0000125 SOL\s+\S+…\S+$/m);
      expect(out).toMatch(/^2026-01-15 05:00:30\s+ladder\s+trigger\.fill\s+USDC → SOL\s+10 USDC\s+0\.055617629 SOL\s+\$179\.80\s+0\.00000698 SOL\s/m);
      expect(out).toMatch(/^\S+ \S+\s+edge\s+prediction\.fill\s+USDC → NO KXSOL5M-4032-UP\s+5 USDC\s+6\.71 contracts\s+\$0\.73\s+-\s/m);
      expect(out).toMatch(/^\S+ \S+\s+_keeper\s+prediction\.claim\s+contracts → USDC\s+6\.71 contracts\s+6\.71 USDC\s+\$1\.00\s/m);
      expect(out).not.toContain('trigger.cancel');
    });
  });
});
