import type { CallOptions, JupiterTransport } from '../transport.js';
import { cancelRecurringOrder, type CancelRecurringOrderParams } from './cancelRecurringOrder.js';
import { createRecurringOrder, type CreateRecurringOrderParams } from './createRecurringOrder.js';
import { executeRecurringOrder, type ExecuteRecurringOrderParams } from './executeRecurringOrder.js';
import { getRecurringOrders, type GetRecurringOrdersParams } from './getRecurringOrders.js';
import { priceDeposit, type PriceDepositParams } from './priceDeposit.js';
import { priceWithdraw, type PriceWithdrawParams } from './priceWithdraw.js';

export * from './cancelRecurringOrder.js';
export * from './createRecurringOrder.js';
export * from './executeRecurringOrder.js';
export * from './getRecurringOrders.js';
export * from './priceDeposit.js';
export * from './priceWithdraw.js';

/** The Recurring V1 (DCA) endpoints bound to one transport. */
export function bindRecurring(t: JupiterTransport) {
  return {
    /** POST /recurring/v1/createOrder (time-based; minimums checked before sending). */
    createOrder: (p: CreateRecurringOrderParams, o?: CallOptions) => createRecurringOrder(t, p, o),
    /** POST /recurring/v1/execute (never retried). */
    execute: (p: ExecuteRecurringOrderParams, o?: CallOptions) => executeRecurringOrder(t, p, o),
    /** POST /recurring/v1/cancelOrder. */
    cancelOrder: (p: CancelRecurringOrderParams, o?: CallOptions) => cancelRecurringOrder(t, p, o),
    /**
     * POST /recurring/v1/priceDeposit.
     * @deprecated Price-based recurring orders are deprecated by Jupiter.
     */
    priceDeposit: (p: PriceDepositParams, o?: CallOptions) => priceDeposit(t, p, o),
    /**
     * POST /recurring/v1/priceWithdraw.
     * @deprecated Price-based recurring orders are deprecated by Jupiter.
     */
    priceWithdraw: (p: PriceWithdrawParams, o?: CallOptions) => priceWithdraw(t, p, o),
    /** GET /recurring/v1/getRecurringOrders. */
    getOrders: (p: GetRecurringOrdersParams, o?: CallOptions) => getRecurringOrders(t, p, o),
  };
}

/** The bound Recurring endpoints. */
export type RecurringApi = ReturnType<typeof bindRecurring>;
