import type { PublicKey } from '@solana/web3.js';
import type { WalletChanges } from './guardChanges.js';
import type { SpendRule } from './guardFlows.js';
import type { ApiArea } from './programs.js';
import type { SwapTerms } from './swapValue.js';

/** Why the guard refuses a transaction. Stable strings: logs, metrics and the intent ledger record them. */
export type GuardRule =
  | 'malformed'
  | 'lookup-table'
  | 'fee-payer'
  | 'signer'
  | 'program-not-allowed'
  | 'durable-nonce'
  | 'priority-fee'
  | 'simulation-failed'
  | 'destination'
  | 'sol-outflow'
  | 'token-outflow'
  | 'escrow-amount'
  | 'close-account'
  | 'wallet-account'
  | 'token-account'
  | 'unknown-instruction'
  | 'output-mint'
  | 'inflow-short'
  | 'token-extension';

/** One reason to refuse, with a message naming accounts and base-unit amounts (never key material). */
export interface GuardViolation {
  rule: GuardRule;
  message: string;
}

/**
 * What a transaction may do to the wallet. Every limit here comes from the intent, the configuration and sources
 * independent of the venue (the price feed, the chain): never from the response being checked (ARCHITECTURE.md §4).
 */
export interface GuardPolicy {
  /** The hot wallet: must be the fee payer; its accounts are the ones checked. */
  wallet: PublicKey;
  area: ApiArea;
  /** Base58 programs the transaction may invoke at the top level (see `allowedProgramsFor`). */
  allowedPrograms: ReadonlySet<string>;
  /** Required signers allowed besides the wallet (the venue's declared co-signers, signers the engine adds). */
  coSigners: ReadonlySet<string>;
  /** Most priority fee (compute-unit price at the limit, plus tips) the transaction may pay, lamports. */
  maxPriorityFeeLamports: bigint;
  /** What may leave the wallet, and where to. */
  spend: SpendRule;
  /** A swap's terms: the wallet must gain at least what the amount is worth at the feed's prices, less bounds. */
  swap?: SwapTerms | undefined;
  /** Closing the wallet's native (wSOL) account back to the wallet is part of the intent (SOL in or out). */
  mayUnwrapSol: boolean;
  /** A lend withdrawal burns at most this of its share token. */
  burn?: { mint: string; max: bigint } | undefined;
  /** Escrow authorities derived from the area's program with its published seeds. */
  escrowAuthorities?: ReadonlySet<string> | undefined;
  /** Token-2022 mints with a transfer hook or permanent delegate that may still be traded. */
  allowToken2022Mints: ReadonlySet<string>;
}

/** What the guard found. `ok` is true only when there is no violation. */
export interface GuardReport {
  ok: boolean;
  violations: GuardViolation[];
  /** Base58 fee payer, or null when the transaction could not be decoded. */
  feePayer: string | null;
  /** Base58 required signers, fee payer first. */
  signers: string[];
  /** Base58 top-level programs invoked. */
  programs: string[];
  /** The wallet's changes in the simulation (zero when it did not run or failed). */
  changes: WalletChanges;
  /** Most the fee payer is charged in fees, lamports (null when undecodable). */
  feeLamports: bigint | null;
  /** Lamports tipped to tip accounts. */
  tipsLamports: bigint;
  /** Whether the simulation ran and succeeded, so that `changes` are meaningful. */
  simulated: boolean;
  /** The slot the simulation ran at. */
  slot?: number;
  unitsConsumed?: number;
  /** The simulation's last log lines, when it failed. */
  logs?: string[];
}
