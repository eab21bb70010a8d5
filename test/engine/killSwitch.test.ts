import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killSwitchVerdict, reducesPosition } from '../../src/engine/killSwitch.js';
import type { Intent } from '../../src/sdk/intents.js';
import { RiskStore } from '../../src/store/engineStore.js';
import { KillSwitchStore } from '../../src/store/killSwitch.js';
import { runKeeperCli, startTestRedis, type TestRedis } from '../helpers/keeper.js';

const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
const BONK = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263';
const ORDER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const swap = (inputMint: string, outputMint: string): Intent => ({ kind: 'swap', via: 'ultra', inputMint, outputMint, amount: 1_000n });

describe('which intents shrink a position (reduce-only)', () => {
  it('lets exits, cancels, withdrawals and claims through, and refuses what adds exposure', () => {
    expect(reducesPosition(swap(SOL, USDC))).toBe(true);
    expect(reducesPosition(swap(BONK, USDC))).toBe(true);
    expect(reducesPosition(swap(USDC, SOL))).toBe(false);
    expect(reducesPosition(swap(SOL, BONK))).toBe(false);
    expect(reducesPosition({ kind: 'trigger.cancel', order: ORDER })).toBe(true);
    expect(reducesPosition({ kind: 'lend.withdraw', asset: USDC, amount: 1n })).toBe(true);
    expect(reducesPosition({ kind: 'prediction.claim', positionPubkey: ORDER })).toBe(true);
    expect(reducesPosition({ kind: 'lend.deposit', asset: USDC, amount: 1n })).toBe(false);
    expect(reducesPosition({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, makingAmount: 1n, takingAmount: 1n })).toBe(false);
    expect(reducesPosition({ kind: 'send', mint: USDC, amount: 1n })).toBe(false);
  });

  it('halt refuses everything with KILL_SWITCH; reduce-only refuses only what adds exposure', () => {
    const halt = { mode: 'halt' as const, reason: 'maintenance', at: 1, by: 'cli' };
    const reduce = { mode: 'reduce-only' as const, reason: 'drawdown', at: 1, by: 'cli' };
    expect(killSwitchVerdict(null, swap(USDC, SOL))).toBeUndefined();
    expect(killSwitchVerdict(halt, swap(SOL, USDC))).toEqual({ ok: false, code: 'KILL_SWITCH', rule: 'kill-switch', message: 'trading is halted: maintenance' });
    expect(killSwitchVerdict(reduce, swap(SOL, USDC))).toBeUndefined();
    expect(killSwitchVerdict(reduce, swap(USDC, SOL))?.code).toBe('KILL_SWITCH_REDUCE_ONLY');
  });
});

describe('the kill switch in Redis and on the command line', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startTestRedis();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('fails closed on a value it did not write (a bare reason from an older keeper, garbage)', async () => {
    const r = redis.client();
    await r.set('ks-legacy:killswitch', 'operator pressed stop');
    expect(await new KillSwitchStore(r, 'ks-legacy').read()).toMatchObject({ mode: 'halt', reason: 'operator pressed stop' });
    await r.set('ks-legacy:killswitch', '{"mode":"sideways"}');
    expect((await new KillSwitchStore(r, 'ks-legacy').read())?.mode).toBe('halt');
    expect(await new RiskStore(r, 'ks-legacy').halted()).toBe('{"mode":"sideways"}');
  });

  it('on, status and off change what every worker reads', async () => {
    const args = ['--redis-url', redis.url, '--prefix', 'ks-cli'];
    const on = await runKeeperCli(['kill-switch', 'on', '--mode', 'reduce-only', '--reason', 'drawdown 12%', ...args, '--json']);
    expect(on.code, on.stderr).toBe(0);
    expect(JSON.parse(on.stdout)).toMatchObject({ prefix: 'ks-cli', engaged: true, mode: 'reduce-only', reason: 'drawdown 12%', by: 'cli' });
    const store = new KillSwitchStore(redis.client(), 'ks-cli');
    expect(await store.read()).toMatchObject({ mode: 'reduce-only', reason: 'drawdown 12%' });

    const status = await runKeeperCli(['kill-switch', 'status', ...args]);
    expect(status.stdout).toMatch(/^kill switch ENGAGED \(reduce-only\) for ks-cli by cli \d+s ago: drawdown 12%$/m);

    const off = await runKeeperCli(['kill-switch', 'off', ...args]);
    expect(off.code).toBe(0);
    expect(off.stdout).toBe('kill switch released for ks-cli\n');
    expect(await store.read()).toBeNull();
    const again = await runKeeperCli(['kill-switch', 'off', ...args]);
    expect(again.stdout).toBe('kill switch was not engaged for ks-cli\n');
  }, 60_000);

  it('refuses an unknown mode as a usage error and changes nothing', async () => {
    const r = await runKeeperCli(['kill-switch', 'on', '--mode', 'panic', '--redis-url', redis.url, '--prefix', 'ks-bad']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/--mode.*panic/);
    expect(await new KillSwitchStore(redis.client(), 'ks-bad').read()).toBeNull();
  }, 30_000);
});
