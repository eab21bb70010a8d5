import type { PublicKey } from '@solana/web3.js';
import { PROGRAM_IDS } from '../../lib/programIds.js';
import type { SimState } from '../state.js';
import { totalValue, type GenericAsset, type PortfolioElementJson } from './portfolioElements.js';
import { MICRO } from './predictionBook.js';
import type { SimMarket } from './predictionMarkets.js';
import { decodeMarketResultAccount, decodePositionAccount, type PositionAccount } from '../../jupiter/programs/predictionAccounts.js';
import { marketResultAddress } from './predictionSeeds.js';

/*
 * The prediction fetcher of the simulator's portfolio: the wallet's open positions, read from the prediction
 * program's position accounts behind the desk's positions of the wallet (the desk is only the index: the chain has
 * no getProgramAccounts here), each valued at what selling it would fetch now. Titles and close times are the market's
 * listing, which no account holds; the outcome is the program's market result account.
 */

/** The platform the fetcher reports under. */
export const PREDICTION_PLATFORM_ID = 'jupiter-prediction';
const LINK = 'https://jup.ag/prediction';

/** `attributes.prediction` of a position's asset (PortfolioAssetAttributes): USD as numbers, times in ms, percents as %. */
export interface PredictionAttributes {
  market: { marketTitle: string; eventTitle?: string; closeTime?: number; resolveAt?: number };
  sideName: 'Yes' | 'No';
  feesPaidValue?: number;
  pnlValue?: number;
  pnlPercent?: number;
  pnlAfterFeesValue?: number;
  pnlAfterFeesPercent?: number;
  createdAt?: number;
}

/** What a position's contracts fetch now, micro-USD each: the bid, $1 once won, null when unknown. */
type SellPrice = { price: bigint | null; settled: null } | { price: bigint; settled: { atMs: number } } | 'lost';

/**
 * One `multiple` element (label Deposit: the spec's labels have none for predictions) whose `generic` assets are the
 * wallet's open positions: contracts x the side's bid while the market trades, x $1 once it settled their way; a
 * position that lost, or was claimed, is not listed.
 */
export function predictionPositions(owner: PublicKey, state: SimState): PortfolioElementJson[] {
  const desk = state.prediction;
  // The desk names the accounts; what they hold, and whether they are claimed or lost, is the chain's to say.
  const addresses = [...desk.positions.values()].filter((p) => p.owner.equals(owner));
  const assets = addresses.flatMap((p) => {
    const acc = state.venue.chain.account(p.key);
    const pos = acc && acc.data.length > 0 ? decodePositionAccount(acc.data) : undefined;
    if (!pos || !pos.owner.equals(owner) || pos.payoutClaimed) return [];
    const contracts = pos.unitVersion === 0 ? pos.contracts * MICRO : pos.contracts;
    // A position holding only an open buy has nothing yet: its deposit is the order's, not a position's.
    if (contracts === 0n) return [];
    const m = desk.markets.market(pos.marketId);
    if (!m) throw new Error(`position ${p.address}: market ${pos.marketId} is not listed`);
    const sell = sellPrice(state, m, pos);
    if (sell === 'lost') return [];
    return [positionAsset(p.address, desk.marketAddress(m), m, pos, contracts, sell)];
  });
  if (assets.length === 0) return [];
  const program = PROGRAM_IDS.jupiterPrediction;
  return [{
    networkId: 'solana',
    platformId: PREDICTION_PLATFORM_ID,
    type: 'multiple',
    label: 'Deposit',
    name: 'Prediction',
    value: totalValue(assets.map((a) => a.value)),
    data: { assets, contract: program, sourceRefs: [{ name: 'Program', address: program }], link: LINK },
  }];
}

/** The settled outcome from the market's result account, else the side's bid (null once trading stopped). */
function sellPrice(state: SimState, m: SimMarket, pos: PositionAccount): SellPrice {
  const acc = state.venue.chain.account(marketResultAddress(pos.marketId).address);
  const result = acc && acc.data.length > 0 ? decodeMarketResultAccount(acc.data) : undefined;
  if (result?.outcome === 'yes' || result?.outcome === 'no') {
    if ((result.outcome === 'yes') !== pos.isYes) return 'lost';
    return { price: MICRO, settled: { atMs: Number(result.createdAt) * 1000 } };
  }
  // A split or refund pays what the program decides, which the simulator never settles: unknown.
  if (result) return { price: null, settled: null };
  const q = state.prediction.markets.quote(m);
  return { price: pos.isYes ? q.sellYes : q.sellNo, settled: null };
}

function positionAsset(address: string, marketAddress: string, m: SimMarket, pos: PositionAccount, contracts: bigint, sell: Exclude<SellPrice, 'lost'>): GenericAsset {
  const value = sell.price === null ? null : (contracts * sell.price) / MICRO;
  const pnl = value === null ? null : value - pos.totalCostUsd;
  const marketTitle = m.question.title === '' ? m.story.title : m.question.title;
  const prediction: PredictionAttributes = {
    market: { marketTitle, eventTitle: m.story.title, closeTime: m.story.closeMs, ...(sell.settled ? { resolveAt: sell.settled.atMs } : {}) },
    sideName: pos.isYes ? 'Yes' : 'No',
    feesPaidValue: usd(pos.feesPaidUsd),
    ...(pnl === null ? {} : pnlFields(pnl, pos)),
    createdAt: Number(pos.openedAt) * 1000,
  };
  return {
    networkId: 'solana',
    type: 'generic',
    value: value === null ? null : usd(value),
    attributes: { ...(sell.settled ? { isClaimable: true } : {}), prediction },
    name: marketTitle,
    ref: address,
    sourceRefs: [{ name: 'Market', address: marketAddress }],
    link: LINK,
    data: { amount: usd(contracts), price: sell.price === null ? null : usd(sell.price) },
  };
}

/**
 * P&L against the cost basis of the contracts held, as the prediction API's position reports it (pnlUsd,
 * pnlUsdAfterFees less the fees paid, percents of the cost basis); no percents on a zero basis.
 */
function pnlFields(pnl: bigint, pos: PositionAccount): Pick<PredictionAttributes, 'pnlValue' | 'pnlPercent' | 'pnlAfterFeesValue' | 'pnlAfterFeesPercent'> {
  const after = pnl - pos.feesPaidUsd;
  const percent = (micro: bigint) => (Number(micro) / Number(pos.totalCostUsd)) * 100;
  return { pnlValue: usd(pnl), pnlAfterFeesValue: usd(after), ...(pos.totalCostUsd > 0n ? { pnlPercent: percent(pnl), pnlAfterFeesPercent: percent(after) } : {}) };
}

/** Micro-USD (or micro-contracts) as a float of whole units. */
function usd(micro: bigint): number {
  return Number(micro) / 1e6;
}
