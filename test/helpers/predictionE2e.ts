import type { Keypair } from '@solana/web3.js';
import { createJupiterClient, type JupiterClient } from '../../src/jupiter/client.js';
import type { PredictionEvent } from '../../src/jupiter/prediction/market.js';
import type { MarketView } from '../../src/sdk/index.js';
import type { RunningSimulator } from '../../src/sim/server.js';
import { control, signBase64 } from './sim.js';

/** A market as the venue lists it. */
export type VenueMarket = PredictionEvent['markets'][number];

/** A client of the simulator's API (no rate budget). */
export function venueClient(sim: RunningSimulator): JupiterClient {
  return createJupiterClient({ baseUrl: sim.url, tier: 'off' });
}

/**
 * A keeper config for one prediction strategy instance against the simulator at `venueUrl`: fast feeds (wallet
 * every second, prediction markets every 5 s, the shortest allowed), a decision every second, debug logs.
 * `params` is the instance's params block as YAML, indented by six spaces.
 */
export function predictionKeeperYaml(o: { venueUrl: string; prefix: string; id: string; strategy: string; params: string }): string {
  return `venue:
  kind: simulator
  url: ${o.venueUrl}
wallet: {}
redis:
  prefix: ${o.prefix}
risk:
  maxNotionalUsdPerIntent: 1000
  maxDailyNotionalUsd: 100000
  minSolReserveLamports: "10000000"
execution:
  concurrency: 2
  jobLock: 15s
  reconcileEvery: 2s
  deadline: 10m
feeds:
  prices: 1s
  wallet: 1s
  prediction: 5s
keeper:
  claimEvery: 1m
  staleOrderEvery: 1m
  staleOrderAge: 1h
logging:
  level: debug
strategies:
  - id: ${o.id}
    strategy: ${o.strategy}
    schedule:
      every: 1s
    params:
${o.params}
`;
}

/** Every event of a provider with its markets (all pages). */
export async function allEvents(jup: JupiterClient, provider: 'polymarket' | 'kalshi' = 'polymarket'): Promise<PredictionEvent[]> {
  const out: PredictionEvent[] = [];
  for (let start = 0; ; start += 100) {
    const page = await jup.prediction.getEvents({ provider, includeMarkets: true, start, end: start + 100 });
    out.push(...page.data);
    if (!page.pagination.hasNext) return out;
  }
}

/** A venue market as a strategy's context shows it (the feed's mapping). */
export function asView(m: VenueMarket): MarketView {
  return {
    marketId: m.marketId,
    eventId: m.eventId ?? null,
    title: m.title,
    status: m.status,
    result: m.result === 'pending' ? null : m.result,
    isTradable: m.isTradable,
    closeTime: m.closeTime,
    buyYesMicroUsd: m.pricing.buyYesPriceUsd,
    buyNoMicroUsd: m.pricing.buyNoPriceUsd,
    sellYesMicroUsd: m.pricing.sellYesPriceUsd,
    sellNoMicroUsd: m.pricing.sellNoPriceUsd,
  };
}

/** Buys a side of a market for the owner outside the keeper (build, sign, execute) and has the venue fill it. */
export async function buyOutside(sim: RunningSimulator, jup: JupiterClient, owner: Keypair, marketId: string, isYes: boolean, depositAmount: bigint): Promise<void> {
  const built = await jup.prediction.createPredictionOrder({ isBuy: true, ownerPubkey: owner.publicKey.toBase58(), marketId, isYes, depositAmount });
  await jup.prediction.executePredictionOrder({ signedTransaction: signBase64(built.transaction, owner) });
  await fillOrders(sim);
}

/** Has the venue's keeper network fill every open order now (the tests' clock is frozen). */
export async function fillOrders(sim: RunningSimulator): Promise<number> {
  return (await control<{ filled: number }>(sim, '/orders/fill', {})).filled;
}

/** The owner's open positions: contracts (micro) and cost basis (micro-USD) by `marketId:yes|no`. */
export async function positionsBySide(jup: JupiterClient, owner: string): Promise<Map<string, { contractsMicro: bigint; totalCostUsd: bigint; positionPubkey: string }>> {
  const page = await jup.prediction.getPredictionPositions({ ownerPubkey: owner, end: 100 });
  return new Map(page.data.map((p) => [`${p.marketId}:${p.isYes ? 'yes' : 'no'}`, { contractsMicro: p.contractsMicro ?? p.contracts * 1_000_000n, totalCostUsd: p.totalCostUsd, positionPubkey: p.pubkey }]));
}
