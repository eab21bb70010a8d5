import type { VersionedTransaction } from '@solana/web3.js';

/**
 * How long an Ultra order may stay landable by default, from its request, ms (config `api.ultra.maxQuoteAge`): a
 * JupiterZ quote's fill expires 55 s after it is made (DOCS `swap/routing/rfq-integration.mdx`, "Expiry").
 */
export const DEFAULT_MAX_QUOTE_AGE_MS = 60_000;

/** How a signed transaction reaches the chain; persisted so a restarted worker re-submits the same way. */
export type SubmitRoute =
  | { via: 'ultra'; requestId: string }
  | { via: 'trigger'; requestId: string }
  | { via: 'recurring'; requestId: string }
  | { via: 'rpc' };

/** An unsigned transaction the service built for an intent, with what it takes to submit and check it. */
export interface BuiltTransaction {
  tx: VersionedTransaction;
  route: SubmitRoute;
  /** Last block height at which it can land (an upper bound when the service did not say). */
  lastValidBlockHeight: bigint;
  /** What the venue quoted (amounts in base units), recorded with the intent. Never a limit of the guard. */
  quote: Record<string, unknown>;
  /** Extra signers besides the wallet that the engine adds itself (a send invite's keypair). */
  extraSigners?: ReadonlyArray<{ sign(tx: VersionedTransaction): void }>;
  /** Base58 public keys of those extra signers, which the guard accepts as signers. */
  engineSigners?: readonly string[];
  /** A lend withdrawal: the share token it burns and the most of it, from the lend listing (not the transaction). */
  burn?: { mint: string; max: bigint };
  /** When the order was requested, unix ms (Ultra: the start of its quote age, config `api.ultra.maxQuoteAge`). */
  quotedAt?: number;
  /** Unix ms after which it is built again rather than signed (Ultra: `quotedAt` plus the maximum quote age). */
  signBy?: number;
}

/** The intent cannot be carried out as asked (no route, insufficient funds, a limit): final, not retried. */
export interface BusinessRefusal {
  state: 'failed' | 'rejected';
  code: string;
  message: string;
}
