import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { StrategyHost, type DecideInput, type IsolationLimits } from '../../src/engine/isolation/host.js';
import { loadUserStrategies } from '../../src/engine/isolation/load.js';
import type { DecideItem } from '../../src/engine/isolation/protocol.js';

// Strategies of the user's own decide in a thread per module, behind a watchdog: what a user sees when one of
// theirs throws, returns junk, never returns or eats memory, and that the others decide all the same.

const fixture = (name: string): string => fileURLToPath(new URL(`../fixtures/user-strategies/${name}`, import.meta.url));
const EXAMPLE = fileURLToPath(new URL('../../config/strategies/buy-the-dip.ts', import.meta.url));
const SOL = 'So11111111111111111111111111111111111111112';
const USDC = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';
// The time limit is generous for a loaded machine (a healthy decision takes microseconds); the memory limit small
// so that the hog reaches it quickly.
const LIMITS: IsolationLimits = { decisionTimeoutMs: 1_500, memoryLimitMb: 48, loadTimeoutMs: 30_000, suspendMs: 60_000 };

const hosts: StrategyHost[] = [];
afterEach(async () => {
  await Promise.all(hosts.splice(0).map((h) => h.close()));
});

function host(file: string, limits = LIMITS): StrategyHost {
  const h = new StrategyHost(file, limits);
  hosts.push(h);
  return h;
}

function input(now: number, solUsd = 80): DecideInput {
  return {
    now,
    market: { at: now, prices: { [SOL]: { usd: solUsd, decimals: 9, change24h: null }, [USDC]: { usd: 1, decimals: 6, change24h: 0 } }, tokens: {} },
    prediction: undefined,
    wallet: { at: now, address: 'Wa11et1111111111111111111111111111111111111', lamports: 5_000_000_000n, holdings: [{ mint: USDC, amount: 100_000_000n, decimals: 6 }], trigger: [], recurring: [], lend: [], prediction: [] },
  };
}

const item = (id: string, params: unknown, state: Record<string, unknown> = {}): DecideItem => ({ id, params, state, pending: [] });

describe('loading a strategy of the user\'s own', () => {
  it('parses params with the module\'s own schema in its thread, and reports what it says of itself', async () => {
    const { checks, hosts: loaded } = await loadUserStrategies(
      [
        { index: 0, file: EXAMPLE, params: { buy: 'SOL', amount: '25000000', dropPct: 10 } },
        { index: 1, file: EXAMPLE, params: { buy: 'DOGE', amount: '-1', dropPct: 10, extra: true } },
      ],
      LIMITS,
    );
    hosts.push(...loaded.values());
    const ok = checks.get(0);
    expect(ok?.ok).toBe(true);
    if (!ok?.ok) return;
    expect(ok.params).toEqual({ buy: SOL, with: USDC, amount: 25_000_000n, dropPct: 10, cooldownHours: 24 });
    expect(ok.watches).toEqual({ mints: [SOL, USDC] });
    expect({ name: ok.definition.name, version: ok.definition.version, sdk: ok.definition.sdk }).toEqual({ name: 'buy-the-dip', version: '1.0.0', sdk: 1 });
    const bad = checks.get(1);
    expect(bad?.ok).toBe(false);
    if (bad?.ok !== false) return;
    const paths = bad.issues.map((i) => i.path.join('.'));
    expect(paths).toEqual(expect.arrayContaining(['buy', 'amount', '']));
    expect(bad.issues.find((i) => i.path[0] === 'buy')?.message).toMatch(/DOGE.*neither a known symbol/);
  }, 60_000);

  it.each([
    ['wrong-sdk.ts', /written for SDK 2; this keeper's SDK is 1/],
    ['throws-on-import.ts', /does not load: missing model file/],
    ['not-a-strategy.ts', /must export a strategy made by defineStrategy/],
    ['does-not-exist.ts', /does not load: .*(Cannot find|ERR_MODULE_NOT_FOUND)/],
  ])('refuses %s with the reason', async (name, reason) => {
    const { checks, hosts: loaded } = await loadUserStrategies([{ index: 3, file: fixture(name), params: {} }], LIMITS);
    expect(loaded.size, 'no thread is kept for a module that failed').toBe(0);
    const c = checks.get(3);
    expect(c?.ok).toBe(false);
    if (c?.ok !== false) return;
    expect(c.issues[0]!.path).toEqual(['strategy']);
    expect(c.issues[0]!.message).toMatch(reason);
  }, 60_000);

  it('gives up on a module that never finishes loading, within the load limit', async () => {
    const { checks, hosts: loaded } = await loadUserStrategies([{ index: 0, file: fixture('spins-on-import.ts'), params: {} }], { ...LIMITS, loadTimeoutMs: 3_000 });
    expect(loaded.size).toBe(0);
    const c = checks.get(0);
    expect(c?.ok === false && c.issues[0]!.message).toMatch(/did not load and answer within 3000 ms/);
  }, 60_000);
});

describe('decisions in a strategy thread', () => {
  it('runs the example strategy: buys once the price is dropPct below its high, with its reason, and not again within the cooldown', async () => {
    const h = host(EXAMPLE);
    const [checked] = await h.check([{ index: 0, params: { buy: 'SOL', amount: '25000000', dropPct: 10 } }]);
    expect(checked?.ok).toBe(true);
    const params = checked?.ok ? checked.params : undefined;
    const now = Date.UTC(2026, 10, 27, 12);
    // It remembers the high; a 5 % fall is not a dip of 10 %.
    const [seen] = await h.decideMany(input(now, 100), [item('dip', params)]);
    expect(seen).toEqual({ ok: true, out: { intents: [], state: { highUsd: 100 } }, logs: [] });
    const [shallow] = await h.decideMany(input(now + 1_000, 95), [item('dip', params, { highUsd: 100 })]);
    expect(shallow).toEqual({ ok: true, out: { intents: [], state: { highUsd: 100 } }, logs: [] });
    const [dip] = await h.decideMany(input(now + 2_000, 80), [item('dip', params, { highUsd: 100 })]);
    expect(dip).toEqual({ ok: true, out: { intents: [{ kind: 'swap', inputMint: USDC, outputMint: SOL, amount: 25_000_000n, reason: '20.0 % below its high of $100.00' }], state: { highUsd: 80, lastBuyAt: now + 2_000 } }, logs: [] });
    // Within the cooldown, a new dip from a new high does not buy again.
    const [cooling] = await h.decideMany(input(now + 3_600_000, 50), [item('dip', params, { highUsd: 80, lastBuyAt: now + 2_000 })]);
    expect(cooling).toMatchObject({ ok: true, out: { intents: [] } });
    // Without the money, it says so through ctx.log.
    const poor = input(now, 50);
    poor.wallet.holdings = [];
    const [broke] = await h.decideMany(poor, [item('dip', params, { highUsd: 100 })]);
    expect(broke).toEqual({ ok: true, out: { intents: [], state: { highUsd: 100 } }, logs: [{ level: 'warn', message: 'not enough to buy the dip', fields: { have: '0', need: '25000000' } }] });
  }, 60_000);

  it('stops a decision that never returns and one that eats memory, fails only those, and decides the rest of the batch', async () => {
    // A limit that the hog reaches its memory limit well within, even on a loaded machine.
    const h = host(fixture('moody.ts'), { ...LIMITS, decisionTimeoutMs: 5_000 });
    const now = Date.UTC(2026, 10, 27, 12);
    const batch = [item('a', { behave: 'ok' }), item('spin', { behave: 'loop' }), item('b', { behave: 'ok' }), item('hog', { behave: 'hog' }), item('c', { behave: 'ok' }), item('boom', { behave: 'throw' }), item('junk', { behave: 'bad' }), item('later', { behave: 'promise' }), item('fn', { behave: 'function' })];
    const results = await h.decideMany(input(now), batch);
    const by = new Map(batch.map((b, i) => [b.id, results[i]!]));
    for (const id of ['a', 'b', 'c']) {
      expect(by.get(id), id).toEqual({ ok: true, out: { intents: [], state: { seen: 1 } }, logs: [{ level: 'info', message: 'deciding', fields: { price: 80 } }] });
    }
    const error = (id: string): string => {
      const r = by.get(id)!;
      return r.ok ? `(ok: ${JSON.stringify(r.out)})` : r.error;
    };
    expect(error('spin')).toMatch(/^decide\(\) ran longer than 5000 ms and was stopped; the instance is suspended until 2026-11-27T12:01:00.000Z$/);
    expect(error('hog')).toMatch(/^it ran out of memory \(the limit is 48 MB\) and its thread was stopped; the instance is suspended until 2026-11-27T12:01:00.000Z$/);
    expect(error('boom')).toBe('decide() threw: boom cannot decide');
    expect(error('later')).toMatch(/returned a promise/);
    expect(error('fn')).toMatch(/cannot be copied/);
    // `junk` came back as returned: the engine checks intents (the thread is not trusted to).
    expect(by.get('junk')).toMatchObject({ ok: true, out: [{ kind: 'swap', inputMint: 'nope' }] });
    expect(h.starts, 'the thread was started again after each stop').toBe(3);

    // Next window: the two stopped instances sit out their suspension without running; the others decide.
    const next = await h.decideMany(input(now + 30_000), batch);
    expect(next[1]).toEqual({ ok: false, error: 'suspended until 2026-11-27T12:01:00.000Z: decide() ran longer than 5000 ms and was stopped', logs: [] });
    expect(next[3]).toMatchObject({ ok: false, error: expect.stringMatching(/^suspended until 2026-11-27T12:01:00.000Z: it ran out of memory/) });
    expect(next[0]).toMatchObject({ ok: true });
    expect(h.starts, 'no stop, no restart').toBe(3);

    // After it, the spinner runs again, is stopped again, and sits out twice as long.
    const [spin] = await h.decideMany(input(now + 61_000), [item('spin', { behave: 'loop' })]);
    expect(spin).toMatchObject({ ok: false, error: expect.stringContaining('suspended until 2026-11-27T12:03:01.000Z') });
  }, 120_000);

  it('keeps other modules\' threads deciding while one is stuck', async () => {
    // Long enough for the other thread to start and decide on a loaded machine.
    const stuck = host(fixture('endless.ts'), { ...LIMITS, decisionTimeoutMs: 10_000 });
    const fine = host(EXAMPLE);
    const [checked] = await fine.check([{ index: 0, params: { buy: 'SOL', amount: '25000000', dropPct: 10 } }]);
    const params = checked?.ok ? checked.params : undefined;
    const now = Date.UTC(2026, 10, 27, 12);
    const stuckDone = stuck.decideMany(input(now), [item('e', {})]);
    let stuckSettled = false;
    void stuckDone.then(() => (stuckSettled = true));
    const [r] = await fine.decideMany(input(now), [item('dip', params)]);
    expect(r).toMatchObject({ ok: true });
    expect(stuckSettled, 'the fine module decided while the stuck one was still being waited for').toBe(false);
    expect((await stuckDone)[0]).toMatchObject({ ok: false, error: expect.stringContaining('ran longer than') });
  }, 60_000);
});
