import { describe, expect, it } from 'vitest';
import { predictionExit, type PredictionExitState } from '../../strategies/index.js';
import { decidePrediction, event, market, NOW, pendingOf, position, type PredictionSetup } from '../helpers/predictionContext.js';

const POS_A = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const POS_B = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const PARAMS = { markets: ['M1', 'M2'], takeProfitPrice: 0.8, stopLossPrice: 0.3, closeBeforeMinutes: 30 };

/** One market M1 (event E1) quoted YES $buyYes / $sellYes, and a YES position of 20 contracts bought at $0.50 in it. */
function withM1(q: { buyYes: number | null; sellYes: number | null; closesInMin?: number }, extra: PredictionSetup<PredictionExitState> = {}): PredictionSetup<PredictionExitState> {
  return { events: [event('E1', [market('M1', 'E1', q)])], positions: [position(POS_A, 'M1', true, 20, 50)], ...extra };
}

describe('prediction-exit', () => {
  describe('at a take-profit or a stop-loss price', () => {
    it('sells the whole position when the bid of the side held reaches the take-profit, accepting down to 3 % under the bid', () => {
      const { intents, state } = decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 84, sellYes: 82 }));
      expect(intents).toEqual([{ kind: 'prediction.closePosition', positionPubkey: POS_A, minPriceMicroUsd: 790_000n, reason: 'take-profit: YES bid $0.82 at or above $0.80' }]);
      expect(state).toEqual({ closedAt: { [POS_A]: NOW } });
    });

    it('reads the bid of the side held: a NO position stops out when NO is bid at $0.25 (YES asked at $0.75)', () => {
      const setup = withM1({ buyYes: 75, sellYes: 73 }, { positions: [position(POS_B, 'M1', false, 20, 45)] });
      expect(decidePrediction(predictionExit, PARAMS, setup).intents).toEqual([
        { kind: 'prediction.closePosition', positionPubkey: POS_B, minPriceMicroUsd: 240_000n, reason: 'stop-loss: NO bid $0.25 at or below $0.30' },
      ]);
    });

    it('keeps a position whose bid is between the stop and the target', () => {
      expect(decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 62, sellYes: 60 })).intents).toEqual([]);
    });
  });

  describe('at a move from the entry price', () => {
    const pct = { markets: ['M1'], takeProfitPct: 25, stopLossPct: 20 };

    const at48 = (q: { buyYes: number; sellYes: number }) => withM1(q, { positions: [position(POS_A, 'M1', true, 20, 48)] });

    it('takes profit at +25 % over a $0.48 entry ($0.60 bid), not at +22.9 % ($0.59)', () => {
      expect(decidePrediction(predictionExit, pct, at48({ buyYes: 62, sellYes: 60 })).intents[0]?.reason).toBe('take-profit: YES bid $0.60 is 25.0% over the entry $0.48');
      expect(decidePrediction(predictionExit, pct, at48({ buyYes: 61, sellYes: 59 })).intents).toEqual([]);
    });

    it('stops out at -20 % under a $0.48 entry ($0.38 bid is -20.8 %), not at -18.8 % ($0.39)', () => {
      expect(decidePrediction(predictionExit, pct, at48({ buyYes: 40, sellYes: 38 })).intents[0]?.reason).toBe('stop-loss: YES bid $0.38 is 20.8% under the entry $0.48');
      expect(decidePrediction(predictionExit, pct, at48({ buyYes: 41, sellYes: 39 })).intents).toEqual([]);
    });

    it('does not judge a move without an entry price', () => {
      const setup = withM1({ buyYes: 42, sellYes: 30 }, { positions: [position(POS_A, 'M1', true, 20, null)] });
      expect(decidePrediction(predictionExit, pct, setup).intents).toEqual([]);
    });
  });

  describe('before the market closes', () => {
    it('closes every position inside the cut-off whatever its price, and none before it', () => {
      const inside = decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 62, sellYes: 60, closesInMin: 20 }));
      expect(inside.intents).toEqual([{ kind: 'prediction.closePosition', positionPubkey: POS_A, minPriceMicroUsd: 580_000n, reason: 'cut-off: the market closes in 20 min (closing 30 min before)' }]);
      expect(decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 62, sellYes: 60, closesInMin: 40 })).intents).toEqual([]);
    });

    it('closes positions on both sides of several markets at the cut-off', () => {
      const setup: PredictionSetup<PredictionExitState> = {
        events: [event('E1', [market('M1', 'E1', { buyYes: 62, sellYes: 60, closesInMin: 10 }), market('M2', 'E1', { buyYes: 30, sellYes: 28, closesInMin: 10 })])],
        positions: [position(POS_A, 'M1', true, 20, 50), position(POS_B, 'M2', false, 10, 70)],
      };
      expect(decidePrediction(predictionExit, PARAMS, setup).intents.map((i) => i.kind === 'prediction.closePosition' && i.positionPubkey)).toEqual([POS_A, POS_B]);
    });

    it('warns and asks nothing when nobody bids for the side held', () => {
      const out = decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 62, sellYes: null, closesInMin: 10 }));
      expect(out.intents).toEqual([]);
      expect(out.logs).toEqual([{ level: 'warn', message: 'cannot close: nobody bids for the side held', fields: { marketId: 'M1', positionPubkey: POS_A, reason: 'cut-off: the market closes in 10 min (closing 30 min before)' } }]);
    });
  });

  describe('what it manages', () => {
    it('leaves positions in markets it was not given alone', () => {
      expect(decidePrediction(predictionExit, { ...PARAMS, markets: ['M2'] }, withM1({ buyYes: 84, sellYes: 82 })).intents).toEqual([]);
    });

    it('manages the markets of events in its categories', () => {
      const params = { categories: ['sports'], takeProfitPrice: 0.8 };
      expect(decidePrediction(predictionExit, params, withM1({ buyYes: 84, sellYes: 82 })).intents).toHaveLength(1);
      expect(decidePrediction(predictionExit, { ...params, categories: ['crypto'] }, withM1({ buyYes: 84, sellYes: 82 })).intents).toEqual([]);
    });

    it('leaves settled markets to the keeper\'s claims', () => {
      const settled = { ...market('M1', 'E1', { buyYes: 84, sellYes: 82 }), status: 'closed', result: 'yes' as const, isTradable: false };
      expect(decidePrediction(predictionExit, PARAMS, { events: [event('E1', [settled])], positions: [position(POS_A, 'M1', true, 20, 50)] }).intents).toEqual([]);
    });
  });

  describe('so that it does not ask twice', () => {
    it('asks nothing while a sale or close of the position is pending', () => {
      const pending = pendingOf({ kind: 'prediction.closePosition', positionPubkey: POS_A, minPriceMicroUsd: 790_000n }, 'landed');
      expect(decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 84, sellYes: 82 }, { pending: [pending] })).intents).toEqual([]);
    });

    it('asks again only retrySeconds after its last ask (the sale may not have filled)', () => {
      const recent = { closedAt: { [POS_A]: NOW - 30_000 } };
      expect(decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 84, sellYes: 82 }, { state: recent })).intents).toEqual([]);
      const old = { closedAt: { [POS_A]: NOW - 61_000 } };
      expect(decidePrediction(predictionExit, PARAMS, withM1({ buyYes: 84, sellYes: 82 }, { state: old })).intents).toHaveLength(1);
    });
  });

  describe('its params', () => {
    const refused = (params: Record<string, unknown>): string[] => {
      const r = predictionExit.params.safeParse(params);
      return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    };

    it('refuse nothing to manage, no exit rule, and a stop above the target', () => {
      expect(refused({ takeProfitPrice: 0.8 })).toEqual(['markets: name markets or categories to manage']);
      expect(refused({ markets: ['M1'] })).toEqual(['closeBeforeMinutes: set at least one of takeProfitPrice, stopLossPrice, takeProfitPct, stopLossPct, closeBeforeMinutes']);
      expect(refused({ ...PARAMS, stopLossPrice: 0.85 })).toEqual(['stopLossPrice: stopLossPrice must be below takeProfitPrice']);
      expect(refused({ ...PARAMS, categories: ['weather'] })[0]).toMatch(/^categories\.0: /);
    });

    it('watch the markets and categories they name, and decide on every new snapshot', () => {
      expect(predictionExit.watches(predictionExit.params.parse({ markets: ['M1'], categories: ['crypto'], closeBeforeMinutes: 5 }))).toEqual({ predictionMarkets: ['M1'], predictionCategories: ['crypto'] });
      expect(predictionExit.reactive).toBe(true);
    });
  });
});
