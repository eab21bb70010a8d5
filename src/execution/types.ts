import type { VersionedTransaction } from '@solana/web3.js';

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
}

/** The intent cannot be carried out as asked (no route, insufficient funds, a limit): final, not retried. */
export interface BusinessRefusal {
  state: 'failed' | 'rejected';
  code: string;
  message: string;
}
