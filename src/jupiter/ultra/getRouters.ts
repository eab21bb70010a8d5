import { z } from 'zod';
import type { CallOptions, JupiterTransport } from '../transport.js';

/** One router of Ultra's engine. `name` is e.g. `Metis`, `JupiterZ`, `DFlow` or `OKX DEX Router`; kept open. */
export const routerSchema = z.object({
  id: z.string().min(1),
  name: z.string(),
  /** URL of the router's icon. */
  icon: z.string().nullish(),
});
/** A parsed router. */
export type UltraRouterInfo = z.output<typeof routerSchema>;

/** The /ultra/v1/order/routers body. */
export const routersResponseSchema = z.array(routerSchema);

/** GET /ultra/v1/order/routers: the routers Ultra may route through (ids usable in `excludeRouters`). */
export async function getRouters(client: JupiterTransport, options: CallOptions = {}): Promise<UltraRouterInfo[]> {
  return client.request({
    endpoint: 'ultra.routers',
    method: 'GET',
    path: '/ultra/v1/order/routers',
    schema: routersResponseSchema,
    signal: options.signal,
  });
}
