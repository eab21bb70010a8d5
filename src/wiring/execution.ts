import type { KeeperConfig } from '../config/load.js';
import type { KeeperMetrics } from '../dashboard/metrics.js';
import { afterExecution, type ExecutionPorts } from '../engine/landings.js';
import type { ExecutionResult } from '../execution/executor.js';
import { createExecutor } from '../execution/keeperExecutor.js';
import { declaredCoSigners } from '../execution/venueSigners.js';
import type { JupiterClient } from '../jupiter/client.js';
import type { EventPublisher } from '../lib/events.js';
import type { Logger } from '../lib/logger.js';
import type { SolanaRpc } from '../solana/rpc.js';
import type { HotWallet } from '../solana/wallet.js';
import { noteTradeFee } from '../store/trades.js';
import type { KeeperStorage } from './storage.js';

/** What the execute jobs run on. */
export interface ExecutionParts {
  config: KeeperConfig;
  store: KeeperStorage;
  prefix: string;
  jup: JupiterClient;
  rpc: SolanaRpc;
  wallet: HotWallet;
  /** The venue's origin: a simulator declares its co-signers there (declaredCoSigners). */
  venueUrl: string;
  /** The dashboard's metrics, told of every move, when a dashboard is served. */
  metrics: KeeperMetrics | undefined;
  events: EventPublisher;
  logger: Logger;
}

/**
 * The execute job of `jup-keeper run`: the keeper's executor (createExecutor) with the config's limits, the venue's
 * declared co-signers and the price feed's market snapshot, then what follows an execution in the worker that ran
 * it (afterExecution: the fee booked against the day's budget, a swap's fill in the P&L book, the events).
 */
export async function keeperExecution(p: ExecutionParts): Promise<(intentId: string, signal: AbortSignal) => Promise<ExecutionResult>> {
  const { config, store, jup, rpc, wallet, metrics, logger } = p;
  const { intents, snapshots, risk } = store;
  const executor = createExecutor(
    {
      store: intents,
      jup,
      rpc,
      wallet,
      killSwitch: () => risk.killSwitch(),
      logger: logger.child({ component: 'executor' }),
      notice: (text) => process.stdout.write(text),
      market: () => snapshots.read('market'),
      onMove: metrics && ((rec, _from, to, at, patch) => metrics.observeMove(rec, to, at, patch.error)),
    },
    {
      risk: config.risk,
      coSigners: await declaredCoSigners(config.venue, p.venueUrl),
      extraPrograms: config.venue.allowPrograms,
      ultra: { excludeRouters: config.api.ultra.excludeRouters, maxQuoteAgeMs: config.api.ultra.maxQuoteAge },
      maxPriceAgeMs: config.feeds.maxPriceAge,
      maxAttempts: config.execution.maxAttempts,
    },
  );
  const landings: ExecutionPorts = {
    intent: (i) => intents.get(i),
    refused: (i) => intents.get(i),
    market: () => snapshots.read('market'),
    feeOf: (sig) => rpc.transactionFee(sig, wallet.address),
    recordFee: (i, fee, at) => risk.recordFee(i, fee, at).then(() => noteTradeFee(store.redis, p.prefix, i, fee)),
    recordFill: (inst, fill) => store.pnl.recordFill(inst, fill),
    events: p.events,
    logger: logger.child({ component: 'landings' }),
  };
  return async (id, signal) => {
    const result = await executor.execute(id, signal);
    await afterExecution(id, result, landings, Date.now());
    return result;
  };
}
