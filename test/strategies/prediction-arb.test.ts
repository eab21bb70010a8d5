import { describe, expect, it } from 'vitest';
import { predictionArb, type PredictionArbState } from '../../strategies/index.js';
import { decidePrediction, event, market, NOW, pendingOf, position, USDC, usdcWallet, type PredictionSetup } from '../helpers/predictionContext.js';

const POS_P = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const POS_K = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const PARAMS = { pairs: [{ polymarket: 'POLY-600001', kalshi: 'KXGAMES-1-LAK0' }], minEdge: 0.01, maxContracts: 20, maxPairUsd: 100 };
// Polymarket: YES asked at $0.40 (bid $0.38). Kalshi: YES $0.50/$0.48, so NO is asked at $0.52.
const POLY = market('POLY-600001', 'POLY-300000', { buyYes: 40, sellYes: 38 });
const KALSHI = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 50, sellYes: 48 });

function setup(k = KALSHI, extra: PredictionSetup<PredictionArbState> = {}): PredictionSetup<PredictionArbState> {
  return { ...usdcWallet(200), events: [event('POLY-300000', [POLY]), event('watched', [k])], ...extra };
}

describe('prediction-arb', () => {
  describe('when YES on one provider and NO on the other cost less than $1 after fees', () => {
    it('buys both legs in one decision: 20 contracts each, each deposit its cost with the fee, each limit keeping the edge', () => {
      // $0.40 + $0.0168 fee and $0.52 + $0.0175 fee: $0.954 a pair paying $1. 20 contracts: $8.34 and $10.75. The
      // $0.036 left over the 1 cent edge is shared by price: $0.41 and $0.54 at most (both filled there: $0.99 a pair).
      const { intents, state } = decidePrediction(predictionArb, PARAMS, setup());
      const reason = 'pair YES+NO costs $19.09 for $20.00 payout';
      expect(intents).toEqual([
        { kind: 'prediction.buy', marketId: 'POLY-600001', side: 'yes', depositAmount: 8_340_000n, depositMint: USDC, maxPriceMicroUsd: 410_000n, reason },
        { kind: 'prediction.buy', marketId: 'KXGAMES-1-LAK0', side: 'no', depositAmount: 10_750_000n, depositMint: USDC, maxPriceMicroUsd: 540_000n, reason },
      ]);
      expect(state).toEqual({ actedAt: { 'POLY-600001|KXGAMES-1-LAK0|yesFirst': NOW } });
    });

    it('takes the other orientation when that is the cheap one (NO on Polymarket, YES on Kalshi)', () => {
      const k = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 30, sellYes: 28 });
      const p = market('POLY-600001', 'POLY-300000', { buyYes: 70, sellYes: 66 });
      const { intents } = decidePrediction(predictionArb, PARAMS, { ...setup(k), events: [event('POLY-300000', [p]), event('watched', [k])] });
      expect(intents.map((i) => i.kind === 'prediction.buy' && `${i.marketId}:${i.side}`)).toEqual(['POLY-600001:no', 'KXGAMES-1-LAK0:yes']);
    });

    it('sizes by what the pair\'s cap leaves: $15 buys 15.71 contracts a leg, both legs together under $15', () => {
      const { intents } = decidePrediction(predictionArb, { ...PARAMS, maxPairUsd: 15 }, setup());
      const total = intents.reduce((s, i) => s + (i.kind === 'prediction.buy' ? i.depositAmount : 0n), 0n);
      expect(intents).toHaveLength(2);
      expect(total).toBeLessThanOrEqual(15_000_000n);
      expect(total).toBeGreaterThan(14_500_000n);
    });
  });

  describe('its legs\' price limits', () => {
    // $0.40 YES and $0.56 NO: $0.994 a pair with the fees, a bit over half a cent of slack.
    const thin = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 46, sellYes: 44 });
    const limits = (params: Record<string, unknown>) => decidePrediction(predictionArb, { ...PARAMS, minEdge: 0, ...params }, setup(thin)).intents.map((i) => i.kind === 'prediction.buy' && i.maxPriceMicroUsd);

    it('keep the pair under $1 when both legs fill at them: a thin edge leaves them at the asks', () => {
      expect(limits({})).toEqual([400_000n, 560_000n]);
    });

    it('with legSlippageBps, reach the ask plus that much (the venue\'s market orders carry a 2 % allowance)', () => {
      expect(limits({ legSlippageBps: 200 })).toEqual([410_000n, 580_000n]);
    });
  });

  describe('when the pair does not pay', () => {
    it('buys nothing when the asks sum under $1 but not with the fees ($0.40 + $0.58 = $0.98; $1.014 with fees)', () => {
      const k = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 44, sellYes: 42 });
      expect(decidePrediction(predictionArb, PARAMS, setup(k)).intents).toEqual([]);
    });

    it('buys nothing under minEdge: a $0.016 edge a pair against a $0.02 minimum', () => {
      const k = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 47, sellYes: 45 });
      expect(decidePrediction(predictionArb, { ...PARAMS, minEdge: 0.02 }, setup(k)).intents).toEqual([]);
      expect(decidePrediction(predictionArb, PARAMS, setup(k)).intents).toHaveLength(2);
    });

    it('buys nothing when maxContracts does not reach the $5 minimum of the cheap leg (12.5 contracts at $0.40)', () => {
      expect(decidePrediction(predictionArb, { ...PARAMS, maxContracts: 12 }, setup()).intents).toEqual([]);
      expect(decidePrediction(predictionArb, { ...PARAMS, maxContracts: 13 }, setup()).intents).toHaveLength(2);
    });

    it('buys neither leg when the wallet cannot pay both', () => {
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, usdcWallet(9))).intents).toEqual([]);
    });

    it('buys nothing when a market of the pair is missing from the feed, or closes within the entry cut-off', () => {
      expect(decidePrediction(predictionArb, PARAMS, { ...setup(), events: [event('POLY-300000', [POLY])] }).intents).toEqual([]);
      const closing = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 50, sellYes: 48, closesInMin: 5 });
      expect(decidePrediction(predictionArb, PARAMS, setup(closing)).intents).toEqual([]);
    });

    it('adds nothing once the pair holds what its cap allows', () => {
      const held = [position(POS_P, 'POLY-600001', true, 100, 40), position(POS_K, 'KXGAMES-1-LAK0', false, 100, 52)];
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, { positions: held })).intents).toEqual([]);
    });
  });

  describe('both legs or none', () => {
    it('waits while a buy of either leg is pending', () => {
      const pending = pendingOf({ kind: 'prediction.buy', marketId: 'KXGAMES-1-LAK0', side: 'no', depositAmount: 10_750_000n, maxPriceMicroUsd: 530_000n });
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, { pending: [pending], positions: [position(POS_P, 'POLY-600001', true, 20, 40)] })).intents).toEqual([]);
    });

    it('waits while the venue still fills a leg\'s order (its position is listed with no contracts yet)', () => {
      const held = [position(POS_P, 'POLY-600001', true, 20, 40), position(POS_K, 'KXGAMES-1-LAK0', false, 0, null)];
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, { positions: held })).intents).toEqual([]);
    });

    it('gives a missing leg legGraceSeconds to show before acting', () => {
      const state = { actedAt: { 'POLY-600001|KXGAMES-1-LAK0|yesFirst': NOW - 60_000 } };
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, { state, positions: [position(POS_P, 'POLY-600001', true, 20, 40)] })).intents).toEqual([]);
    });

    it('completes a leg that did not fill while the pair still pays against what the other leg cost', () => {
      const { intents } = decidePrediction(predictionArb, PARAMS, setup(KALSHI, { positions: [position(POS_P, 'POLY-600001', true, 20, 40)] }));
      expect(intents).toEqual([
        { kind: 'prediction.buy', marketId: 'KXGAMES-1-LAK0', side: 'no', depositAmount: 10_750_000n, depositMint: USDC, maxPriceMicroUsd: 550_000n, reason: 'complete the pair: NO at $0.52 against $0.40 paid' },
      ]);
    });

    it('sells the unmatched contracts when completing no longer pays', () => {
      // Kalshi NO now asks $0.62: with the $0.40 paid that is over $1.
      const k = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 40, sellYes: 38 });
      const held = [position(POS_P, 'POLY-600001', true, 20, 40), position(POS_K, 'KXGAMES-1-LAK0', false, 12, 52)];
      expect(decidePrediction(predictionArb, PARAMS, setup(k, { positions: held })).intents).toEqual([
        { kind: 'prediction.sell', positionPubkey: POS_P, contractsMicro: 8_000_000n, minPriceMicroUsd: 360_000n, reason: 'unwind 8.00 unmatched contracts: completing them no longer pays' },
      ]);
    });

    it('sells the unmatched contracts when completing them would be a buy under the $5 minimum', () => {
      // 2 contracts of NO at $0.52 cost $1.08 with the fee: too small an order, though the pair still pays.
      const held = [position(POS_P, 'POLY-600001', true, 20, 40), position(POS_K, 'KXGAMES-1-LAK0', false, 18, 52)];
      expect(decidePrediction(predictionArb, PARAMS, setup(KALSHI, { positions: held })).intents).toEqual([
        { kind: 'prediction.sell', positionPubkey: POS_P, contractsMicro: 2_000_000n, minPriceMicroUsd: 360_000n, reason: 'unwind 2.00 unmatched contracts: buying the rest would be under the $5 minimum' },
      ]);
    });

    it('leaves legs within a contract of each other alone (fills floor to hundredths)', () => {
      const held = [position(POS_P, 'POLY-600001', true, 20, 40), position(POS_K, 'KXGAMES-1-LAK0', false, 19.5, 52)];
      const k = market('KXGAMES-1-LAK0', 'KXGAMES-1', { buyYes: 40, sellYes: 38 });
      expect(decidePrediction(predictionArb, PARAMS, setup(k, { positions: held })).intents).toEqual([]);
    });
  });

  describe('its params', () => {
    it('refuse a pair of one market twice and a cap under two minimum orders', () => {
      const r = predictionArb.params.safeParse({ ...PARAMS, pairs: [{ polymarket: 'A', kalshi: 'A' }], maxPairUsd: 9 });
      expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual(['pairs.0: the two markets must differ', 'maxPairUsd: Too small: expected number to be >=10']);
    });

    it('watch both markets of every pair and the deposit mint, and decide on every new snapshot', () => {
      expect(predictionArb.watches(predictionArb.params.parse(PARAMS))).toEqual({ mints: [USDC], predictionMarkets: ['POLY-600001', 'KXGAMES-1-LAK0'] });
      expect(predictionArb.reactive).toBe(true);
    });
  });
});
