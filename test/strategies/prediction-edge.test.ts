import { describe, expect, it } from 'vitest';
import { predictionEdge } from '../../strategies/index.js';
import { predictionFee } from '../../strategies/prediction-common/index.js';
import { decidePrediction, event, market, NOW, pendingOf, position, USDC, usdcWallet, type PredictionSetup } from '../helpers/predictionContext.js';
import type { PredictionEdgeState } from '../../strategies/index.js';

// YES asked at $0.40 and bid at $0.38; NO asked at $0.62 and bid at $0.60.
const M1 = market('POLY-1', 'E1', { buyYes: 40, sellYes: 38 });
const M2 = market('POLY-2', 'E1', { buyYes: 70, sellYes: 68 });
// Position accounts (any base58 addresses).
const POS_YES = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const POS_2 = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const PARAMS = { fair: { 'POLY-1': 0.55 }, minEdge: 0.02, orderUsd: 10, maxEventUsd: 25 };

function setup(extra: PredictionSetup<PredictionEdgeState> = {}): PredictionSetup<PredictionEdgeState> {
  return { ...usdcWallet(100), events: [event('E1', [M1, M2])], ...extra };
}

describe('prediction-edge', () => {
  it('charges the venue\'s fee: $1.32 for 100 contracts at $0.25, $0.07 for 100 at $0.01, rounded up to the cent', () => {
    expect(predictionFee(100_000_000n, 250_000n)).toBe(1_320_000n);
    expect(predictionFee(100_000_000n, 10_000n)).toBe(70_000n);
    expect(predictionFee(1_000_000n, 400_000n)).toBe(20_000n);
  });

  describe('when a side costs less than its fair probability by more than the margin after fees', () => {
    it('buys YES with the order size, capped at the highest price that still keeps the margin after the fee', () => {
      const { intents, state } = decidePrediction(predictionEdge, PARAMS, setup());
      // Fair 0.55 less the 0.02 margin: $0.51 plus its fee (0.07 x 0.51 x 0.49 = $0.0175) is the last cent under $0.53.
      expect(intents).toEqual([
        { kind: 'prediction.buy', marketId: 'POLY-1', side: 'yes', depositAmount: 10_000_000n, depositMint: USDC, maxPriceMicroUsd: 510_000n, reason: 'YES at $0.40 vs fair $0.55: edge $0.1329 a contract after fees' },
      ]);
      expect(state).toEqual({ boughtAt: { 'POLY-1:yes': NOW }, soldAt: {} });
    });

    it('buys NO when YES is overpriced (fair YES 0.20: NO is worth 0.80 and asked at 0.62)', () => {
      const { intents } = decidePrediction(predictionEdge, { ...PARAMS, fair: { 'POLY-1': 0.2 } }, setup());
      expect(intents).toEqual([expect.objectContaining({ kind: 'prediction.buy', marketId: 'POLY-1', side: 'no', depositAmount: 10_000_000n })]);
    });
  });

  describe('when the edge is not there', () => {
    it('does not buy an edge the fee eats: 3 cents under fair is 1.3 cents after a 1.7 cent fee, under the 2 cent margin', () => {
      expect(decidePrediction(predictionEdge, { ...PARAMS, fair: { 'POLY-1': 0.43 } }, setup()).intents).toEqual([]);
      expect(decidePrediction(predictionEdge, { ...PARAMS, fair: { 'POLY-1': 0.44 } }, setup()).intents).toHaveLength(1);
    });

    it('does nothing in a market the feed does not show, a closed one, or one closing within the entry cut-off', () => {
      expect(decidePrediction(predictionEdge, { ...PARAMS, fair: { 'POLY-9': 0.9 } }, setup()).intents).toEqual([]);
      const closed = { ...M1, status: 'closed', isTradable: false };
      expect(decidePrediction(predictionEdge, PARAMS, setup({ events: [event('E1', [closed])] })).intents).toEqual([]);
      const closing = market('POLY-1', 'E1', { buyYes: 40, sellYes: 38, closesInMin: 5 });
      expect(decidePrediction(predictionEdge, PARAMS, setup({ events: [event('E1', [closing])] })).intents).toEqual([]);
    });
  });

  describe('its cap per event', () => {
    it('counts positions in every market of the event and buys only what is left under the cap', () => {
      // $20 at stake in POLY-2 (50 contracts at $0.40) leaves $5 of the $25 cap.
      const held = [position(POS_2, 'POLY-2', true, 50, 40)];
      expect(decidePrediction(predictionEdge, PARAMS, setup({ positions: held })).intents).toEqual([expect.objectContaining({ marketId: 'POLY-1', depositAmount: 5_000_000n })]);
    });

    it('buys nothing once less than the $5 minimum is left, and says so', () => {
      const out = decidePrediction(predictionEdge, PARAMS, setup({ positions: [position(POS_2, 'POLY-2', true, 52.5, 40)] }));
      expect(out.intents).toEqual([]);
      expect(out.logs).toContainEqual({ level: 'debug', message: 'skipping: the event cap is reached', fields: { marketId: 'POLY-1', eventId: 'E1', roomMicroUsd: '4000000' } });
    });

    it('counts its own pending buys in the event as spent', () => {
      const pending = pendingOf({ kind: 'prediction.buy', marketId: 'POLY-2', side: 'yes', depositAmount: 18_000_000n, maxPriceMicroUsd: 700_000n });
      expect(decidePrediction(predictionEdge, PARAMS, setup({ pending: [pending] })).intents).toEqual([expect.objectContaining({ depositAmount: 7_000_000n })]);
    });
  });

  describe('so that it does not ask twice', () => {
    it('does not buy a market while its own buy of it is pending', () => {
      const pending = pendingOf({ kind: 'prediction.buy', marketId: 'POLY-1', side: 'yes', depositAmount: 10_000_000n, maxPriceMicroUsd: 510_000n }, 'landed');
      expect(decidePrediction(predictionEdge, PARAMS, setup({ pending: [pending] })).intents).toEqual([]);
    });

    it('does not buy a market while the venue still fills its order (a position listed with no contracts yet), and counts that order against the event', () => {
      const working = [position(POS_YES, 'POLY-1', true, 0, null)];
      expect(decidePrediction(predictionEdge, PARAMS, setup({ positions: working })).intents).toEqual([]);
      // An order working in POLY-2 counts as one $10 order of the $25 cap: $15 is left, so POLY-1 gets its $10.
      const elsewhere = [position(POS_2, 'POLY-2', true, 0, null)];
      expect(decidePrediction(predictionEdge, { ...PARAMS, maxEventUsd: 19 }, setup({ positions: elsewhere })).intents).toEqual([expect.objectContaining({ marketId: 'POLY-1', depositAmount: 9_000_000n })]);
    });

    it('waits cooldownSeconds after a buy before buying the same side again', () => {
      const recent = { boughtAt: { 'POLY-1:yes': NOW - 59_000 }, soldAt: {} };
      expect(decidePrediction(predictionEdge, PARAMS, setup({ state: recent })).intents).toEqual([]);
      const old = { boughtAt: { 'POLY-1:yes': NOW - 61_000 }, soldAt: {} };
      expect(decidePrediction(predictionEdge, PARAMS, setup({ state: old })).intents).toHaveLength(1);
    });

    it('drops a corrupt state rather than trusting it', () => {
      expect(decidePrediction(predictionEdge, PARAMS, setup({ state: { boughtAt: 'junk', soldAt: 7 } as never })).intents).toHaveLength(1);
    });

    it('does not spend what the wallet does not hold', () => {
      const out = decidePrediction(predictionEdge, PARAMS, setup(usdcWallet(9)));
      expect(out.intents).toEqual([]);
      expect(out.logs[0]).toMatchObject({ level: 'info', message: 'skipping: not enough to pay the deposit' });
    });
  });

  describe('its exit', () => {
    const held = [position(POS_YES, 'POLY-1', true, 20, 40)];
    // The YES bid rose to $0.60: $0.5832 after the fee, above the fair $0.55 (NO at $0.42 is no buy at fair $0.45).
    const risen = market('POLY-1', 'E1', { buyYes: 62, sellYes: 60, buyNo: 42, sellNo: 38 });

    it('holds to settlement by default', () => {
      expect(decidePrediction(predictionEdge, PARAMS, setup({ positions: held, events: [event('E1', [risen])] })).intents).toEqual([]);
    });

    it('with exit atFair, sells the whole position once the bid after the fee pays the fair value', () => {
      const { intents, state } = decidePrediction(predictionEdge, { ...PARAMS, exit: 'atFair' }, setup({ positions: held, events: [event('E1', [risen])] }));
      expect(intents).toEqual([{ kind: 'prediction.closePosition', positionPubkey: POS_YES, minPriceMicroUsd: 580_000n, reason: 'YES bid $0.60 pays fair $0.55 after the fee: sell' }]);
      expect(state?.soldAt).toEqual({ [POS_YES]: NOW });
    });

    it('with exit atFair, keeps the position while the bid after the fee is under the fair value', () => {
      const near = market('POLY-1', 'E1', { buyYes: 58, sellYes: 56 });
      expect(decidePrediction(predictionEdge, { ...PARAMS, exit: 'atFair' }, setup({ positions: held, events: [event('E1', [near])] })).intents).toEqual([]);
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = predictionEdge.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse no markets, certain probabilities, an order under the $5 minimum and an order over the event cap', () => {
      expect(refused({ ...PARAMS, fair: {} })).toEqual(['fair: name at least one market']);
      expect(refused({ ...PARAMS, fair: { 'POLY-1': 1 } })[0]).toMatch(/^fair\.POLY-1: /);
      expect(refused({ ...PARAMS, orderUsd: 4 })[0]).toMatch(/^orderUsd: /);
      expect(refused({ ...PARAMS, orderUsd: 30 })).toEqual(['orderUsd: orderUsd must not exceed maxEventUsd']);
    });

    it('watch exactly the markets they give fair probabilities for, and the deposit mint (the risk gate prices deposits)', () => {
      expect(predictionEdge.watches(predictionEdge.params.parse({ ...PARAMS, fair: { A: 0.5, B: 0.3 } }))).toEqual({ mints: [USDC], predictionMarkets: ['A', 'B'] });
    });
  });
});
