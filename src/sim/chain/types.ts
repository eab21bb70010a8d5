import type { AccountInfo, Keypair, PublicKey, VersionedTransaction } from '@solana/web3.js';
import type { TxErrorJson } from './txErrors.js';

/** One settled transaction as `/__sim/ledger` reports it. Amounts are base units. */
export interface LedgerEntry {
  signature: string;
  kind: string;
  wallet: string;
  requestId: string | null;
  slot: bigint;
  inputMint: string | null;
  inputAmount: bigint | null;
  outputMint: string | null;
  outputAmount: bigint | null;
  /** The fee an Ultra order took and who got it (absent on other kinds). */
  fee?: LedgerFee;
}

/**
 * The fee of an Ultra order, in base units of `mint` (the order's feeMint), and where it went: an integrator's
 * share to its referral token account, the rest kept by the operator (Jupiter); who paid the transaction's gas.
 */
export interface LedgerFee {
  mint: string;
  /** The order's feeBps (an integrator's referralFee, or Ultra's fee plus any gasless recoup). */
  bps: number;
  amount: bigint;
  /** The integrator's referral account, when its fee applied. */
  referralAccount: string | null;
  /** Paid to the integrator's referral token account (80 % of its fee). */
  referralAmount: bigint;
  /** Kept by the operator: Ultra's whole fee, or 20 % of an integrator's fee. */
  operatorAmount: bigint;
  /** The transaction's fee payer: the wallet, Jupiter's gas wallet (gasless) or an integrator's payer. */
  feePayer: string;
  gasless: boolean;
}

/** What a product records about a transaction it settles; the chain adds signature and slot. */
export type LedgerRecord = Omit<LedgerEntry, 'signature' | 'slot'>;

/** Status of a signature, as getSignatureStatuses reports it. */
export interface SignatureStatus {
  slot: bigint;
  err: TxErrorJson | null;
  logs: string[];
  /** What getTransaction reports about it. */
  landed?: LandedTransaction;
}

/**
 * One instruction a program invoked through CPI, as the runtime records it. Account and program indexes point into
 * the transaction's full key list (static keys, then loaded writable, then loaded readonly); stackHeight is 2 for a
 * call made by a top-level instruction, 3 for one made from there, and so on.
 */
export interface CompiledInnerInstruction {
  programIdIndex: number;
  accounts: number[];
  data: Uint8Array;
  stackHeight: number;
}

/** The inner instructions of a transaction: one list per top-level instruction, empty when it made no CPI. */
export type InnerInstructionList = CompiledInnerInstruction[][];

/** The addresses a v0 transaction loaded from address lookup tables. */
export interface LoadedAddresses {
  writable: PublicKey[];
  readonly: PublicKey[];
}

/** Data a program returned (set_return_data), with the program that set it. */
export interface ReturnData {
  programId: PublicKey;
  data: Uint8Array;
}

/** A landed transaction as getTransaction reports it. Balances are lamports, in the order of `accounts`. */
export interface LandedTransaction {
  /** The transaction as it landed (co-signed); undefined for faucet airdrops, which LiteSVM signs itself. */
  tx: VersionedTransaction | undefined;
  /** The bytes the VM ran (`tx` serialized as it landed), when they were serialized to run it; kept for getTransaction. */
  wire?: Uint8Array;
  /** Lamports charged to the fee payer. */
  fee: bigint;
  /** Every account key: the static ones, then those loaded from lookup tables (writable, then readonly). */
  accounts: PublicKey[];
  loadedAddresses: LoadedAddresses;
  /** What its instructions invoked; null when it never ran (charged a fee only). */
  innerInstructions: InnerInstructionList | null;
  preBalances: bigint[];
  postBalances: bigint[];
  /** Token accounts among `accounts`, before and after. */
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  unitsConsumed: bigint;
}

/** A token account's balance in a landed transaction; `accountIndex` points into its accounts. Amount in base units. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  amount: bigint;
}

/** What chain listeners hear: a signature got a status, or (signature null) an account was written directly. */
export interface ChainEvent {
  signature: string | null;
  slot: bigint;
}

/** The outcome of submitting one transaction. */
export type SubmitOutcome =
  | { kind: 'landed'; signature: string; slot: bigint; logs: string[] }
  | { kind: 'landed-failed'; signature: string; slot: bigint; err: TxErrorJson; logs: string[] }
  | { kind: 'duplicate'; signature: string; status: SignatureStatus }
  | { kind: 'rejected'; signature: string; err: TxErrorJson; logs: string[] };

/** Options of submit. */
export interface SubmitOptions {
  /** Keypairs of the simulator's own actors (vault, escrow) whose signatures it adds before settling. */
  cosigners?: readonly Keypair[];
  /** What to write into the ledger when the transaction lands successfully. */
  record?: LedgerRecord;
  /** Runs after the transaction lands successfully, before the outcome is returned (product bookkeeping). */
  onLanded?: (signature: string, slot: bigint) => void;
  /** The transaction's message serialized, when the caller has the bytes (they are not serialized again). */
  message?: Uint8Array;
}

/** Result of a simulation. */
export interface SimulationResult {
  err: TxErrorJson | null;
  logs: string[];
  unitsConsumed: bigint;
  /** State after the simulation of the accounts the transaction touched (empty when it failed). */
  postAccounts: Array<{ address: PublicKey; account: AccountInfo<Uint8Array> }>;
  /** What its instructions invoked, failed runs included; null when it never ran (refused before execution). */
  innerInstructions: InnerInstructionList | null;
  loadedAddresses: LoadedAddresses;
  returnData: ReturnData | null;
}
