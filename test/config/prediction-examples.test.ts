import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/index.js';
import { builtinStrategies, predictionArb, predictionEdge, predictionExit } from '../../strategies/index.js';
import { KNOWN_SYMBOLS } from '../../src/sdk/symbols.js';

const example = (name: string) => fileURLToPath(new URL(`../../config/examples/${name}.yaml`, import.meta.url));
const USDC = KNOWN_SYMBOLS.USDC!.mint;

describe('the prediction strategies\' example configs', () => {
  it('prediction-edge.yaml loads with the built-in registry: fair probabilities by market, $10 buys, $40 an event', () => {
    const config = loadConfig(example('prediction-edge'), builtinStrategies, {});
    expect(config.strategies.map((s) => [s.id, s.definition])).toEqual([['edge-sports', predictionEdge]]);
    expect(config.strategies[0]!.params).toEqual({
      fair: { 'POLY-600001': 0.62, 'POLY-600002': 0.25 }, minEdge: 0.03, orderUsd: 10, maxEventUsd: 40, depositMint: USDC, exit: 'atFair', slippageBps: 300, entryCutoffMinutes: 10, cooldownSeconds: 60,
    });
  });

  it('prediction-arb.yaml loads with the built-in registry: two Polymarket/Kalshi pairs', () => {
    const config = loadConfig(example('prediction-arb'), builtinStrategies, {});
    expect(config.strategies.map((s) => [s.id, s.definition])).toEqual([['arb-games', predictionArb]]);
    expect(config.strategies[0]!.params).toMatchObject({ pairs: [{ polymarket: 'POLY-600001', kalshi: 'KXGAMES-1-LAK0' }, { polymarket: 'POLY-600008', kalshi: 'KXGAMES-2-CEL0' }], maxContracts: 50, maxPairUsd: 150, depositMint: USDC, legSlippageBps: 200 });
  });

  it('prediction-exit.yaml loads with the built-in registry: every exit rule and a 15-minute cut-off', () => {
    const config = loadConfig(example('prediction-exit'), builtinStrategies, {});
    expect(config.strategies.map((s) => [s.id, s.definition])).toEqual([['exits', predictionExit]]);
    expect(config.strategies[0]!.params).toEqual({
      markets: ['POLY-600001'], categories: ['crypto'], takeProfitPrice: 0.9, stopLossPrice: 0.2, takeProfitPct: 50, stopLossPct: 40, closeBeforeMinutes: 15, slippageBps: 300, retrySeconds: 60,
    });
  });
});
