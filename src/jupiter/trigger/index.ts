import type { CallOptions, JupiterTransport } from '../transport.js';
import { cancelTriggerOrder, type CancelTriggerOrderParams } from './cancelTriggerOrder.js';
import { cancelTriggerOrders, type CancelTriggerOrdersParams } from './cancelTriggerOrders.js';
import { createTriggerOrder, type CreateTriggerOrderParams } from './createTriggerOrder.js';
import { executeTriggerOrder, type ExecuteTriggerOrderParams } from './executeTriggerOrder.js';
import { getTriggerOrders, type GetTriggerOrdersParams } from './getTriggerOrders.js';

export * from './cancelTriggerOrder.js';
export * from './cancelTriggerOrders.js';
export * from './createTriggerOrder.js';
export * from './executeTriggerOrder.js';
export * from './getTriggerOrders.js';

/** The Trigger V1 (limit order) endpoints bound to one transport. */
export function bindTrigger(t: JupiterTransport) {
  return {
    /** POST /trigger/v1/createOrder. */
    createOrder: (p: CreateTriggerOrderParams, o?: CallOptions) => createTriggerOrder(t, p, o),
    /** POST /trigger/v1/execute (never retried). */
    execute: (p: ExecuteTriggerOrderParams, o?: CallOptions) => executeTriggerOrder(t, p, o),
    /** POST /trigger/v1/cancelOrder. */
    cancelOrder: (p: CancelTriggerOrderParams, o?: CallOptions) => cancelTriggerOrder(t, p, o),
    /** POST /trigger/v1/cancelOrders (omit `orders` to cancel all). */
    cancelOrders: (p: CancelTriggerOrdersParams, o?: CallOptions) => cancelTriggerOrders(t, p, o),
    /** GET /trigger/v1/getTriggerOrders. */
    getOrders: (p: GetTriggerOrdersParams, o?: CallOptions) => getTriggerOrders(t, p, o),
  };
}

/** The bound Trigger endpoints. */
export type TriggerApi = ReturnType<typeof bindTrigger>;
