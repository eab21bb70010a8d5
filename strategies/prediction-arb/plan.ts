// The arithmetic of one arbitrage entry: the cost of a pair of opposite sides on two markets of the same question,
// fees included, its size, each leg's deposit and each leg's price limit. Pure functions of the quotes.
import { askOf, CENT, ceilCent, costPerContract, MICRO, MIN_DEPOSIT, predictionFee, type Side } from '../prediction-common/index.js';
import type { MarketView } from '../../src/sdk/index.js';

/** One leg: a side of a market. */
export interface Leg {
  marketId: string;
  side: Side;
}

/** The two ways to hold both outcomes across the pair: YES on the first and NO on the second, or the reverse. */
export type Orientation = 'yesFirst' | 'noFirst';

/** The legs of an orientation. */
export function legsOf(first: string, second: string, o: Orientation): [Leg, Leg] {
  return o === 'yesFirst'
    ? [{ marketId: first, side: 'yes' }, { marketId: second, side: 'no' }]
    : [{ marketId: first, side: 'no' }, { marketId: second, side: 'yes' }];
}

/** A planned entry: contracts on each leg, each leg's ask, deposit and limit, and the profit at the asks. */
export interface Entry {
  orientation: Orientation;
  contractsMicro: bigint;
  asks: [bigint, bigint];
  deposits: [bigint, bigint];
  limits: [bigint, bigint];
  /** What the pair pays at settlement less what it costs at the asks with fees, micro-USD (for all contracts). */
  profitMicro: bigint;
}

/** What `contractsMicro` of a leg cost at `ask`, the fill's fee included, micro-USD. */
export function legCost(contractsMicro: bigint, ask: bigint): bigint {
  return (contractsMicro * ask + MICRO - 1n) / MICRO + predictionFee(contractsMicro, ask);
}

/** Contracts (micro, whole hundredths) a leg at `ask` needs for its deposit to reach the service's $5 minimum. */
function contractsForMinimum(ask: bigint): bigint {
  let n = ((MIN_DEPOSIT * MICRO) / ask / CENT) * CENT;
  while (legCost(n, ask) < MIN_DEPOSIT) n += CENT;
  return n;
}

/**
 * The highest price (to the cent) a leg bought at `ask` may fill at, if the pair is still to keep `minEdge` when
 * both legs fill at their limits: the legs share the slack the asks leave in proportion to their prices, as a
 * market order's slippage allowance grows with its price.
 */
export function legLimit(ask: bigint, slack: bigint): bigint {
  let q = ask;
  while (q + CENT <= 990_000n && costPerContract(q + CENT) - costPerContract(ask) <= slack) q += CENT;
  return q;
}

/**
 * The best entry across the two markets now, sized to at most `maxContractsMicro` contracts and to what `roomMicro`
 * (USD left under the pair's cap) pays for, or undefined when no orientation pays at least `minEdgeMicro` a pair
 * after fees, or the service's minimum order does not fit.
 */
export function planEntry(first: MarketView, second: MarketView, minEdgeMicro: bigint, maxContractsMicro: bigint, roomMicro: bigint, legSlippageBps = 0): Entry | undefined {
  let best: Entry | undefined;
  for (const orientation of ['yesFirst', 'noFirst'] as const) {
    const [a, b] = legsOf(first.marketId, second.marketId, orientation);
    const askA = askOf(first, a.side);
    const askB = askOf(second, b.side);
    if (askA === null || askB === null) continue;
    const slack = MICRO - minEdgeMicro - costPerContract(askA) - costPerContract(askB);
    if (slack < 0n) continue;
    const perPair = costPerContract(askA) + costPerContract(askB);
    let n = maxContractsMicro;
    const affordable = ((roomMicro * MICRO) / perPair / CENT) * CENT;
    if (affordable < n) n = affordable;
    // The fees' rounding to the cent can put the pair a little over the room: shave hundredths until it fits.
    while (n > 0n && legCost(n, askA) + legCost(n, askB) > roomMicro) n -= CENT;
    const least = maxBig(contractsForMinimum(askA), contractsForMinimum(askB));
    if (n < least) continue;
    const deposits: [bigint, bigint] = [legCost(n, askA), legCost(n, askB)];
    const profit = n - deposits[0] - deposits[1];
    // The fee's rounding to the cent is in the deposits: the edge is judged on what the legs really cost.
    if (profit <= 0n || (profit * MICRO) / n < minEdgeMicro) continue;
    const limits: [bigint, bigint] = [
      withSlippage(legLimit(askA, (slack * askA) / (askA + askB)), askA, legSlippageBps),
      withSlippage(legLimit(askB, (slack * askB) / (askA + askB)), askB, legSlippageBps),
    ];
    if (!best || profit > best.profitMicro) best = { orientation, contractsMicro: n, asks: [askA, askB], deposits, limits, profitMicro: profit };
  }
  return best;
}

/**
 * A leg's limit raised to its ask plus `slippageBps` (to the cent above, at most $0.99): what a venue whose market
 * orders carry a slippage allowance needs to accept the order. Both legs filling at such limits may cost more than
 * the pair pays; fills at the asks cost what was planned.
 */
export function withSlippage(limit: bigint, ask: bigint, slippageBps: number): bigint {
  if (slippageBps <= 0) return limit;
  const raised = ceilCent((ask * BigInt(10_000 + slippageBps)) / 10_000n);
  return raised > limit ? raised : limit;
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
