import type { MarketData } from '../engine/ports.js';
import type { UltraRouter } from '../jupiter/ultra/getOrder.js';
import { guardTransaction } from '../solana/guard.js';
import { buildTransaction } from './build.js';
import { Executor, type ExecutorDeps } from './executor.js';
import { guardPolicyFor, type PolicyContext } from './guardPolicy.js';

/** The limits and sources the executor's build and guard read: the config's risk, venue, api.ultra, feeds and execution. */
export interface ExecutorPolicy {
  /** The risk limits: the largest slippage a swap is built with (bps), and what the guard holds a transaction to. */
  risk: PolicyContext['risk'];
  /** The venue's declared co-signers (declaredCoSigners, venueSigners.ts). */
  coSigners: readonly string[];
  /** Extra top-level programs the operator allows, per API area (config `venue.allowPrograms`). */
  extraPrograms?: PolicyContext['extraPrograms'];
  /**
   * Ultra orders (config `api.ultra`): the routers excluded, and the longest an order may stay landable from its
   * request, ms (the build's re-quote and the guard's quote-expiry rule). None: the builder's and the guard's defaults.
   */
  ultra?: { excludeRouters: readonly UltraRouter[]; maxQuoteAgeMs: number } | undefined;
  /** Oldest market snapshot a swap may be valued with, ms (config `feeds.maxPriceAge`). */
  maxPriceAgeMs: number;
  /** Attempts per intent (config `execution.maxAttempts`). */
  maxAttempts: number;
}

/** The parts the executor works with: the ledger, the venue, the chain, the wallet, and where it reads prices. */
export type ExecutorParts = Pick<ExecutorDeps, 'store' | 'jup' | 'rpc' | 'wallet' | 'killSwitch' | 'logger' | 'notice' | 'onMove'> & {
  /**
   * The latest market snapshot (the price feed), read again for each build (a recurring order's USD minimums) and each
   * guard check (a swap's value, never the venue's): undefined where no feed runs (the send commands).
   */
  market: () => Promise<MarketData | undefined>;
};

/**
 * The keeper's executor, as `jup-keeper run` (src/main.ts) and the send commands (src/cli/commands/sendSession.ts)
 * both use it: the venue builds each intent's transaction (buildTransaction) and the pre-sign guard holds it to the
 * intent, the configuration and the feed's prices (guardPolicyFor, guardTransaction). One definition, so that a
 * transaction the CLI signs passed the same checks as one the daemon signs.
 */
export function createExecutor(parts: ExecutorParts, policy: ExecutorPolicy): Executor {
  const { store, jup, rpc, wallet, market } = parts;
  return new Executor({
    store,
    jup,
    rpc,
    wallet,
    killSwitch: parts.killSwitch,
    logger: parts.logger,
    maxAttempts: policy.maxAttempts,
    onMove: parts.onMove,
    notice: parts.notice,
    build: async (intent, intentId, signal) => {
      const snapshot = await market();
      return buildTransaction(intent, { jup, rpc, wallet, intentId, maxSlippageBps: policy.risk.maxSlippageBps, usdPrice: (mint) => snapshot?.prices[mint], ultra: policy.ultra, signal });
    },
    guard: async (intent, built) => {
      const guardPolicy = await guardPolicyFor(intent, built, {
        wallet: wallet.publicKey,
        risk: policy.risk,
        coSigners: policy.coSigners,
        extraPrograms: policy.extraPrograms,
        maxQuoteAgeMs: policy.ultra?.maxQuoteAgeMs,
        market: await market(),
        maxPriceAgeMs: policy.maxPriceAgeMs,
        now: Date.now(),
      });
      return guardTransaction(built.tx, guardPolicy, rpc);
    },
  });
}
