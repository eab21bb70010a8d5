import type { PublicKey } from '@solana/web3.js';
import type { AccountSnapshot, WalletChanges } from './guardChanges.js';
import type { ApiArea } from './programs.js';
import type { SwapTerms } from './swapValue.js';

/** Where the wallet's funds may go, from the intent alone (docs/architecture.md § The pre-sign guard). */
export type SpendRule =
  /** Nothing may leave (cancels, claims, withdrawals, clawbacks): only fees. */
  | { kind: 'nothing' }
  /**
   * A swap: up to `max` of `mint` may go to the counterparty: the venue's declared co-signers (a market maker that
   * signs its side) or whichever accounts the aggregator's own program pays on the wallet's behalf (its CPIs).
   */
  | { kind: 'counterparty'; mint: string; max: bigint }
  /**
   * A product order: exactly `amount` of `mint` goes into the escrow its instruction names (FlowPolicy.product), plus
   * the rent of the accounts it names; with `upTo`, at most `amount` (a lend mint of exact shares pays what they cost
   * at the program's exchange price).
   */
  | { kind: 'escrow'; mint: string; amount: bigint; upTo?: boolean };

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
  | 'created-account'
  | 'payout-short'
  | 'payout-destination'
  | 'output-mint'
  | 'inflow-short'
  | 'token-extension'
  | 'quote-expiry'
  | ProductRule;

/**
 * The rules of the product checks (GuardPolicy.product): the product's own instruction, decoded with the program's
 * layouts (src/jupiter/programs), held to the intent. Each says what a mismatch is; this is their one definition.
 */
export const PRODUCT_RULES = Object.freeze({
  /** The product's instruction is missing, repeated, of another kind or program than the intent, or unreadable. */
  'product-instruction': 'the transaction does not carry exactly the one product instruction the intent needs',
  /** The owner, maker, user, sender or signer the instruction names is not the wallet, or it pulls from another account. */
  'product-owner': 'the instruction acts for someone other than the wallet',
  /** An input, output, asset, settlement or invite mint is not the intent's. */
  'product-mint': 'a mint of the instruction is not the intent\'s',
  /** An amount (making, taking, in, deposit, withdrawal, contracts, invite) is not the intent's. */
  'product-amount': 'an amount of the instruction is not the intent\'s',
  /** A price bound is looser than the intent's (a buy limit above it, a sell floor below it, a slippage, DCA bounds). */
  'product-price-limit': 'a price bound of the instruction is looser than the intent\'s',
  /** When an order runs: a recurring order's slices, interval or start, a limit order's expiry. */
  'product-schedule': 'the order would run on another schedule than the intent\'s',
  /** An integrator or referral fee the intent never asked for. */
  'product-fee': 'the instruction takes a fee the intent did not ask for',
  /** A prediction order's side (YES or NO) or direction (buy or sell) is not the intent's. */
  'product-side': 'the order is on another side than the intent\'s',
  /** A prediction order's market is not the intent's. */
  'product-market': 'the order is in another market than the intent\'s',
  /** The escrow (order account, its token account, a vault, an invite) is not the one derived from the product's program. */
  'product-escrow': 'the escrow is not the one the product\'s program derives',
  /** The order, position or invite acted on is not the intent's. */
  'product-target': 'the instruction acts on another order, position or invite than the intent\'s',
  /** A refund, payout, proceeds or withdrawal goes elsewhere than the wallet's own account. */
  'product-payout': 'what the instruction pays out goes elsewhere than the wallet\'s own account',
  /** A lend deposit's share token is not the asset's jlToken minted to the wallet's own account. */
  'product-share-token': 'the deposit\'s share token is not the asset\'s, or not minted to the wallet',
});

/** A rule of the product checks (see PRODUCT_RULES). */
export type ProductRule = keyof typeof PRODUCT_RULES;

/** One top-level instruction of a transaction, its accounts resolved (lookup tables included), base58. */
export interface TopInstruction {
  programId: string;
  accounts: readonly string[];
  data: Uint8Array;
}

/**
 * The intent's terms as its product's program would carry them out (docs/architecture.md § The pre-sign guard): built
 * from the intent with the program's layouts by the execution layer (src/execution/productGuard), run by the guard on
 * the transaction's top-level instructions and the accounts as the chain held them before it ran (every account the
 * transaction writes, every account an instruction of `program` names, and `reads`). A mismatch is a violation of a
 * PRODUCT_RULES rule; it never throws on a bad transaction. Besides the violations it says, from the decoded
 * instruction and the chain, where the wallet's money may go and what must come back (ProductTerms): the flows and
 * the balances are then held to that, not to "some account of the right program".
 */
export interface ProductCheck {
  /** The intent kind it checks (for messages). */
  kind: string;
  /** The product's program (base58): every account its top-level instructions name is read before the check. */
  program: string;
  /** Base58 accounts it reads besides those (mints whose decimals it needs). */
  reads: readonly string[];
  check(instructions: readonly TopInstruction[], accountAt: (address: string) => AccountSnapshot | null | undefined, message?: ProductMessage): ProductVerdict;
}

/** What a product check may read of the message besides its instructions (absent: the wallet pays the fee). */
export interface ProductMessage {
  /**
   * Base58 account paying the fee in the wallet's place, as the policy lets one (GuardPolicy.sponsoredFees; a
   * gasless prediction order's gas payer, which pays the rent too); undefined when the wallet is the fee payer.
   */
  sponsor: string | undefined;
}

/** What a product check found: its violations, and the movements the decoded instruction allows and requires. */
export interface ProductVerdict {
  violations: GuardViolation[];
  terms: ProductTerms;
}

/**
 * The money movements a product instruction stands for, tied to the accounts it names (the guard's flow and payout
 * rules read them; empty lists allow nothing).
 */
export interface ProductTerms {
  /** The escrows (or the vault) the deposit may go into: the exact accounts the instruction names. Every other account is a stranger. */
  escrows: readonly string[];
  /** Accounts the wallet may pay to create: the ones the instruction names, each of its type's size, for exactly that rent. */
  creates: readonly CreatedAccount[];
  /** Accounts a payout comes out of (an escrow, a vault): what leaves them may go only to the wallet's own accounts. */
  payers: readonly string[];
  /** What must arrive in the wallet's own accounts, checked on the simulated balances. */
  payouts: readonly Payout[];
  /**
   * Mints whose new tokens the instruction mints to the wallet alone (a deposit's share token): minted to anyone else,
   * they dilute what the wallet holds of them (`payout-destination`).
   */
  ownMints?: readonly string[];
  /**
   * A top-level swap that funds the product's deposit (a prediction buy paid in another stable: the deposit swapped
   * into the settlement mint first). Without it, no swap may take the wallet's money.
   */
  funding?: ProductFunding | undefined;
}

/**
 * The swap a product instruction is funded by, as its check held it to the intent: up to `most` of `inputMint` may
 * leave the wallet under `program`'s top-level instruction (the swap's counterparty), and the escrow then receives
 * exactly `deposit` of `outputMint` (in place of the intent's own mint).
 */
export interface ProductFunding {
  /** The aggregator program whose top-level instruction is the swap (base58). */
  program: string;
  inputMint: string;
  /** Most of `inputMint` the swap may take, base units (the intent's deposit). */
  most: bigint;
  outputMint: string;
  /** What goes into the escrow, base units of `outputMint`. */
  deposit: bigint;
}

/** An account the product instruction creates at the wallet's expense (rent). */
export interface CreatedAccount {
  /** Base58 address. */
  address: string;
  /** The program that owns it once created (a token program for an escrow token account). */
  owner: string;
  /** Its size: a state account's bounds in bytes (equal when the type is fixed), or a token account of a mint (its extensions decide). */
  space: { min: bigint; max: bigint } | { tokenAccountOf: string };
  /** What it is, for messages. */
  what: string;
}

/** Something that must arrive in the wallet's own accounts. */
export interface Payout {
  /** The mint paid; wrapped SOL (SOL_ASSET) counts lamports and wrapped SOL together. */
  mint: string;
  /** Least that must arrive, base units. */
  least: bigint;
  /** What it is and how the least was found, for messages. */
  what: string;
}

/** One reason to refuse, with a message naming accounts and base-unit amounts (never key material). */
export interface GuardViolation {
  rule: GuardRule;
  message: string;
}

/**
 * What a transaction may do to the wallet. Every limit here comes from the intent, the configuration and sources
 * independent of the venue (the price feed, the chain): never from the response being checked
 * (docs/architecture.md § The pre-sign guard).
 */
export interface GuardPolicy {
  /** The hot wallet: the fee payer (unless `sponsoredFees`); its accounts are the ones checked. */
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
  /** Token-2022 mints with a transfer hook or permanent delegate that may still be traded. */
  allowToken2022Mints: ReadonlySet<string>;
  /**
   * Another account may pay the fee (Ultra's routes: JupiterZ's market maker, Jupiter's gas wallet; a gasless
   * prediction order: Jupiter's gas payer, which the product check may also accept as the payer of rent): the wallet must
   * then be a required signer, the only other signers the fee payer and `coSigners`, and the wallet pays no fee and no
   * tip. Every other rule holds as it is (the fee payer may also be paid the swap's input, as a co-signer may).
   */
  sponsoredFees?: boolean | undefined;
  /** How long the signed transaction may stay landable, read from its own instructions (rule `quote-expiry`). */
  expiry?: ExpiryCheck | undefined;
  /** The product instruction's terms held to the intent (every product but swaps, whose terms are `swap`); its verdict's ProductTerms tie the flows and payouts to the instruction. */
  product?: ProductCheck | undefined;
}

/**
 * A bound on how long a signed transaction stays landable, on the expiry its own instructions carry and the chain
 * enforces (a JupiterZ fill's `expire_at`): whoever signs after the wallet (the market maker) can hold it no longer.
 * Built by the execution layer with the product's layout (src/jupiter/ultra/orderEngine.ts).
 */
export interface ExpiryCheck {
  /** Latest expiry allowed, unix seconds. */
  latest: bigint;
  /** The expiries the instructions carry (unix seconds), or why one cannot be read; empty when none carries one. */
  read(instructions: readonly TopInstruction[]): Array<bigint | string>;
  /** Where the bound comes from, for messages (a config field). */
  source: string;
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
