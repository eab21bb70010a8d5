import { describe, expect, it } from 'vitest';
import { idleYield, IDLE_YIELD_SOL_RESERVE_LAMPORTS } from '../../strategies/idle-yield/index.js';
import type { Intent, LendPositionView, PendingIntentView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { decide, type ContextSetup } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
const USDT = KNOWN_SYMBOLS.USDT!.mint;

// 100 USDC kept, moves of at least 1 USDC (the default).
const PARAMS = { reserve: '100000000' };
const usdc = (n: number) => BigInt(Math.round(n * 1e6));

/** A wallet holding `held` USDC with `lent` USDC deposited in Earn. */
function world(held: number, lent = 0, pending: PendingIntentView[] = []): ContextSetup<Record<string, unknown>> {
  const lend: LendPositionView[] = lent > 0 ? [{ asset: USDC, shares: usdc(lent * 0.96), underlyingAssets: usdc(lent) }] : [];
  return { lamports: 1_000_000_000n, tokens: { [USDC]: { amount: usdc(held), decimals: 6 } }, lend, pending };
}

const pendingOf = (intent: Intent, state: PendingIntentView['state']): PendingIntentView => ({ id: `idle:${intent.kind}:1`, kind: intent.kind, state, intent, createdAt: 0 });

describe('idle-yield', () => {
  describe('when the wallet holds more than the reserve', () => {
    it('deposits everything above the reserve into Lend Earn', () => {
      expect(decide(idleYield, PARAMS, world(350)).intents).toEqual([
        { kind: 'lend.deposit', asset: USDC, amount: usdc(250), reason: 'idle: 350000000 held, 100000000 kept in reserve; lending 250000000' },
      ]);
    });

    it('leaves an excess smaller than minMove in the wallet', () => {
      expect(decide(idleYield, PARAMS, world(100.999999)).intents).toEqual([]);
      expect(decide(idleYield, PARAMS, world(101)).intents).toEqual([expect.objectContaining({ kind: 'lend.deposit', amount: usdc(1) })]);
      expect(decide(idleYield, { ...PARAMS, minMove: '50000000' }, world(140)).intents).toEqual([]);
    });

    it('deposits at most maxMove at a time', () => {
      expect(decide(idleYield, { ...PARAMS, maxMove: '200000000' }, world(1_000)).intents).toEqual([expect.objectContaining({ kind: 'lend.deposit', amount: usdc(200) })]);
    });

    it('lends everything with a reserve of 0', () => {
      expect(decide(idleYield, { reserve: '0' }, world(42)).intents).toEqual([expect.objectContaining({ kind: 'lend.deposit', amount: usdc(42) })]);
    });

    it('never lends the last 0.02 SOL when the asset is SOL', () => {
      const out = decide(idleYield, { asset: 'SOL', reserve: '0' }, { lamports: 1_000_000_000n });
      expect(out.intents).toEqual([expect.objectContaining({ kind: 'lend.deposit', asset: SOL, amount: 1_000_000_000n - IDLE_YIELD_SOL_RESERVE_LAMPORTS })]);
    });
  });

  describe('when the wallet holds less than the reserve', () => {
    it('withdraws the shortfall from what is lent', () => {
      expect(decide(idleYield, PARAMS, world(30, 400)).intents).toEqual([
        { kind: 'lend.withdraw', asset: USDC, amount: usdc(70), reason: 'reserve short: 30000000 held of 100000000; withdrawing 70000000 of 400000000 lent' },
      ]);
    });

    it('withdraws no more than is lent', () => {
      expect(decide(idleYield, PARAMS, world(10, 25)).intents).toEqual([expect.objectContaining({ kind: 'lend.withdraw', amount: usdc(25) })]);
    });

    it('does nothing with nothing lent, or for a shortfall under minMove', () => {
      expect(decide(idleYield, PARAMS, world(10)).intents).toEqual([]);
      expect(decide(idleYield, PARAMS, world(99.5, 400)).intents).toEqual([]);
      expect(decide(idleYield, { ...PARAMS, minMove: '100000' }, world(99.5, 400)).intents).toEqual([expect.objectContaining({ kind: 'lend.withdraw', amount: usdc(0.5) })]);
    });

    it('ignores positions in other assets', () => {
      const setup = world(30);
      setup.lend = [{ asset: USDT, shares: usdc(500), underlyingAssets: usdc(500) }];
      expect(decide(idleYield, PARAMS, setup).intents).toEqual([]);
    });
  });

  it('does nothing at exactly the reserve', () => {
    expect(decide(idleYield, PARAMS, world(100, 400)).intents).toEqual([]);
  });

  describe('while a deposit or withdrawal of its own is pending', () => {
    const deposit: Intent = { kind: 'lend.deposit', asset: USDC, amount: usdc(250) };
    const withdraw: Intent = { kind: 'lend.withdraw', asset: USDC, amount: usdc(70) };

    it('never asks twice: not while the deposit is planned, in flight, or landed after the wallet read', () => {
      for (const state of ['planned', 'built', 'signed', 'submitted', 'landed'] as const) {
        expect(decide(idleYield, PARAMS, world(350, 0, [pendingOf(deposit, state)])).intents).toEqual([]);
      }
    });

    it('asks nothing either way while a withdrawal is on its way, even with the wallet below the reserve', () => {
      expect(decide(idleYield, PARAMS, world(30, 400, [pendingOf(withdraw, 'submitted')])).intents).toEqual([]);
      expect(decide(idleYield, PARAMS, world(350, 400, [pendingOf(withdraw, 'landed')])).intents).toEqual([]);
    });

    it('is not held up by a pending move of another asset', () => {
      const other: Intent = { kind: 'lend.deposit', asset: USDT, amount: usdc(5) };
      expect(decide(idleYield, PARAMS, world(350, 0, [pendingOf(other, 'submitted')])).intents).toHaveLength(1);
    });
  });

  it('through a deposit, a spend and a refill, asks for each move once', () => {
    const asked: Intent[] = [];
    const step = (setup: ContextSetup<Record<string, unknown>>) => {
      const out = decide(idleYield, PARAMS, setup).intents;
      asked.push(...out);
      return out;
    };
    const [deposit] = step(world(500));
    step(world(500, 0, [pendingOf(deposit!, 'submitted')]));
    step(world(100, 400));
    // Another strategy spends 80 USDC.
    const [withdraw] = step(world(20, 400.5));
    step(world(20, 400.5, [pendingOf(withdraw!, 'landed')]));
    step(world(100, 320.5));
    expect(asked.map((i) => [i.kind, (i as { amount: bigint }).amount])).toEqual([
      ['lend.deposit', usdc(400)],
      ['lend.withdraw', usdc(80)],
    ]);
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = idleYield.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('default to USDC and moves of at least 1 USDC', () => {
      expect(idleYield.params.parse(PARAMS)).toEqual({ asset: USDC, reserve: usdc(100), minMove: usdc(1) });
      expect(idleYield.watches(idleYield.params.parse(PARAMS))).toEqual({ mints: [USDC] });
    });

    it('refuse a missing, negative or fractional reserve, maxMove below minMove, and a misspelt field', () => {
      expect(refused({})[0]).toMatch(/^reserve: /);
      expect(refused({ reserve: '-1' })[0]).toMatch(/^reserve: expected an integer amount of 0 or more/);
      expect(refused({ reserve: '1.5' })[0]).toMatch(/^reserve: /);
      expect(refused({ ...PARAMS, minMove: '5000000', maxMove: '1000000' })).toEqual(['maxMove: maxMove must not be below minMove']);
      expect(refused({ ...PARAMS, reserv: '1' })[0]).toMatch(/reserv/);
      expect(refused({ ...PARAMS, asset: 'USDX' })[0]).toMatch(/^asset: "USDX" is neither a known symbol/);
    });
  });
});
