import type { Server } from 'node:http';
import type { SimContext } from './context.js';

/** (being written) */
export function attachRpcWebSocket(_server: Server, _ctx: SimContext): { close(): void } {
  return { close() {} };
}
