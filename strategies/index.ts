// The strategies shipped with jup-keeper. A config names them by `strategy: <name>`.
import type { AnyStrategy, StrategyDefinition, StrategyRegistry } from '../src/sdk/index.js';
import { dcaSwap } from './dca-swap/index.js';
import { thresholdRebalance } from './threshold-rebalance/index.js';
import { dca } from './dca/index.js';
import { idleYield } from './idle-yield/index.js';
import { limitLadder } from './limit-ladder/index.js';
import { takeProfitStopLoss } from './take-profit-stop-loss/index.js';
import { rebalance } from './rebalance/index.js';
import { predictionEdge } from './prediction-edge/index.js';
import { predictionExit } from './prediction-exit/index.js';
import { predictionArb } from './prediction-arb/index.js';
import { trend } from './trend/index.js';

export { dcaSwap, dcaSwapParams, DCA_SOL_RESERVE_LAMPORTS, type DcaSwapParams, type DcaSwapState } from './dca-swap/index.js';
export { dca, dcaParams, RECURRING_MIN_ORDER_USD, RECURRING_MIN_BUY_USD, type DcaParams, type DcaState } from './dca/index.js';
export { idleYield, idleYieldParams, IDLE_YIELD_SOL_RESERVE_LAMPORTS, type IdleYieldParams } from './idle-yield/index.js';
export { limitLadder, limitLadderParams, LADDER_SOL_RESERVE_LAMPORTS, TRIGGER_MIN_ORDER_USD, type LimitLadderParams, type LadderState } from './limit-ladder/index.js';
export { takeProfitStopLoss, takeProfitStopLossParams, EXIT_SOL_RESERVE_LAMPORTS, type TakeProfitStopLossParams, type TakeProfitStopLossState } from './take-profit-stop-loss/index.js';
export { rebalance, rebalanceParams, MULTI_REBALANCE_SOL_RESERVE_LAMPORTS, type RebalanceParams, type Target } from './rebalance/index.js';
export { predictionEdge, predictionEdgeParams, type PredictionEdgeParams, type PredictionEdgeState } from './prediction-edge/index.js';
export { predictionExit, predictionExitParams, type PredictionExitParams, type PredictionExitState } from './prediction-exit/index.js';
export { predictionArb, predictionArbParams, type PredictionArbParams, type PredictionArbState } from './prediction-arb/index.js';
export { trend, trendParams, TREND_SOL_RESERVE_LAMPORTS, type TrendParams, type TrendState } from './trend/index.js';
export {
  thresholdRebalance,
  thresholdRebalanceParams,
  REBALANCE_SOL_RESERVE_LAMPORTS,
  type ThresholdRebalanceParams,
} from './threshold-rebalance/index.js';

/**
 * A strategy as defineStrategy returns it, whatever its params and state types. `AnyStrategy` alone would refuse a
 * concrete strategy (its `watches`/`decide` take specific params, not `unknown`); erasing them is sound because the
 * loader hands a strategy only params parsed by its own `params` schema and the state it returned itself.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type DefinedStrategy = Readonly<StrategyDefinition<any, any>>;

/** A registry over `list`, looked up by name. Throws on two strategies with the same name (a packaging bug). */
export function createRegistry(list: readonly DefinedStrategy[]): StrategyRegistry {
  const byName = new Map<string, AnyStrategy>();
  for (const strategy of list) {
    if (byName.has(strategy.name)) throw new TypeError(`two strategies are named ${JSON.stringify(strategy.name)}`);
    byName.set(strategy.name, strategy);
  }
  const names = Object.freeze([...byName.keys()].sort());
  return Object.freeze({ get: (name: string) => byName.get(name), names: () => names });
}

/** The built-in strategies: dca-swap and threshold-rebalance. */
export const builtinStrategies: StrategyRegistry = createRegistry([dcaSwap, thresholdRebalance, dca, idleYield, predictionEdge, predictionExit, predictionArb, limitLadder, takeProfitStopLoss, rebalance, trend]);
