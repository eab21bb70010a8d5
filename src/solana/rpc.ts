import { Connection, type AccountInfo, type Commitment, type PublicKey, type SignatureStatus, type VersionedTransaction } from '@solana/web3.js';

/** Most accounts one getMultipleAccounts call may ask for. */
const MAX_ACCOUNTS_PER_CALL = 100;

/** A signature's status, as the engine needs it. */
export interface TxStatus {
  slot: number;
  err: unknown;
  confirmationStatus: 'processed' | 'confirmed' | 'finalized' | null;
}

/**
 * The Solana JSON-RPC calls the engine makes, over web3.js's Connection (HTTP only: the engine polls, it never
 * subscribes, so no WebSocket is opened). Confirmation is by signature status, bounded by lastValidBlockHeight.
 */
export class SolanaRpc {
  readonly connection: Connection;
  private readonly commitment: Commitment;

  constructor(url: string, options: { commitment?: Commitment; fetch?: typeof fetch } = {}) {
    this.commitment = options.commitment ?? 'confirmed';
    this.connection = new Connection(url, { commitment: this.commitment, disableRetryOnRateLimit: true, fetch: options.fetch });
  }

  /** The current block height at the engine's commitment, from a node at least at `minContextSlot`. */
  async blockHeight(minContextSlot?: number): Promise<bigint> {
    return BigInt(await this.connection.getBlockHeight({ commitment: this.commitment, ...(minContextSlot !== undefined ? { minContextSlot } : {}) }));
  }

  /** The current slot at the engine's commitment. */
  async slot(): Promise<number> {
    return this.connection.getSlot(this.commitment);
  }

  /** The lowest slot the node keeps history for: a signature absent from it may be older than that. */
  async minimumLedgerSlot(): Promise<number> {
    return this.connection.getMinimumLedgerSlot();
  }

  /**
   * A signature's status, searching history (so "absent" means absent, not "out of the status cache"), with the slot
   * of the node that answered.
   */
  async status(signature: string): Promise<{ slot: number; value: TxStatus | null }> {
    const res = await this.connection.getSignatureStatuses([signature], { searchTransactionHistory: true });
    const s: SignatureStatus | null | undefined = res.value[0];
    return { slot: res.context.slot, value: s ? { slot: s.slot, err: s.err, confirmationStatus: s.confirmationStatus ?? null } : null };
  }

  /** The fee (lamports) a landed transaction paid, as the chain recorded it; null when the node has no record of it. */
  async transactionFee(signature: string): Promise<bigint | null> {
    const tx = await this.connection.getTransaction(signature, { commitment: 'confirmed', maxSupportedTransactionVersion: 0 });
    return tx?.meta ? BigInt(tx.meta.fee) : null;
  }

  /** Whether a blockhash can still land a transaction, on a node at least at `minContextSlot`, with that node's slot. */
  async blockhashValidity(blockhash: string, minContextSlot?: number): Promise<{ slot: number; valid: boolean }> {
    const res = await this.connection.isBlockhashValid(blockhash, { commitment: this.commitment, ...(minContextSlot !== undefined ? { minContextSlot } : {}) });
    return { slot: res.context.slot, valid: res.value };
  }

  /** Sends signed bytes (preflight at the engine's commitment). Returns the signature. */
  async send(bytes: Uint8Array, options: { skipPreflight?: boolean } = {}): Promise<string> {
    return this.connection.sendRawTransaction(bytes, { skipPreflight: options.skipPreflight ?? false, preflightCommitment: this.commitment, maxRetries: 0 });
  }

  /** Lamports of an account (0 when missing). */
  async lamports(address: PublicKey): Promise<bigint> {
    return BigInt(await this.connection.getBalance(address, this.commitment));
  }

  /**
   * Simulates a transaction without checking signatures, on a node at least at `minContextSlot`, returning the
   * post-state of the given accounts and the inner (CPI) instructions, with the slot it ran at.
   */
  async simulate(tx: VersionedTransaction, accounts: readonly PublicKey[], options: { minContextSlot?: number } = {}) {
    return this.connection.simulateTransaction(tx, {
      sigVerify: false,
      replaceRecentBlockhash: false,
      commitment: this.commitment,
      innerInstructions: true,
      ...(options.minContextSlot !== undefined ? { minContextSlot: options.minContextSlot } : {}),
      accounts: { encoding: 'base64', addresses: accounts.map((a) => a.toBase58()) },
    });
  }

  /**
   * Accounts read together, from a node at least at `minContextSlot`, with the slot they were read at (the
   * highest of the chunks: a later read pinned to it can only see the same state or newer).
   */
  async accountsAt(keys: readonly PublicKey[], minContextSlot?: number): Promise<{ slot: number; accounts: Array<AccountInfo<Buffer> | null> }> {
    const accounts: Array<AccountInfo<Buffer> | null> = [];
    let slot = minContextSlot ?? 0;
    for (let i = 0; i < keys.length; i += MAX_ACCOUNTS_PER_CALL) {
      const res = await this.connection.getMultipleAccountsInfoAndContext([...keys.slice(i, i + MAX_ACCOUNTS_PER_CALL)], {
        commitment: this.commitment,
        ...(minContextSlot !== undefined ? { minContextSlot } : {}),
      });
      slot = Math.max(slot, res.context.slot);
      accounts.push(...res.value);
    }
    return { slot, accounts };
  }
}
