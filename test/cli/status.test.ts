import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Intent } from '../../src/sdk/intents.js';
import { RiskStore, StrategyStateStore } from '../../src/store/engineStore.js';
import { IntentStore } from '../../src/store/intents.js';
import { PnlStore } from '../../src/store/pnl.js';
import { SnapshotStore } from '../../src/store/snapshots.js';
import { runKeeperCli, startTestRedis, type TestRedis } from '../helpers/keeper.js';
import { hasStackTrace } from './runCli.js';
import { HELP, SOL, USDC, WALLET } from './fixtures.js';

const PREFIX = 'status-cli';
const QUIET = 'status-quiet';
const REFUSAL = 'outflow: 2 SOL leave the wallet, at most 0.01 allowed';
const swap = (reason: string): Intent => ({ kind: 'swap', via: 'ultra', inputMint: SOL, outputMint: USDC, amount: 10_000_000n, reason });

/** The meta hash exactly as startKeeper writes it. */
async function writeMeta(redis: Redis, prefix: string, startedAt: number): Promise<void> {
  await redis.hset(`${prefix}:meta`, {
    venue: 'simulator',
    venueUrl: 'http://127.0.0.1:8899',
    rpcUrl: 'http://127.0.0.1:8899/rpc',
    wallet: WALLET,
    config: 'config/paper.yaml',
    startedAt: String(startedAt),
    strategies: JSON.stringify([
      { id: 'dca', strategy: 'dca-swap', version: '1.0.0', schedule: { every: 2000 } },
      { id: 'rebal', strategy: 'threshold-rebalance', version: '1.0.0', schedule: { cron: '*/5 * * * *', tz: 'UTC' } },
    ]),
  });
}

describe.concurrent('jup-keeper status', () => {
  let redis: TestRedis;
  let now = 0;
  const landedSig = bs58.encode(randomBytes(64));
  const cli = (...args: string[]) => runKeeperCli(['status', '--redis-url', redis.url, ...args]);

  beforeAll(async () => {
    redis = await startTestRedis();
    const r = redis.client();
    now = Date.now();
    await writeMeta(r, PREFIX, now - 300_000);
    const intents = new IntentStore(r, PREFIX);
    const create = (id: string, instance: string, reason: string) => intents.create({ id, instance, strategy: 'dca-swap@1.0.0', intent: swap(reason), createdAt: now - 60_000, deadline: now + 600_000 });
    await create('dca.swap.landed', 'dca', 'dca run 1');
    await intents.move('dca.swap.landed', null, 'built', { requestId: 'req-1' });
    await intents.move('dca.swap.landed', null, 'guarded');
    await intents.move('dca.swap.landed', null, 'signed', { signature: landedSig, signatures: [landedSig] });
    await intents.move('dca.swap.landed', null, 'landed');
    await create('rebal.swap.refused', 'rebal', 'rebalance');
    await intents.move('rebal.swap.refused', null, 'built', { requestId: 'req-2' });
    await intents.move('rebal.swap.refused', null, 'rejected', { error: { code: 'GUARD_REFUSED', message: REFUSAL } });
    await create('dca.swap.risk', 'dca', 'dca run 2');
    await intents.move('dca.swap.risk', null, 'rejected', { error: { code: 'RISK_DAILY', rule: 'max-daily-notional', message: 'daily notional limit reached' } });
    await new RiskStore(r, PREFIX).countRefusal('max-daily-notional', now);
    await create('dca.swap.planned', 'dca', 'dca run 3');

    const states = new StrategyStateStore(r, PREFIX);
    // Recorded while the intent was planned; status shows where it is now.
    await states.recordDecision('dca', { at: now - 60_000, window: '42', outcome: 'intents', intents: [{ id: 'dca.swap.landed', kind: 'swap', state: 'planned', reason: 'dca run 1' }] });
    // Evaluated again since, 2 s ago, deciding the same: its shard's evaluation, and the last line it logged.
    await states.recordEvaluation('e2000.0of1', { at: now - 2_000, window: now - 2_500, instances: ['dca'], messages: new Map([['dca', { level: 'debug', text: 'next run not due yet' }]]) });
    await new RiskStore(r, PREFIX).setHalted('operator: maintenance window');
    const pnl = new PnlStore(r, PREFIX);
    // Buy 1 SOL for $100, sell it for $110: $10 realised on $210 of volume.
    await pnl.recordFill('dca', { inputMint: USDC, inAmount: 100_000_000n, inUsd: 100, outputMint: SOL, outAmount: 1_000_000_000n, outUsd: 100 });
    await pnl.recordFill('dca', { inputMint: SOL, inAmount: 1_000_000_000n, inUsd: 110, outputMint: USDC, outAmount: 110_000_000n, outUsd: 110 });
    await pnl.recordFill('retired', { inputMint: SOL, inAmount: 1_000_000n, inUsd: 1, outputMint: USDC, outAmount: 1_000_000n, outUsd: 1 });

    const snaps = new SnapshotStore(r, PREFIX);
    await snaps.write('market', {
      at: now - 3_000,
      prices: { [SOL]: { usd: 150, decimals: 9, change24h: null }, [USDC]: { usd: 1, decimals: 6, change24h: null } },
      tokens: { [HELP]: { mint: HELP, symbol: 'HELP', decimals: 3, verified: null, warnings: [] } },
    });
    await snaps.write('wallet', {
      at: now - 2_000,
      address: WALLET,
      lamports: 2_500_000_000n,
      holdings: [
        { mint: USDC, amount: 12_345_678n, decimals: 6 },
        { mint: HELP, amount: 1_500n, decimals: 3 },
      ],
      trigger: [{ order: 'TrigOrder1111111111111111111111111111111111', inputMint: SOL, outputMint: USDC, makingAmount: 1_000_000_000n, takingAmount: 200_000_000n, remainingMakingAmount: 1_000_000_000n }],
      recurring: [{ order: 'RecurOrder111111111111111111111111111111111', inputMint: USDC, outputMint: SOL, inDeposited: 50_000_000n, inUsed: 10_000_000n, outReceived: 66_000_000n }],
      lend: [{ asset: USDC, shares: 9_000_000n, underlyingAssets: 9_500_000n }],
      prediction: [{ positionPubkey: 'Pos1', marketId: 'MKT-1', isYes: true, contractsMicro: 3_000_000n, avgPriceMicroUsd: 650_000n, claimable: false, claimed: false }],
      errors: {},
    });
    // A second deployment: a keeper started, nothing else yet.
    await writeMeta(r, QUIET, now - 1_000);
  });
  afterAll(async () => {
    await redis.stop();
  });

  describe('with --json', () => {
    it('reports venue, wallet, balances in human units, kill switch, strategies, intents, orders, P&L and refusals', async () => {
      const run = await cli('--json', '--prefix', PREFIX);
      expect(run.code).toBe(0);
      const doc = JSON.parse(run.stdout);
      expect(doc.venue).toEqual({ kind: 'simulator', url: 'http://127.0.0.1:8899', rpcUrl: 'http://127.0.0.1:8899/rpc' });
      expect(doc.wallet).toEqual({ address: WALLET });
      expect(doc.keeper).toEqual({ startedAt: now - 300_000, config: 'config/paper.yaml' });
      expect(doc.balances.sol).toEqual({ lamports: '2500000000', ui: '2.5' });
      expect(doc.balances.tokens).toEqual([
        { mint: USDC, symbol: 'USDC', amount: '12345678', decimals: 6, ui: '12.345678' },
        { mint: HELP, symbol: 'HELP', amount: '1500', decimals: 3, ui: '1.5' },
      ]);
      expect(doc.killSwitch).toEqual({ engaged: true, mode: 'halt', reason: 'operator: maintenance window', by: 'worker', at: expect.any(Number) });
      expect(doc.strategies.map((s: { id: string }) => s.id)).toEqual(['dca', 'rebal']);
      expect(doc.strategies[0]).toMatchObject({ strategy: 'dca-swap', version: '1.0.0', schedule: { every: 2000 }, lastDecision: { at: now - 60_000, outcome: 'intents', intents: [{ id: 'dca.swap.landed', state: 'landed' }] } });
      expect(doc.strategies[0]).toMatchObject({ lastEvaluation: { at: now - 2_000, window: now - 2_500 }, lastMessage: { at: now - 2_000, level: 'debug', text: 'next run not due yet' } });
      expect(doc.strategies[1]).toMatchObject({ schedule: { cron: '*/5 * * * *', tz: 'UTC' }, lastEvaluation: null, lastDecision: null, lastMessage: null });
      // No keeper of this version started here: no session, so nothing counts as this session's.
      expect(doc.intents).toEqual({ total: 4, byState: { planned: 1, built: 0, guarded: 0, signed: 0, submitted: 0, landed: 1, failed: 0, expired: 0, rejected: 2 }, session: 0 });
      expect(doc.session).toBeNull();
      expect(doc.orders.trigger[0]).toMatchObject({ makingAmount: '1000000000', takingAmount: '200000000' });
      expect(doc.orders.recurring[0]).toMatchObject({ inUsed: '10000000' });
      expect(doc.positions.lend[0]).toMatchObject({ asset: USDC, underlyingAssets: '9500000' });
      expect(doc.positions.prediction[0]).toMatchObject({ marketId: 'MKT-1', contractsMicro: '3000000' });
      const dca = doc.pnl.strategies.find((p: { id: string }) => p.id === 'dca');
      expect(dca.fills).toBe(2);
      expect(dca.realizedUsd).toBeCloseTo(10, 6);
      expect(dca.volumeUsd).toBeCloseTo(210, 6);
      expect(doc.pnl.strategies.map((p: { id: string }) => p.id).sort()).toEqual(['dca', 'rebal', 'retired']);
      expect(doc.pnl.total.fills).toBe(3);
      expect(doc.pnl.total.volumeUsd).toBeCloseTo(211, 6);
      expect(doc.snapshots.market.at).toBe(now - 3_000);
      expect(doc.snapshots.wallet.ageMs).toBeGreaterThanOrEqual(2_000);
      expect(doc.snapshots.prediction).toBeNull();
      expect(doc.guardRefusals).toEqual([{ id: 'rebal.swap.refused', strategy: 'rebal', kind: 'swap', at: expect.any(Number), reason: REFUSAL }]);
      // Every refusal, the risk gate's and the guard's, with the rule that refused it.
      expect(doc.refusals).toEqual(
        expect.arrayContaining([
          { id: 'rebal.swap.refused', strategy: 'rebal', kind: 'swap', at: expect.any(Number), rule: 'GUARD_REFUSED', reason: REFUSAL },
          { id: 'dca.swap.risk', strategy: 'dca', kind: 'swap', at: expect.any(Number), rule: 'max-daily-notional', reason: 'daily notional limit reached' },
        ]),
      );
      expect(doc.risk.refusalsToday).toEqual({ 'max-daily-notional': 1 });
    });

    it('says the kill switch is off and lists no refusals for a keeper that did nothing yet', async () => {
      const doc = JSON.parse((await cli('--json', '--prefix', QUIET)).stdout);
      expect(doc.killSwitch).toEqual({ engaged: false, mode: null, reason: null, by: null, at: null });
      expect(doc.refusals).toEqual([]);
      expect(doc.guardRefusals).toEqual([]);
      expect(doc.balances).toBeNull();
      expect(doc.intents.total).toBe(0);
      expect(doc.pnl.total).toEqual({ realizedUsd: 0, volumeUsd: 0, fills: 0 });
    });
  });

  describe('as text', () => {
    it('shows the engaged kill switch, balances with symbols, schedules, P&L and the guard refusal', async () => {
      const run = await cli('--prefix', PREFIX);
      expect(run.code).toBe(0);
      const out = run.stdout;
      expect(out).toMatch(/^kill switch\s+ENGAGED \(halt\) by worker \S+ ago: operator: maintenance window$/m);
      expect(out).toMatch(/^risk today\s+.*refused: 1 max-daily-notional/m);
      expect(out).toMatch(/^venue\s+simulator http:\/\/127\.0\.0\.1:8899$/m);
      expect(out).toMatch(/^intents\s+0 this session; 4 over every session \(1 planned, 1 landed, 2 rejected\)$/m);
      expect(out).toMatch(/^session\s+none recorded$/m);
      expect(out).toMatch(/^\s+SOL\s+2\.5\s+\(native\)$/m);
      expect(out).toMatch(/^\s+USDC\s+12\.345678\s/m);
      expect(out).toMatch(/^\s+HELP\s+1\.5\s/m);
      // No keeper beats under this prefix: it is not running, so no next run is shown.
      // Evaluated seconds ago; its decision (unchanged since) a minute ago; its last line.
      expect(out).toMatch(/^\s+ID\s+STRATEGY\s+SCHEDULE\s+EVALUATED\s+NEXT RUN\s+OUTCOME\s+SINCE\s+INTENTS\s+MESSAGE$/m);
      expect(out).toMatch(/^\s+dca\s+dca-swap@1\.0\.0\s+every 2s\s+\d+s ago\s+stopped\s+intents\s+1m ago\s+swap landed\s+next run not due yet$/m);
      expect(out).toMatch(/^\s+rebal\s+threshold-rebalance@1\.0\.0\s+cron \*\/5 \* \* \* \* UTC\s+never\s+stopped\s+-\s+-\s+-\s+-$/m);
      expect(out).toContain('cron */5 * * * * UTC');
      expect(out).toMatch(/^\s+trigger\s+\S+\s+1 SOL for 200 USDC, 1 SOL left$/m);
      // Fixed decimals, signed P&L: realised, unrealised (nothing the books bought is still held), volume, fills.
      expect(out).toMatch(/^\s+total\s+\+\$10\.00\s+\$0\.00\s+\$211\.00\s+3$/m);
      expect(out).toMatch(/^P&L\s+realised \+\$10\.00 this session \(\+\$10\.00 over every session\), unrealised \$0\.00 /m);
      expect(out).toMatch(/^keeper\s+not running \(no heartbeat recorded/m);
      expect(out).toMatch(/^refusals \(latest 2\)$/m);
      expect(out).toContain(REFUSAL);
      expect(out).toMatch(/dca\.swap\.risk\s+dca\s+\S+ ago\s+max-daily-notional\s+daily notional limit reached/);
    });

    it('says the kill switch is off when it is', async () => {
      const run = await cli('--prefix', QUIET);
      expect(run.stdout).toMatch(/^kill switch\s+off$/m);
    });
  });

  describe('when nothing was recorded under the prefix', () => {
    it('says no keeper has run with it and exits 0', async () => {
      const run = await cli('--prefix', 'nobody');
      expect(run.code).toBe(0);
      expect(run.stdout).toBe(`no keeper has run with prefix nobody on ${redis.url}\n`);
      const json = JSON.parse((await cli('--prefix', 'nobody', '--json')).stdout);
      expect(json).toMatchObject({ prefix: 'nobody', empty: true });
    });
  });

  describe('when Redis does not answer', () => {
    it('exits 1 with a one-line error and no stack trace', async () => {
      const run = await runKeeperCli(['status', '--redis-url', 'redis://127.0.0.1:1']);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(/^error: no Redis answers at redis:\/\/127\.0\.0\.1:1: .*\(REDIS_DOWN\)$/m);
      expect(hasStackTrace(run.stderr)).toBe(false);
    });
  });
});
