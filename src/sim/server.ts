import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { silentLogger, type Logger } from '../lib/logger.js';
import { createSimApp } from './http/app.js';
import type { SimContext } from './http/context.js';
import { FaultController } from './http/faults.js';
import { RequestRecorder, type RecordedRequest } from './http/recorder.js';
import type { SimTier } from './http/gateway.js';
import { createSimState } from './state.js';
import { priceRoutes } from './http/priceRoutes.js';
import { rpcRoutes } from './http/rpc.js';
import { attachRpcWebSocket } from './http/rpcWs.js';
import { tokenRoutes } from './http/tokenRoutes.js';
import { ultraDataRoutes } from './http/ultraDataRoutes.js';
import { sendRoutes } from './http/sendRoutes.js';
import { recurringRoutes } from './http/recurringRoutes.js';
import { triggerRoutes } from './http/triggerRoutes.js';
import { lendRoutes } from './http/lendRoutes.js';
import { portfolioRoutes } from './http/portfolioRoutes.js';
import { predictionRoutes } from './http/predictionRoutes.js';

/** How often (real ms) the venue's product keepers look for what is due. */
const KEEPER_INTERVAL_MS = 200;

/** Options of `jup-keeper sim` and of the in-process simulator. */
export interface SimulatorOptions {
  /** Port to listen on; 0 picks a free one. */
  port?: number;
  host?: string;
  seed?: number;
  /** Simulated time per real time; 0 freezes the clock (advance it through /__sim/clock). */
  clockSpeed?: number;
  /** Simulated unix ms at start (defaults to now); fix it with the seed for byte-identical runs. */
  startMs?: number;
  tier?: SimTier;
  /** When given, requests with any other x-api-key get 401. */
  apiKeys?: readonly string[];
  logger?: Logger;
  /** Keep every raw request (method, path with query, headers, body) in memory, read back by `requests()`. Tests only. */
  recordRequests?: boolean;
}

/** A running simulator. */
export interface RunningSimulator {
  /** Origin of the Jupiter API paths, e.g. http://127.0.0.1:8899. */
  url: string;
  /** Solana JSON-RPC endpoint: `${url}/rpc`. */
  rpcUrl: string;
  port: number;
  ctx: SimContext;
  /** The requests received so far, oldest first; throws unless started with `recordRequests`. */
  requests(): RecordedRequest[];
  close(): Promise<void>;
}

/** Starts the simulator in-process and resolves once it listens. */
export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const venueOptions = { seed: options.seed ?? 1, clockSpeed: options.clockSpeed ?? 1, startMs: options.startMs };
  const ctx: SimContext = { state: createSimState(venueOptions), faults: new FaultController(), logger: options.logger ?? silentLogger };
  const reset = (): void => {
    ctx.state = createSimState(venueOptions);
  };
  const recorder = options.recordRequests ? new RequestRecorder() : undefined;
  const app = createSimApp(ctx, {
    recorder,
    apiKeys: options.apiKeys ?? [],
    tier: options.tier ?? 'off',
    reset,
    products: [
      ['/ultra/v1', ultraDataRoutes(ctx)],
      ['/tokens/v2', tokenRoutes(ctx)],
      ['/price/v3', priceRoutes(ctx)],
      ['/send/v1', sendRoutes(ctx)],
      ['/recurring/v1', recurringRoutes(ctx)],
      ['/trigger/v1', triggerRoutes(ctx)],
      ['/lend/v1', lendRoutes(ctx)],
      ['/portfolio/v1', portfolioRoutes(ctx)],
      ['/prediction/v1', predictionRoutes(ctx)],
    ],
    rpc: rpcRoutes(ctx),
  });
  const host = options.host ?? '127.0.0.1';
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 0, hostname: host }, () => resolve(s)) as Server;
    s.once('error', reject);
  });
  const ws = attachRpcWebSocket(server, ctx);
  // The venue's keepers (fills, recurring slices, expiries, lend interest) run as the clock moves.
  const keepers = setInterval(() => ctx.state.venue.runKeepers(), KEEPER_INTERVAL_MS);
  keepers.unref();
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    rpcUrl: `${url}/rpc`,
    port,
    ctx,
    requests: () => {
      if (!recorder) throw new Error('the simulator was started without recordRequests');
      return recorder.requests();
    },
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(keepers);
        ws.close();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
