import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { builtinStrategies } from '../../strategies/index.js';
import { limitLadder, LADDER_SOL_RESERVE_LAMPORTS } from '../../strategies/limit-ladder/index.js';
import { deepFreeze, intentSchema, type Intent, type PendingIntentView, type TriggerOrderView } from '../../src/sdk/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';
import { strategyContext, type ContextSetup, type LoggedLine } from '../helpers/strategyContext.js';

const SOL = KNOWN_SYMBOLS.SOL!.mint;
const USDC = KNOWN_SYMBOLS.USDC!.mint;
// Two levels a side, 1 % apart around $100: buys at 99 and 98, sells at 101 and 102. Each buy spends 20 USDC, each
// sell 0.2 SOL.
const PARAMS = { base: 'SOL', quote: 'USDC', levelsPerSide: 2, spacingPct: 1, buyAmount: '20000000', sellAmount: '200000000' };
const prices = (sol: number) => ({ [SOL]: { usd: sol, decimals: 9 }, [USDC]: { usd: 1, decimals: 6 } });
const FUNDED = { lamports: 10_000_000_000n, tokens: { [USDC]: { amount: 1_000_000_000n, decimals: 6 } } };

type State = Record<string, unknown>;
interface Setup extends ContextSetup<State> {
  open?: TriggerOrderView[];
}

/** One decide() of the ladder with `open` as the wallet's resting trigger orders. */
function run(params: Record<string, unknown>, setup: Setup): { intents: Intent[]; state: State; logs: LoggedLine[] } {
  const parsed = limitLadder.params.parse(params);
  const { ctx, logs } = strategyContext(parsed, { prices: prices(100), ...FUNDED, ...setup });
  const withOrders = deepFreeze({ ...ctx, openOrders: { trigger: setup.open ?? [], recurring: [] } });
  const out = limitLadder.decide(withOrders);
  const decision = 'intents' in out ? out : { intents: out, state: undefined };
  return { intents: decision.intents.map((i) => intentSchema.parse(i)), state: decision.state!, logs };
}

/** The intents as pending views (planned, in flight, or landed after the wallet snapshot). */
function pendingOf(intents: Intent[], state: PendingIntentView['state'] = 'submitted'): PendingIntentView[] {
  return intents.map((intent, n) => ({ id: `ladder.${intent.kind}.${n}`, kind: intent.kind, state, intent, createdAt: Date.UTC(2026, 0, 1) }));
}

/** The orders the venue would show for trigger.create intents, with order accounts named after their keys. */
function resting(intents: Intent[]): TriggerOrderView[] {
  return intents.flatMap((i) =>
    i.kind === 'trigger.create'
      ? [{ order: orderAccount(i.key!), inputMint: i.inputMint, outputMint: i.outputMint, makingAmount: i.makingAmount, takingAmount: i.takingAmount, remainingMakingAmount: i.makingAmount }]
      : [],
  );
}

/** A base58 order account per level key (digits 1-9 and letters only). */
function orderAccount(key: string): string {
  const tag = key.replace('lvl-', 'M').replace('lvl', 'P');
  return `${tag}rder${'1'.repeat(40 - tag.length)}`;
}

const levelsOf = (intents: Intent[]) => intents.map((i) => (i.kind === 'trigger.create' ? `${i.key} ${i.inputMint === USDC ? 'buy' : 'sell'} ${i.makingAmount}>${i.takingAmount}` : `${i.kind} ${'order' in i ? i.order : ''}`));

/** A ladder placed at $100 whose four orders rest on the venue. */
function restingLadder(): { state: State; open: TriggerOrderView[] } {
  const first = run(PARAMS, {});
  const open = resting(first.intents);
  const seen = run(PARAMS, { state: first.state, open });
  return { state: seen.state, open };
}

describe('limit-ladder', () => {
  describe('on its first run', () => {
    it('centres on the price and places buys below and sells above it, nearest first, amounts from each level price', () => {
      const { intents, state, logs } = run(PARAMS, {});
      // 20 USDC at 99 takes 0.20202020 SOL; 0.2 SOL at 101 takes 20.2 USDC.
      expect(levelsOf(intents)).toEqual([
        'lvl-1 buy 20000000>202020202',
        'lvl1 sell 200000000>20200000',
        'lvl-2 buy 20000000>204081632',
        'lvl2 sell 200000000>20400000',
      ]);
      expect(intents[0]).toMatchObject({ kind: 'trigger.create', inputMint: USDC, outputMint: SOL, reason: 'buy at level -1 (99.0000), centre 100.000' });
      expect(state).toMatchObject({ centre: 100, gap: 0, recentring: false, fills: 0 });
      expect(logs).toContainEqual({ level: 'info', message: 'ladder centred', fields: { centre: '100.000', levelsPerSide: 2, spacingPct: 1 } });
    });

    it('places at most maxOrdersPerRun, and the rest on the next run while the first are still pending', () => {
      const params = { ...PARAMS, levelsPerSide: 3, maxOrdersPerRun: 3 };
      const first = run(params, {});
      expect(levelsOf(first.intents).map((l) => l.split(' ')[0])).toEqual(['lvl-1', 'lvl1', 'lvl-2']);
      const second = run(params, { state: first.state, pending: pendingOf(first.intents, 'planned') });
      expect(levelsOf(second.intents).map((l) => l.split(' ')[0])).toEqual(['lvl2', 'lvl-3', 'lvl3']);
      const third = run(params, { state: second.state, pending: pendingOf([...first.intents, ...second.intents]) });
      expect(third.intents).toEqual([]);
    });
  });

  describe('while its orders are being placed or rest', () => {
    it('asks for nothing again while the creations are pending, in flight or landed after the snapshot', () => {
      const first = run(PARAMS, {});
      for (const state of ['planned', 'submitted', 'landed'] as const) {
        expect(run(PARAMS, { state: first.state, pending: pendingOf(first.intents, state) }).intents, state).toEqual([]);
      }
    });

    it('records the order accounts it finds resting and asks for nothing', () => {
      const { state } = restingLadder();
      expect((state.levels as Array<{ k: number; order: string }>).map((l) => [l.k, l.order])).toEqual([
        [-1, orderAccount('lvl-1')],
        [1, orderAccount('lvl1')],
        [-2, orderAccount('lvl-2')],
        [2, orderAccount('lvl2')],
      ]);
      const { open } = restingLadder();
      expect(run(PARAMS, { state, open, prices: prices(100.4) }).intents).toEqual([]);
    });

    it('does not take another bot’s order with other amounts for its own', () => {
      const first = run(PARAMS, {});
      const foreign = { ...resting(first.intents)[0]!, order: orderAccount('lvl-9'), takingAmount: 1n };
      const next = run(PARAMS, { state: first.state, open: [foreign] });
      // The four levels are neither resting nor pending and the price crossed none: all four are asked for again.
      expect(levelsOf(next.intents)).toEqual(levelsOf(first.intents));
    });
  });

  describe('when a level fills', () => {
    it('re-arms the filled buy as a sell one spacing above it', () => {
      const { state, open } = restingLadder();
      // The price dipped to 98.9 and the buy at 99 filled: it left the open orders without a cancel.
      const out = run(PARAMS, { state, open: open.filter((o) => o.order !== orderAccount('lvl-1')), prices: prices(98.9) });
      expect(levelsOf(out.intents)).toEqual(['lvl0 sell 200000000>20000000']);
      expect(out.state).toMatchObject({ gap: -1, fills: 1 });
      expect(out.logs).toContainEqual({ level: 'info', message: 'ladder orders filled', fields: { levels: ['buy@-1'], gapFrom: 0, gapTo: -1 } });
    });

    it('re-arms the buy when the price comes back up and the re-armed sell fills', () => {
      const { state, open } = restingLadder();
      const afterBuy = run(PARAMS, { state, open: open.filter((o) => o.order !== orderAccount('lvl-1')), prices: prices(98.9) });
      const sellAtCentre = { ...resting(afterBuy.intents)[0]!, order: orderAccount('lvl0') };
      const others = open.filter((o) => o.order !== orderAccount('lvl-1'));
      const seen = run(PARAMS, { state: afterBuy.state, open: [...others, sellAtCentre], prices: prices(99.5) });
      expect(seen.intents).toEqual([]);
      // Back above 100: the sell at the centre filled, the gap returns to 0 and the buy at 99 is placed again.
      const afterSell = run(PARAMS, { state: seen.state, open: others, prices: prices(100.2) });
      expect(levelsOf(afterSell.intents)).toEqual(['lvl-1 buy 20000000>202020202']);
      expect(afterSell.state).toMatchObject({ gap: 0, fills: 2 });
    });

    it('moves the gap past every buy that filled when the price fell through two levels', () => {
      const { state, open } = restingLadder();
      const out = run(PARAMS, { state, open: open.filter((o) => o.inputMint !== USDC), prices: prices(97.9) });
      expect(levelsOf(out.intents)).toEqual(['lvl-1 sell 200000000>19800000', 'lvl0 sell 200000000>20000000']);
      expect(out.state).toMatchObject({ gap: -2, fills: 2 });
    });

    it('counts an order never seen resting as filled when the price crossed its level, and places it again when not', () => {
      const first = run(PARAMS, {});
      // Nothing rests and nothing is pending any more; the price is at 98.5: the buy at 99 filled unseen, the others
      // never came to be (their creation failed).
      const out = run(PARAMS, { state: first.state, prices: prices(98.5) });
      expect(out.state).toMatchObject({ gap: -1, fills: 1 });
      expect(levelsOf(out.intents).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['lvl-2 buy', 'lvl0 sell', 'lvl1 sell', 'lvl2 sell']);
    });
  });

  describe('when the price leaves the range', () => {
    it('cancels every resting order, waits for the cancels, then re-centres on the new price', () => {
      const { state, open } = restingLadder();
      // Default range: half a spacing past the outermost level, 2.5 %. At 103 the ladder is out of range.
      const cancels = run(PARAMS, { state, open, prices: prices(103) });
      expect(cancels.intents.map((i) => i.kind === 'trigger.cancel' && i.order)).toEqual([orderAccount('lvl-1'), orderAccount('lvl1'), orderAccount('lvl-2'), orderAccount('lvl2')]);
      expect(cancels.state).toMatchObject({ recentring: true, centre: 100 });
      // The cancels are pending and the orders still show: nothing more is asked.
      expect(run(PARAMS, { state: cancels.state, open, pending: pendingOf(cancels.intents), prices: prices(103) }).intents).toEqual([]);
      // Two are gone, two still rest with their cancels in flight: still waiting.
      const half = run(PARAMS, { state: cancels.state, open: open.slice(2), pending: pendingOf(cancels.intents.slice(2)), prices: prices(103) });
      expect(half.intents).toEqual([]);
      // All gone: a new ladder around 103, and the cancelled orders are not counted as fills.
      const fresh = run(PARAMS, { state: half.state, prices: prices(103) });
      expect(fresh.state).toMatchObject({ centre: 103, gap: 0, recentring: false, fills: 0 });
      // 20 USDC at 101.97 (one spacing under 103) takes 0.196136118 SOL.
      expect(levelsOf(fresh.intents)[0]).toBe('lvl-1 buy 20000000>196136118');
    });

    it('asks again for a cancel that ended without effect', () => {
      const { state, open } = restingLadder();
      const cancels = run(PARAMS, { state, open, prices: prices(96) });
      // The first cancel failed: the order still rests and no cancel of it is pending.
      const again = run(PARAMS, { state: cancels.state, open: open.slice(0, 1), prices: prices(96) });
      expect(again.intents).toEqual([expect.objectContaining({ kind: 'trigger.cancel', order: orderAccount('lvl-1') })]);
    });

    it('honours rangePct', () => {
      const { state, open } = restingLadder();
      expect(run({ ...PARAMS, rangePct: 5 }, { state, open, prices: prices(104) }).intents).toEqual([]);
      expect(run({ ...PARAMS, rangePct: 5 }, { state, open, prices: prices(105.5) }).intents).toHaveLength(4);
    });
  });

  describe('with what the wallet holds', () => {
    it('places only the side it can pay for, counting what its pending intents already spend', () => {
      // 30 USDC: one buy of 20; a pending swap of 15 USDC leaves 15, so none.
      const wallet = { lamports: 10_000_000_000n, tokens: { [USDC]: { amount: 30_000_000n, decimals: 6 } } };
      expect(levelsOf(run(PARAMS, wallet).intents).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['lvl-1 buy', 'lvl1 sell', 'lvl2 sell']);
      const swap: Intent = { kind: 'swap', via: 'ultra', inputMint: USDC, outputMint: SOL, amount: 15_000_000n };
      const out = run(PARAMS, { ...wallet, pending: pendingOf([swap], 'planned') });
      expect(levelsOf(out.intents).map((l) => l.split(' ').slice(0, 2).join(' '))).toEqual(['lvl1 sell', 'lvl2 sell']);
      expect(out.logs).toContainEqual(expect.objectContaining({ level: 'debug', message: 'not enough quote for the buy at level -1' }));
    });

    it('never puts the SOL kept for fees into a sell', () => {
      const lamports = 200_000_000n + LADDER_SOL_RESERVE_LAMPORTS;
      expect(levelsOf(run(PARAMS, { lamports, tokens: {} }).intents)).toEqual(['lvl1 sell 200000000>20200000']);
      expect(run(PARAMS, { lamports: lamports - 1n, tokens: {} }).intents).toEqual([]);
    });

    it('warns instead of asking for an order under the venue’s $5 minimum', () => {
      const out = run({ ...PARAMS, buyAmount: '4000000' }, {});
      expect(levelsOf(out.intents).map((l) => l.split(' ')[0])).toEqual(['lvl1', 'lvl2']);
      expect(out.logs).toContainEqual({ level: 'warn', message: "a buy order is worth less than the venue's $5 minimum: raise buyAmount", fields: { level: -1, usd: 4 } });
    });

    it('does nothing without a price for either token', () => {
      expect(run(PARAMS, { prices: { [SOL]: { usd: 100, decimals: 9 } } }).intents).toEqual([]);
    });

    it('refuses a corrupt state rather than placing a second ladder', () => {
      expect(() => run(PARAMS, { state: { centre: 'high', levels: 'many' } })).toThrow();
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = limitLadder.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse a ladder reaching zero, a range narrower than a spacing, one token twice and decimal amounts', () => {
      expect(refused({ ...PARAMS, levelsPerSide: 10, spacingPct: 10 })).toEqual(['spacingPct: levelsPerSide × spacingPct must stay under 100 % (the lowest buy would be at or below 0)']);
      expect(refused({ ...PARAMS, rangePct: 0.5 })).toEqual(['rangePct: rangePct must be at least one spacing, or no level could ever fill before the ladder re-centres']);
      expect(refused({ ...PARAMS, quote: 'SOL' })).toEqual(['quote: base and quote must differ']);
      expect(refused({ ...PARAMS, buyAmount: '1.5' })[0]).toMatch(/^buyAmount: /);
      expect(refused({ ...PARAMS, levels: 3 })[0]).toMatch(/levels/);
    });

    it('watch both mints', () => {
      expect(limitLadder.watches(limitLadder.params.parse(PARAMS))).toEqual({ mints: [SOL, USDC] });
    });
  });
});

describe('config/examples/limit-ladder.yaml', () => {
  it('loads with the built-in strategies and no environment, with the params its comments describe', () => {
    const config = loadConfig(fileURLToPath(new URL('../../config/examples/limit-ladder.yaml', import.meta.url)), builtinStrategies, {});
    expect(config.venue.kind).toBe('simulator');
    expect(config.strategies).toHaveLength(1);
    const s = config.strategies[0]!;
    expect(s.definition).toBe(limitLadder);
    expect(s.params).toMatchObject({ base: SOL, quote: USDC, levelsPerSide: 3, spacingPct: 1, buyAmount: 20_000_000n, sellAmount: 200_000_000n, rangePct: 4, maxOrdersPerRun: 6 });
    expect(config.risk.maxIntentsPerEvaluation).toBeGreaterThanOrEqual((s.params as { maxOrdersPerRun: number }).maxOrdersPerRun);
  });
});
