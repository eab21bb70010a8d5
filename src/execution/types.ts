import type { VersionedTransaction } from '@solana/web3.js';
import type { ApiArea } from '../solana/programs.js';

/** How a signed transaction reaches the chain; persisted so a restarted worker re-submits the same way. */
export type SubmitRoute =
  | { via: 'ultra'; requestId: string }
  | { via: 'trigger'; requestId: string }
  | { via: 'recurring'; requestId: string }
  | { via: 'rpc' };

/** What the guard is told about a transaction: the most it may take from the wallet. */
export interface Allowance {
  area: ApiArea;
  /** Most base units of each mint that may leave the wallet (the wSOL mint stands for native lamports). */
  maxOutflow: ReadonlyMap<string, bigint>;
  /** SOL the wallet may spend on fees and rent, beyond any SOL outflow. */
  feeBudgetLamports: bigint;
  /** Least of each mint the wallet must receive (a swap's minimum output), so the output cannot be redirected. */
  minInflow?: ReadonlyMap<string, bigint>;
}

/** An unsigned transaction the service built for an intent, with what it takes to submit and check it. */
export interface BuiltTransaction {
  tx: VersionedTransaction;
  route: SubmitRoute;
  /** Last block height at which it can land (an upper bound when the service did not say). */
  lastValidBlockHeight: bigint;
  allowance: Allowance;
  /** What the venue quoted (amounts in base units), recorded with the intent. */
  quote: Record<string, unknown>;
  /** Extra signers besides the wallet that the engine adds itself (a send invite's keypair). */
  extraSigners?: ReadonlyArray<{ sign(tx: VersionedTransaction): void }>;
}

/** The intent cannot be carried out as asked (no route, insufficient funds, a limit): final, not retried. */
export interface BusinessRefusal {
  state: 'failed' | 'rejected';
  code: string;
  message: string;
}
