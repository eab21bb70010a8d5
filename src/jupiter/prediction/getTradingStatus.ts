import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';
import { PREDICTION_PATH } from './common.js';

/** The GET /trading-status body. */
export const tradingStatusResponseSchema = z.object({
  trading_active: z.boolean(),
});
/** Whether the exchange accepts orders now. */
export type TradingStatus = z.output<typeof tradingStatusResponseSchema>;

/** GET /trading-status takes no parameters. */
export type GetTradingStatusParams = Record<string, never>;

/** GET /prediction/v1/trading-status: whether trading is enabled at all (check before placing orders). */
export async function getTradingStatus(
  client: JupiterTransport,
  _params: GetTradingStatusParams = {},
  options: CallOptions = {},
): Promise<TradingStatus> {
  return client.request({
    endpoint: 'prediction.getTradingStatus',
    method: 'GET',
    path: `${PREDICTION_PATH}/trading-status`,
    schema: tradingStatusResponseSchema,
    signal: options.signal,
  });
}
