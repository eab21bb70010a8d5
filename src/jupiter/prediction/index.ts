import type { CallOptions, JupiterTransport } from '../transport.js';
import { getEvents, type GetEventsParams } from './getEvents.js';
import { searchEvents, type SearchEventsParams } from './searchEvents.js';
import { getEvent, type GetEventParams } from './getEvent.js';
import { getMarket, type GetMarketParams } from './getMarket.js';
import { getOrderbook, type GetOrderbookParams } from './getOrderbook.js';
import { getTradingStatus, type GetTradingStatusParams } from './getTradingStatus.js';
import { createPredictionOrder, type CreatePredictionOrderParams } from './createPredictionOrder.js';
import { executePredictionOrder, type ExecutePredictionOrderParams } from './executePredictionOrder.js';
import { getPredictionOrders, type GetPredictionOrdersParams } from './getPredictionOrders.js';
import { getPredictionOrder, type GetPredictionOrderParams } from './getPredictionOrder.js';
import { getPredictionOrderStatus, type GetPredictionOrderStatusParams } from './getPredictionOrderStatus.js';
import { closePredictionOrder, type ClosePredictionOrderParams } from './closePredictionOrder.js';
import { getPredictionPositions, type GetPredictionPositionsParams } from './getPredictionPositions.js';
import { getPredictionPosition, type GetPredictionPositionParams } from './getPredictionPosition.js';
import { closePredictionPosition, type ClosePredictionPositionParams } from './closePredictionPosition.js';
import { closeAllPredictionPositions, type CloseAllPredictionPositionsParams } from './closeAllPredictionPositions.js';
import { claimPredictionPosition, type ClaimPredictionPositionParams } from './claimPredictionPosition.js';
import { getPredictionHistory, type GetPredictionHistoryParams } from './getPredictionHistory.js';

export * from './common.js';
export * from './errors.js';
export * from './market.js';
export * from './getEvents.js';
export * from './searchEvents.js';
export * from './getEvent.js';
export * from './getMarket.js';
export * from './getOrderbook.js';
export * from './getTradingStatus.js';
export * from './createPredictionOrder.js';
export * from './executePredictionOrder.js';
export * from './getPredictionOrders.js';
export * from './getPredictionOrder.js';
export * from './getPredictionOrderStatus.js';
export * from './closePredictionOrder.js';
export * from './getPredictionPositions.js';
export * from './getPredictionPosition.js';
export * from './closePredictionPosition.js';
export * from './closeAllPredictionPositions.js';
export * from './claimPredictionPosition.js';
export * from './getPredictionHistory.js';

/** The Prediction Market API functions bound to one transport. */
export function bindPrediction(t: JupiterTransport) {
  return {
    getEvents: (p: GetEventsParams = {}, o?: CallOptions) => getEvents(t, p, o),
    searchEvents: (p: SearchEventsParams, o?: CallOptions) => searchEvents(t, p, o),
    getEvent: (p: GetEventParams, o?: CallOptions) => getEvent(t, p, o),
    getMarket: (p: GetMarketParams, o?: CallOptions) => getMarket(t, p, o),
    getOrderbook: (p: GetOrderbookParams, o?: CallOptions) => getOrderbook(t, p, o),
    getTradingStatus: (p: GetTradingStatusParams = {}, o?: CallOptions) => getTradingStatus(t, p, o),
    createPredictionOrder: (p: CreatePredictionOrderParams, o?: CallOptions) => createPredictionOrder(t, p, o),
    executePredictionOrder: (p: ExecutePredictionOrderParams, o?: CallOptions) => executePredictionOrder(t, p, o),
    getPredictionOrders: (p: GetPredictionOrdersParams, o?: CallOptions) => getPredictionOrders(t, p, o),
    getPredictionOrder: (p: GetPredictionOrderParams, o?: CallOptions) => getPredictionOrder(t, p, o),
    getPredictionOrderStatus: (p: GetPredictionOrderStatusParams, o?: CallOptions) => getPredictionOrderStatus(t, p, o),
    closePredictionOrder: (p: ClosePredictionOrderParams, o?: CallOptions) => closePredictionOrder(t, p, o),
    getPredictionPositions: (p: GetPredictionPositionsParams, o?: CallOptions) => getPredictionPositions(t, p, o),
    getPredictionPosition: (p: GetPredictionPositionParams, o?: CallOptions) => getPredictionPosition(t, p, o),
    closePredictionPosition: (p: ClosePredictionPositionParams, o?: CallOptions) => closePredictionPosition(t, p, o),
    closeAllPredictionPositions: (p: CloseAllPredictionPositionsParams, o?: CallOptions) => closeAllPredictionPositions(t, p, o),
    claimPredictionPosition: (p: ClaimPredictionPositionParams, o?: CallOptions) => claimPredictionPosition(t, p, o),
    getPredictionHistory: (p: GetPredictionHistoryParams, o?: CallOptions) => getPredictionHistory(t, p, o),
  };
}

/** The bound Prediction Market API. */
export type PredictionApi = ReturnType<typeof bindPrediction>;
